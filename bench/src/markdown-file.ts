import { writeFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';

/** Writes a markdown file as the repository's Prettier settings format it (pnpm test checks the format). */
export async function writeMarkdown(path: string, text: string) {
  writeFileSync(path, await format(text, { ...(await resolveConfig(path)), parser: 'markdown' }));
}
