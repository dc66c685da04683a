import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket, makeKeys, startServer, type TestServer } from '@ticketing/server/test-support';
import { CHROMIUM, CHROMIUM_ARGS } from '../../demo-site/tests/chromium.js';
import { makeAgent, signIn, SHOTS, type TestAgent } from './harness.js';

// These tests stop and start the server under the console, so they run their own (not startStack's).
let dataDir: string;
const keys = makeKeys();
let api: TestServer;
let port: string;
let browser: Browser;
let agent: TestAgent;
const start = (env: Record<string, string> = {}) =>
  startServer({ dataDir, keys, env: { TICKETING_SCHEDULER_SECONDS: '0', ...env } });

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'ticketing-console-reconnect-'));
  api = await start();
  port = new URL(api.url).port;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  agent = await makeAgent({ api, browser, close: async () => {} });
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const note = (page: Page) => page.locator('header .live-note');
const EVENTS = '**/v1/events*';

async function openSignedIn(path: string) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // Each request for the stream, with the Last-Event-ID it resumes from.
  const streams: (string | undefined)[] = [];
  page.on('request', (r) => {
    // allHeaders: the headers as sent (Last-Event-ID is added below the page).
    if (new URL(r.url()).pathname === '/v1/events') void r.allHeaders().then((h) => streams.push(h['last-event-id']));
  });
  await page.goto(`${api.url}${path}`);
  await signIn(page, agent);
  await page.getByTitle('Live updates on').waitFor();
  return { context, page, errors, streams };
}

describe('the live stream comes back', () => {
  it('after its connections are cut: "Reconnecting…" while away, then it resumes by Last-Event-ID with what it missed', async () => {
    const first = await createTicket(api, { subject: 'Before the cut', email: 'cut@example.com' });
    const { context, page, errors, streams } = await openSignedIn(`/console/tickets/${first.id}`);
    await page.getByRole('heading', { name: 'Before the cut' }).waitFor();
    // One event through the stream, so it has an id to resume from.
    await createTicket(api, { subject: 'Heard live' });
    await page.getByText('Heard live').first().waitFor({ timeout: 2000 });
    expect(await note(page).textContent()).toBe('');

    // The way back stays shut until the test opens it, so what happens meanwhile is surely missed.
    await context.route(EVENTS, (route) => route.abort());
    api.running.server.closeAllConnections();
    await note(page).getByText('Reconnecting…').waitFor({ timeout: 5000 });
    expect(await page.getByTitle('Reconnecting…').count()).toBe(1);
    await page.screenshot({ path: `${SHOTS}reconnect-down.png` });

    await createTicket(api, { subject: 'Came while away', name: 'Away Customer' });
    const reply = await api.call('POST', '/reply', {
      key: api.keys.pk,
      json: { ticket_id: first.id, email: 'cut@example.com', message: 'Written during the cut' },
    });
    expect(reply.status).toBe(201);
    expect(await page.getByText('Came while away').count()).toBe(0);

    const before = streams.length;
    await context.unroute(EVENTS);
    await page.getByText('Came while away').first().waitFor({ timeout: 10_000 });
    await page.locator('.thread').getByText('Written during the cut').waitFor({ timeout: 2000 });
    await page.getByTitle('Live updates on').waitFor();
    expect(await note(page).textContent()).toBe('');
    // Resumed where it left off (the server replays from its ring), not started afresh.
    expect(streams.slice(before).some((id) => /-\d+$/.test(id ?? ''))).toBe(true);

    // And it is live again.
    await createTicket(api, { subject: 'After the cut' });
    await page.getByText('After the cut').first().waitFor({ timeout: 2000 });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('after a server restart on the same port and data: catches up on what happened while the server was down', async () => {
    const t = await createTicket(api, { subject: 'Before the restart', email: 'restart@example.com' });
    const { context, page, errors } = await openSignedIn(`/console/tickets/${t.id}`);
    await page.getByRole('heading', { name: 'Before the restart' }).waitFor();
    const needsReply = page
      .getByRole('navigation', { name: 'Views' })
      .getByRole('link', { name: /^Needs reply/ })
      .locator('.count');
    const waiting = Number(await needsReply.textContent());

    await context.route(EVENTS, (route) => route.abort());
    await api.close({ keepData: true });
    await note(page).getByText('Reconnecting…').waitFor({ timeout: 5000 });

    api = await start({ TICKETING_PORT: port });
    expect(new URL(api.url).port).toBe(port);
    await createTicket(api, { subject: 'Filed during the restart' });
    const reply = await api.call('POST', '/reply', {
      key: api.keys.pk,
      json: { ticket_id: t.id, email: 'restart@example.com', message: 'Did you get this?' },
    });
    expect(reply.status).toBe(201);

    await context.unroute(EVENTS);
    // No event came on this stream before the restart, so no Last-Event-ID can go back: the console
    // reloads on its own (a stale id would have had the new server answer `reset`, to the same end).
    await page.getByText('Filed during the restart').first().waitFor({ timeout: 10_000 });
    await page.locator('.thread').getByText('Did you get this?').waitFor({ timeout: 2000 });
    await expect.poll(() => needsReply.textContent(), { timeout: 2000 }).toBe(String(waiting + 1));
    expect(await note(page).textContent()).toBe('');
    await page.screenshot({ path: `${SHOTS}reconnect-back.png` });

    await createTicket(api, { subject: 'Live after the restart' });
    await page.getByText('Live after the restart').first().waitFor({ timeout: 2000 });
    expect(errors).toEqual([]);
    await context.close();
  });
});
