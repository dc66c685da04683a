import type { BootExtension } from '../boot.js';
import { createKey } from '../keys/keys.js';
import type { KeyStore } from '../store/key-store.js';
import { readDemoKeys, writeDemoKeys } from './keys-file.js';
import { seedDemo } from './seed.js';
import { demoSite } from './site.js';

/** The demo's keys: the first keys of a fresh demo directory, else those it kept, else a new pair. */
async function demoKeys(dataDir: string, keys: KeyStore, first: { pk: string; sk: string } | undefined) {
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
 * served at / with the demo's public key, and the keys are kept in demo-keys.json and printed, so
 * `pnpm demo:reply` can play support.
 */
export const demoMode: BootExtension = {
  printsFirstKeys: false,
  async setUp({ configStore, keys, dataDir, clock, firstKeys }) {
    if (configStore.created) await seedDemo(configStore, clock());
    const demo = await demoKeys(dataDir, keys, firstKeys);
    return {
      site: demoSite({ publicKey: demo.pk, apiOrigin: '' }),
      async started(url, print) {
        await writeDemoKeys(dataDir, { publicKey: demo.pk, secretKey: demo.sk, url });
        print('');
        print(`Ticketing demo: open ${url}/ in your browser (the shop page with the widget).`);
        print(`  public key (in the pages): ${demo.pk}`);
        print(`  secret key (support):      ${demo.sk}`);
        print(`Support console: ${url}/console/ (sign in with the secret key above; agent accounts come next).`);
        print('Play support from another terminal:');
        print('  pnpm demo:tickets                        list tickets');
        print('  pnpm demo:reply <ticket id> "Thanks!"    answer as support');
        print('  pnpm demo:close <ticket id>              close a ticket (the customer can then rate it)');
        print('');
      },
    };
  },
};
