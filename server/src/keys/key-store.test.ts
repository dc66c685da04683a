import { Low, Memory } from 'lowdb';
import { describe, expect, it } from 'vitest';
import { ConfigDataSchema, type ConfigData } from '../model/index.js';
import { lowConfigStore } from '../store/config-file.js';
import { ConfigKeyStore } from './key-store.js';
import { createKey, sha256 } from './keys.js';

describe('the key store on the configuration', () => {
  it('finds keys by hash, stops finding a revoked one at once, and never stores a secret key', async () => {
    const config = await lowConfigStore(new Low<ConfigData>(new Memory(), ConfigDataSchema.parse({})));
    const env = createKey('secret', 'test').key;
    const keys = new ConfigKeyStore(config, [env]);
    const pk = createKey('public', 'live', { origins: ['https://shop.example'] });
    const sk = createKey('secret', 'live');
    await keys.add(pk.stored, sk.stored);
    expect(await keys.find(sha256(pk.key))).toMatchObject({ kind: 'public', origins: ['https://shop.example'] });
    expect(await keys.find(sha256(sk.key))).toMatchObject({ kind: 'secret', mode: 'live' });
    expect(await keys.find(sha256(env))).toMatchObject({ kind: 'secret', mode: 'test' });
    expect((await keys.list()).map((k) => k.id)).toEqual([pk.stored.id, sk.stored.id]); // env keys are not listed
    expect(JSON.stringify(config.get())).not.toContain(sk.key);

    expect(await keys.revoke(sk.stored.id, '2026-01-01T00:00:00.000Z')).toMatchObject({
      revoked_at: expect.any(String),
    });
    expect(await keys.find(sha256(sk.key))).toBeUndefined();
    expect(await keys.revoke(sk.stored.id, '2026-01-02T00:00:00.000Z')).toBeUndefined(); // already revoked
  });
});
