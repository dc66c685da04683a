import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeStore, startServer, type TestServer } from '../test-support/server.js';
import { DEMO_AGENT_EMAIL } from './demo-agent.js';

// `pnpm demo` prints a console sign-in that works, and the same one on every run of a directory.

let dataDir: string;
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close({ keepData: true });
  if (dataDir) await removeStore(dataDir);
});

/** The email and password the demo printed. */
function printed(s: TestServer) {
  const at = s.logs.findIndex((l) => l.startsWith('Support console:'));
  // At localhost, where browsers allow passkeys (startup/console-address.ts), on the listening port.
  expect(s.logs[at]).toBe(`Support console: ${s.url.replace('127.0.0.1', 'localhost')}/console/`);
  const email = /^ {2}email: {4}(\S+)$/.exec(s.logs[at + 1] ?? '')?.[1];
  const password = /^ {2}password: (\S+)$/.exec(s.logs[at + 2] ?? '')?.[1];
  return { email: email!, password: password! };
}

const signIn = (s: TestServer, json: { email: string; password: string }) =>
  s.call('POST', '/session', { key: null, json });

describe('the demo agent', () => {
  it('is printed with a password that signs in to the console, kept across runs of the directory', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'ticketing-demo-'));
    const first = await startServer({ dataDir, demo: true });
    servers.push(first);
    const agent = printed(first);
    expect(agent.email).toBe(DEMO_AGENT_EMAIL);
    expect(agent.password).toMatch(/^[A-Za-z0-9]{20}$/);
    const res = await signIn(first, agent);
    expect(res.status, res.text).toBe(200);
    expect(res.body.agent).toMatchObject({ email: DEMO_AGENT_EMAIL, role: 'admin', must_change_password: false });
    expect((await signIn(first, { ...agent, password: 'not the password' })).status).toBe(401);
    const kept = JSON.parse(await readFile(join(dataDir, 'demo-keys.json'), 'utf8'));
    expect(kept.agent).toEqual(agent);
    await first.close({ keepData: true });
    servers.pop();

    const second = await startServer({ dataDir, demo: true });
    servers.push(second);
    expect(printed(second)).toEqual(agent);
    expect((await signIn(second, agent)).status).toBe(200);
    const agents = async (s: TestServer) =>
      ((await s.call('GET', '/admin?r=agents')).body.agents as { id: string; email: string }[]).filter(
        (a) => a.email === DEMO_AGENT_EMAIL,
      );
    expect(await agents(second)).toHaveLength(1);
  });

  it('gets a new printed password when the kept one no longer signs in (changed in the console)', async () => {
    const before = servers[0]!;
    const { email } = printed(before);
    const { id } = ((await before.call('GET', '/admin?r=agents')).body.agents as { id: string; email: string }[]).find(
      (a) => a.email === email,
    )!;
    const changed = await before.call('POST', '/admin?r=agents', {
      json: { id, name: 'Demo Agent', email, role: 'admin', password: 'chosen by the visitor' },
    });
    expect(changed.status, changed.text).toBe(200);
    await before.close({ keepData: true });
    servers.pop();

    const after = await startServer({ dataDir, demo: true });
    servers.push(after);
    const renewed = printed(after);
    expect(renewed.password).not.toBe('chosen by the visitor');
    expect(renewed.password).not.toBe(printed(before).password);
    expect((await signIn(after, renewed)).status).toBe(200);
    const same = (await after.call('GET', '/admin?r=agents')).body.agents as { id: string; email: string }[];
    expect(same.filter((a) => a.email === email).map((a) => a.id)).toEqual([id]);
  });
});
