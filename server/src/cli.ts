#!/usr/bin/env node
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config/config.js';
import { createKey, type KeyKind, type KeyMode } from './keys/keys.js';
import { openConfigFile } from './store/config-file.js';
import { makeDir } from './store/durable-write.js';
import { acquireLock, LockError } from './store/lock.js';
import { StartupError } from './store/startup-error.js';
import { serve } from './serve.js';

const USAGE = `Usage:
  ticketing start                                   start the server (same as node dist/main.js)
  ticketing keys list                               list keys (secret keys by prefix only)
  ticketing keys create [--public|--secret] [--test] [--origins https://a.example,https://b.example] [--label TEXT]
  ticketing keys revoke <key id or prefix>

The data directory is TICKETING_DATA_DIR (default ./data). Key commands need the server stopped,
because one process owns a data directory at a time.`;

async function keys(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      public: { type: 'boolean' },
      secret: { type: 'boolean' },
      test: { type: 'boolean' },
      origins: { type: 'string' },
      label: { type: 'string' },
    },
  });
  const [command, target] = positionals;
  const config = loadConfig();
  const dataDir = resolve(config.dataDir);
  await makeDir(dataDir);
  const lock = acquireLock(dataDir);
  try {
    const store = await openConfigFile(dataDir);
    if (command === 'list') {
      const rows = store.get().keys;
      if (!rows.length) console.log('No keys yet. Create one with: ticketing keys create --public');
      for (const k of rows) {
        const shown = k.kind === 'public' ? k.key : `${k.prefix}… (secret, stored as a hash)`;
        const state = k.revoked_at ? `revoked ${k.revoked_at}` : 'active';
        const origins = k.origins.length ? ` origins=${k.origins.join(',')}` : '';
        console.log(`${k.id}  ${k.kind} ${k.mode}  ${state}  ${shown}${origins}${k.label ? `  "${k.label}"` : ''}`);
      }
    } else if (command === 'create') {
      const kind: KeyKind = values.secret ? 'secret' : 'public';
      const mode: KeyMode = values.test ? 'test' : 'live';
      const origins = (values.origins ?? '')
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean);
      for (const o of origins) {
        if (!/^https?:\/\/[^/\s]+$/.test(o))
          throw new ConfigError(`--origins: "${o}" is not an origin like https://shop.example`);
      }
      const { key, stored } = createKey(kind, mode, { origins, label: values.label ?? null });
      await store.update((d) => void d.keys.push(stored));
      console.log(key);
      if (kind === 'secret') console.error('This secret key is shown once. It is stored only as a hash.');
    } else if (command === 'revoke') {
      if (!target) throw new ConfigError('keys revoke needs a key id or prefix');
      const matches = store
        .get()
        .keys.filter((k) => !k.revoked_at && (k.id === target || k.prefix === target || k.key === target));
      if (matches.length !== 1)
        throw new ConfigError(
          matches.length
            ? `"${target}" matches ${matches.length} keys; use the key id`
            : `No active key matches "${target}"`,
        );
      const at = new Date().toISOString();
      await store.update((d) => {
        for (const k of d.keys) if (k.id === matches[0]!.id) k.revoked_at = at;
      });
      console.log(`revoked ${matches[0]!.id} (${matches[0]!.prefix}…)`);
    } else {
      console.error(USAGE);
      process.exitCode = 2;
    }
  } finally {
    lock.release();
  }
}

async function run() {
  const [command, ...rest] = process.argv.slice(2);
  try {
    if (!command || command === 'start') return await serve();
    if (command === 'keys') return await keys(rest);
    console.error(USAGE);
    process.exitCode = command === 'help' || command === '--help' ? 0 : 2;
  } catch (err) {
    if (err instanceof ConfigError || err instanceof LockError || err instanceof StartupError) {
      console.error(err.message);
      process.exitCode = 1;
    } else {
      throw err;
    }
  }
}

void run();
