import type { BootExtension, FirstKeys } from '../boot.js';
import { createKey } from '../keys/keys.js';
import { hashPassword } from '../settings/passwords.js';
import { oneTimePassword } from '../settings/agents.js';
import { newId } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import type { KeyStore } from '../store/key-store.js';
import { readDemoKeys, writeDemoKeys } from './keys-file.js';
import { seedDemo } from './seed.js';
import { demoSite } from './site.js';

/** The demo's keys: the first keys of a fresh demo directory, else those it kept, else a new pair. */
async function demoKeys(dataDir: string, keys: KeyStore, first: FirstKeys | undefined) {
  if (first) return first;
  const kept = readDemoKeys(dataDir);
  if (kept) return { pk: kept.publicKey, sk: kept.secretKey };
  const pk = createKey('public', 'live', { label: 'demo' });
  const sk = createKey('secret', 'live', { label: 'demo' });
  await keys.add(pk.stored, sk.stored);
  return { pk: pk.key, sk: sk.key };
}

/**
 * The demo's agent, an admin who signs in to the console with a password kept in demo-keys.json (a
 * demo convenience, as its keys are): the first start's admin agent, renamed and with its password
 * kept, or on an older demo directory a new one.
 */
async function demoAgent(dataDir: string, configStore: ConfigStore, first: FirstKeys | undefined, at: Date) {
  const kept = readDemoKeys(dataDir)?.agent;
  const agents = configStore.get().agents;
  if (kept && agents.some((a) => a.email === kept.email)) return kept;
  const made = first?.admin ?? { id: newId('agt'), email: 'agent@demo.localhost', password: oneTimePassword() };
  const hash = await hashPassword(made.password);
  await configStore.update((d) => {
    d.agents = [
      ...d.agents.filter((a) => a.id !== made.id && a.email !== made.email),
      {
        id: made.id,
        name: 'Dana (demo agent)',
        email: made.email,
        role: 'admin',
        active: true,
        password_hash: hash,
        two_factor_secret: null,
        passkeys: [],
        must_change_password: false,
        two_factor_pending: null,
        recovery_codes: [],
        totp_last_step: 0,
        created_at: at.toISOString(),
      },
    ];
  });
  return { email: made.email, password: made.password };
}

/**
 * Demo mode: a fresh directory is seeded (categories, articles, hours, design), the demo pages are
 * served at / with the demo's public key, and the keys are kept in demo-keys.json and printed, so
 * `pnpm demo:reply` can play support.
 */
export const demoMode: BootExtension = {
  printsFirstKeys: false,
  async setUp({ configStore, keys, dataDir, clock, firstKeys }) {
    if (configStore.created) await seedDemo(configStore, clock());
    const demo = await demoKeys(dataDir, keys, firstKeys);
    const agent = await demoAgent(dataDir, configStore, firstKeys, clock());
    return {
      site: demoSite({ publicKey: demo.pk, apiOrigin: '' }),
      async started(url, print) {
        await writeDemoKeys(dataDir, { publicKey: demo.pk, secretKey: demo.sk, url, agent });
        print('');
        print(`Ticketing demo: open ${url}/ in your browser (the shop page with the widget).`);
        print(`  public key (in the pages): ${demo.pk}`);
        print(`  secret key (support):      ${demo.sk}`);
        print(`Support console: ${url}/console/`);
        print(`  agent email:    ${agent.email}`);
        print(`  agent password: ${agent.password}`);
        print('Play support from another terminal:');
        print('  pnpm demo:tickets                        list tickets');
        print('  pnpm demo:reply <ticket id> "Thanks!"    answer as support');
        print('  pnpm demo:close <ticket id>              close a ticket (the customer can then rate it)');
        print('');
      },
    };
  },
};
