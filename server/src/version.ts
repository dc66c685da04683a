import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// src/ and dist/ both sit one level below server/, so this path works from either. (Built with path,
// not `new URL(…, import.meta.url)`, which bundlers rewrite as an asset reference.)
export const VERSION: string = (
  JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;
