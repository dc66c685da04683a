import { afterEach, describe, expect, it } from 'vitest';
import { signedInAgent, type SignedInAgent } from '../test-support/agents.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';
import { openSse, type SseClient } from '../test-support/sse.js';

// An open /v1/events stream ends within seconds of its credential ending, whatever ended it, and no
// new ticket's data reaches it afterwards; the reconnect gets 401. Streams per credential and per
// address are capped.

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

// The periodic re-check every second instead of the default 5 s: a stream whose credential ended
// elsewhere (another instance, the database) ends at the next check, and four tests wait for one.
async function server(env: Record<string, string> = {}) {
  const s = await startServer({ env: { TICKETING_EVENTS_RECHECK_SECONDS: '1', ...env } });
  cleanup.push(() => s.close());
  return s;
}

async function listen(s: TestServer, headers: Record<string, string>) {
  const c = await openSse(`${s.base}/events`, headers);
  cleanup.push(() => c.close());
  expect(c.status).toBe(200);
  await c.next((e) => e.comment === 'connected');
  return c;
}

const asAgent = (a: SignedInAgent) => ({ Cookie: a.cookie });

/** Milliseconds until the stream ends, or Infinity when it is still open after `ms`. */
async function endsWithin(c: SseClient, ms: number) {
  const started = Date.now();
  const ended = await Promise.race([
    c.ended.then(() => true),
    new Promise<false>((ok) => setTimeout(() => ok(false), ms)),
  ]);
  return ended ? Date.now() - started : Infinity;
}

/**
 * A stream that carries a new ticket, then the credential ends: the stream ends within a few seconds
 * (at once on this instance, else at the periodic re-check), a ticket made afterwards never reaches it, and a reconnect
 * with the same credential is refused.
 */
async function endsWithCredential(s: TestServer, headers: Record<string, string>, end: () => Promise<void>) {
  const c = await listen(s, headers);
  const before = await createTicket(s, { name: 'Before Person', email: 'before@example.com' });
  await c.next((e) => e.event === 'ticket.created' && e.data.ticket.id === before.id);
  await end();
  const took = await endsWithin(c, 15_000);
  expect(took, 'the stream is still open 15 s after its credential ended').toBeLessThan(15_000);
  const after = await createTicket(s, { name: 'After Person', email: 'after@example.com', subject: 'After subject' });
  await new Promise((ok) => setTimeout(ok, 300));
  const seen = JSON.stringify(c.events);
  for (const secret of [after.id, 'After Person', 'after@example.com', 'After subject'])
    expect(seen).not.toContain(secret);
  const again = await openSse(`${s.base}/events`, headers);
  cleanup.push(() => again.close());
  expect(again.status).toBe(401);
  return took;
}

describe('an open /v1/events stream ends with its credential', () => {
  it('when an admin deactivates the agent', async () => {
    const s = await server();
    const agent = await signedInAgent(s);
    await endsWithCredential(s, asAgent(agent), async () => {
      const res = await s.call('POST', '/admin?r=agents', {
        json: { id: agent.agent.id, name: agent.agent.name, email: agent.agent.email, active: false },
      });
      expect(res.status, res.text).toBe(200);
    });
  });

  it('at once when an admin on this instance deactivates the agent, without waiting for the periodic check', async () => {
    const s = await server({ TICKETING_EVENTS_RECHECK_SECONDS: '60' });
    const agent = await signedInAgent(s);
    const c = await listen(s, asAgent(agent));
    const res = await s.call('POST', '/admin?r=agents', {
      json: { id: agent.agent.id, name: agent.agent.name, email: agent.agent.email, active: false },
    });
    expect(res.status, res.text).toBe(200);
    expect(await endsWithin(c, 5000)).toBeLessThan(5000);
  });

  it('when the agent signs out (in another tab)', async () => {
    const s = await server();
    const agent = await signedInAgent(s);
    await endsWithCredential(s, asAgent(agent), async () => {
      expect((await agent.call('DELETE', '/session')).status).toBe(200);
    });
  });

  it('when the agent’s password is changed', async () => {
    const s = await server();
    const agent = await signedInAgent(s);
    await endsWithCredential(s, asAgent(agent), async () => {
      const res = await s.call('POST', '/admin?r=agents', {
        json: { id: agent.agent.id, name: agent.agent.name, email: agent.agent.email, password: 'a new one 1234' },
      });
      expect(res.status, res.text).toBe(200);
    });
  });

  it('when its secret key is revoked, and another key’s stream goes on', async () => {
    const s = await server();
    const made = await s.call('POST', '/admin?r=keys', { json: { kind: 'secret', mode: 'live', label: 'script' } });
    expect(made.status, made.text).toBe(201);
    const other = await listen(s, { Authorization: `Bearer ${s.keys.sk}` });
    const took = await endsWithCredential(s, { Authorization: `Bearer ${made.body.key as string}` }, async () => {
      expect((await s.call('DELETE', `/admin?r=keys&id=${made.body.api_key.id as string}`)).status).toBe(200);
    });
    expect(took).toBeLessThan(15_000);
    // The stream of a key that still holds carries on.
    const later = await createTicket(s, { subject: 'Still delivered' });
    await other.next((e) => e.event === 'ticket.created' && e.data.ticket.id === later.id);
  });

  it('and goes on while it holds, however often it is checked', async () => {
    const s = await server({ TICKETING_EVENTS_RECHECK_SECONDS: '0.2' });
    const agent = await signedInAgent(s);
    const c = await listen(s, asAgent(agent));
    await new Promise((ok) => setTimeout(ok, 1500)); // several re-checks
    expect(c.events.filter((e) => e.comment === 'connected')).toHaveLength(1);
    const t = await createTicket(s);
    await c.next((e) => e.event === 'ticket.created' && e.data.ticket.id === t.id);
  });
});

describe('open /v1/events streams are capped', () => {
  it('per credential and per address: 429 rate_limited with Retry-After beyond, others unaffected', async () => {
    const s = await server({
      TICKETING_EVENTS_PER_CREDENTIAL: '3',
      TICKETING_EVENTS_PER_ADDRESS: '5',
      TICKETING_TRUST_PROXY: 'on',
    });
    const from = (ip: string, key: string) => ({ Authorization: `Bearer ${key}`, 'X-Forwarded-For': ip });
    const here = '198.51.100.7';
    const held = [];
    for (let i = 0; i < 3; i++) held.push(await listen(s, from(here, s.keys.sk)));
    const refused = await openSse(`${s.base}/events`, from(here, s.keys.sk));
    cleanup.push(() => refused.close());
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another credential from the same address: its own count.
    const agent = await signedInAgent(s);
    held.push(await listen(s, { ...asAgent(agent), 'X-Forwarded-For': here }));
    held.push(await listen(s, { ...asAgent(agent), 'X-Forwarded-For': here }));
    // Now the address holds 5: a sixth is refused whatever its credential.
    const third = await signedInAgent(s);
    const byAddress = await fetch(`${s.base}/events`, { headers: { ...asAgent(third), 'X-Forwarded-For': here } });
    expect(byAddress.status).toBe(429);
    const body = (await byAddress.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('rate_limited');
    expect(byAddress.headers.get('retry-after')).toMatch(/^\d+$/);
    // Another address is unaffected, as is the same credential from there.
    await listen(s, { ...asAgent(third), 'X-Forwarded-For': '203.0.113.9' });
    // Closing one frees its place.
    held[0]!.close();
    await expect.poll(() => s.running.deps.live.listening, { timeout: 5000 }).toBe(5);
    await listen(s, from(here, s.keys.sk));
  });
});
