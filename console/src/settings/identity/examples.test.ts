import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLES, SNIPPET } from './examples.js';

// The console shows the same recipe as the README, line for line, so neither can drift from the other.
// (Tests run in console/; the browser test checks the signature against the server's HMAC.)
const readme = readFileSync(join(process.cwd(), '..', 'README.md'), 'utf8');

describe('the identity examples', () => {
  it('are the README’s, each one', () => {
    for (const [, code] of EXAMPLES) expect(readme).toContain(code);
    expect(readme).toContain(SNIPPET);
  });
});
