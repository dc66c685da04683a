import type { StoredKey } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import type { KeyStore } from '../store/key-store.js';
import { KeyRing } from './keys.js';

/**
 * Keys kept in config.json: a key ring (a map by hash) is rebuilt whenever the configuration changes,
 * so a revoked key stops working at once. TICKETING_KEYS are found too, but never listed or stored.
 */
export class ConfigKeyStore implements KeyStore {
  private ring: KeyRing;

  constructor(
    private readonly config: ConfigStore,
    private readonly envKeys: string[] = [],
  ) {
    this.ring = new KeyRing(config.get().keys, envKeys);
    config.onChange((data) => (this.ring = new KeyRing(data.keys, envKeys)));
  }

  find(hash: string) {
    return Promise.resolve(this.ring.find(hash));
  }

  list() {
    return Promise.resolve(this.config.get().keys);
  }

  async add(...keys: StoredKey[]) {
    await this.config.update((d) => void d.keys.push(...keys));
  }

  async revoke(id: string, at: string) {
    if (!this.config.get().keys.some((k) => k.id === id && !k.revoked_at)) return undefined;
    const next = await this.config.update((d) => {
      for (const k of d.keys) if (k.id === id) k.revoked_at = at;
    });
    return next.keys.find((k) => k.id === id);
  }

  async setOrigins(id: string, origins: string[]) {
    const isIt = (k: StoredKey) => k.id === id && k.kind === 'public' && !k.revoked_at;
    if (!this.config.get().keys.some(isIt)) return undefined;
    const next = await this.config.update((d) => {
      for (const k of d.keys) if (isIt(k)) k.origins = origins;
    });
    return next.keys.find((k) => k.id === id);
  }

  async markUsed(id: string, at: string) {
    if (!this.config.get().keys.some((k) => k.id === id)) return;
    await this.config.update((d) => {
      for (const k of d.keys) if (k.id === id) k.last_used_at = at;
    });
  }
}
