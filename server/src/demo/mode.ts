import type { BootExtension, FirstKeys } from '../boot.js';
import { createKey } from '../keys/keys.js';
import type { KeyStore } from '../store/key-store.js';
import { demoAgent } from './demo-agent.js';
import { readDemoKeys, writeDemoKeys } from './keys-file.js';
import { seedDemo } from './seed.js';
import { consoleAddress } from '../startup/console-address.js';
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
 * Demo mode: a fresh directory is seeded (categories, articles, hours, design), the demo pages are
 * served at / with the demo's public key, and the keys and the demo agent's sign-in are kept in
 * demo-keys.json and printed, so a person can sign in to the console and `pnpm demo:reply` can play support.
 */
export const demoMode: BootExtension = {
  printsFirstKeys: false,
  async setUp({ configStore, keys, dataDir, clock, firstKeys }) {
    if (configStore.created) await seedDemo(configStore, clock());
    const demo = await demoKeys(dataDir, keys, firstKeys);
    const agent = await demoAgent(configStore, readDemoKeys(dataDir)?.agent, clock());
    // The first start's admin was shown to nobody (demo mode prints no one-time password): the demo
    // agent is the admin here.
    const unshown = firstKeys?.admin;
    if (unshown) await configStore.update((d) => void (d.agents = d.agents.filter((a) => a.id !== unshown.id)));
    return {
      site: demoSite({ publicKey: demo.pk, apiOrigin: '' }),
      async started(url, print) {
        await writeDemoKeys(dataDir, { publicKey: demo.pk, secretKey: demo.sk, url, agent });
        print('');
        print(`Ticketing demo: open ${url}/ in your browser (the shop page with the widget).`);
        print(`  public key (in the pages): ${demo.pk}`);
        print(`  secret key (support):      ${demo.sk}`);
        print(`Support console: ${consoleAddress(url)}`);
        print(`  email:    ${agent.email}`);
        print(`  password: ${agent.password}`);
        print('Play support from another terminal:');
        print('  pnpm demo:tickets                        list tickets');
        print('  pnpm demo:reply <ticket id> "Thanks!"    answer as support');
        print('  pnpm demo:close <ticket id>              close a ticket (the customer can then rate it)');
        print('');
      },
    };
  },
};
