import { readFileSync } from 'node:fs';

// src/ and dist/ both sit one level below server/, so this path works from either.
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
