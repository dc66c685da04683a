import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { CHECKOUT, NOT_COPIED, reachableByOthers, linkedCopy } from './other-user.js';

/**
 * Vitest's global set-up for the tests that run the CLI or the server as another user (nobody, when
 * the tests run as root). Nobody cannot read a checkout in a private folder (mktemp -d, /root: mode
 * 0700), so then those tests run a copy of it in a temp folder everyone may enter: hard links, made
 * in a few seconds, removed after the run. Files are the same, so what runs is the same code.
 */
export default async function setup(project: TestProject) {
  if (process.getuid?.() !== 0 || reachableByOthers(CHECKOUT)) return;
  const dir = await mkdtemp(join(tmpdir(), 'ticketing-checkout-'));
  await chmod(dir, 0o755);
  const copy = join(dir, 'checkout');
  await linkedCopy(CHECKOUT, copy, NOT_COPIED);
  project.provide('checkoutForOthers', copy);
  return () => rm(dir, { recursive: true, force: true });
}
