import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChild } from '../test-support/child-server.js';
import { atFullPasswordCost } from '../test-support/password-cost.js';
import { hashPassword, verifyPassword } from './passwords.js';

// The test run hashes passwords at a low cost (vitest.config.ts sets TICKETING_TEST_PASSWORD_COST);
// production, where nothing sets it, must keep the full one.

const cost = (hash: string) => hash.split('$').slice(0, 4).join('$');

describe('the password hash cost', () => {
  it('is the full one without the test setting, the low one with it, and hashes of either cost verify', async () => {
    expect(process.env.TICKETING_TEST_PASSWORD_COST).toBe('low');
    const full = await atFullPasswordCost(() => hashPassword('correct horse battery'));
    const low = await hashPassword('correct horse battery');
    expect(cost(full)).toBe('scrypt$32768$8$1');
    expect(cost(low)).toBe('scrypt$1024$8$1');
    for (const hash of [full, low]) {
      expect(await verifyPassword('correct horse battery', hash)).toBe(true);
      expect(await verifyPassword('correct horse batterz', hash)).toBe(false);
      await atFullPasswordCost(async () => {
        expect(await verifyPassword('correct horse battery', hash)).toBe(true);
        expect(await verifyPassword('correct horse batterz', hash)).toBe(false);
      });
    }
    // An unknown email still checks a dummy hash and matches nothing, at either cost.
    expect(await verifyPassword('correct horse battery', null)).toBe(false);
    expect(await atFullPasswordCost(() => verifyPassword('correct horse battery', null))).toBe(false);
  });

  // Generous: a server started from the sources (tsx) on a loaded machine takes tens of seconds.
  it('is the full one in a server started as in production', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ticketing-password-cost-'));
    try {
      const child = await startChild({ TICKETING_DATA_DIR: dir }, 90_000);
      try {
        const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as {
          agents: { role: string; password_hash: string }[];
        };
        const admin = config.agents.find((a) => a.role === 'admin')!;
        expect(cost(admin.password_hash)).toBe('scrypt$32768$8$1');
      } finally {
        child.proc.kill('SIGTERM');
        await child.exited;
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
