import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileDurable } from '../store/durable-write.js';

/**
 * The demo keeps its keys, its console agent's password (and where it runs) in its own data directory,
 * so each run can print them and `pnpm demo:reply` can act as support. A demo convenience only: a real installation never
 * stores a secret key in plain text.
 */
export interface DemoKeys {
  publicKey: string;
  secretKey: string;
  url: string;
  /** The demo agent's console sign-in (absent in directories of older demos). */
  agent?: { email: string; password: string };
}

const demoKeysPath = (dataDir: string) => join(dataDir, 'demo-keys.json');

export function readDemoKeys(dataDir: string): DemoKeys | undefined {
  try {
    return JSON.parse(readFileSync(demoKeysPath(dataDir), 'utf8')) as DemoKeys;
  } catch {
    return undefined;
  }
}

export const writeDemoKeys = (dataDir: string, keys: DemoKeys) =>
  writeFileDurable(demoKeysPath(dataDir), JSON.stringify(keys, null, 2));
