import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.js';
import type { OutboxEntry, WebhookLogEntry } from '../model/index.js';
import { createTicket, startServer, type TestKeys, type TestServer } from '../test-support/server.js';

const DAY = 24 * 3_600_000;
let now = Date.parse('2026-01-10T09:00:00.000Z');
let s: TestServer;
beforeAll(async () => {
  s = await startServer({ clock: () => new Date(now), env: { TICKETING_SCHEDULER_SECONDS: '0' } });
});
afterAll(() => s.close());

const at = () => new Date(now).toISOString();
const webhookAttempt = (n: number): WebhookLogEntry => ({
  id: `whl_retention${n}`,
  at: at(),
  event: 'ticket.created',
  event_id: `evt_retention${n}`,
  url: 'https://hooks.example/ticketing',
  status_code: 500,
  ok: false,
  attempt: 1,
  duration_ms: 12,
  error: null,
});
const settled = (n: number): OutboxEntry => ({
  id: `evt_settled${n}`,
  kind: 'mail',
  state: 'failed',
  mode: 'live',
  to: ['ada@example.com'],
  subject: 'Your ticket',
  url: null,
  event: null,
  attempts: 9,
  next_attempt_at: null,
  last_error: 'refused',
  created_at: at(),
  at: at(),
});

/** A support write on a ticket: one audit entry at the clock's time. */
async function audited(ticketId: string, status: string) {
  expect((await s.call('POST', '/status', { json: { ticket_id: ticketId, status } })).status).toBe(200);
}

const ids = async (r: 'audit' | 'webhook_log' | 'outbox') =>
  ((await s.call('GET', `/admin?r=${r}&limit=500`)).body[r] as { id: string; at: string }[]).map((e) => e.at);

describe('log retention (issue 33)', () => {
  it('has defaults: audit a year, webhook attempts 30 days, settled deliveries 90 days', () => {
    expect(loadConfig({}).retentionDays).toEqual({ audit: 365, webhookLog: 30, outboxLog: 90 });
    expect(loadConfig({ TICKETING_RETENTION_AUDIT_DAYS: '0' }).retentionDays.audit).toBe(0);
  });

  it('removes entries past their retention from each log, keeps the rest, and the logs take entries after', async () => {
    const { retention, webhookLog } = s.running.deps;
    const t = await createTicket(s);
    const jan = at();
    await audited(t.id, 'pending');
    await webhookLog.append(webhookAttempt(1));
    await retention.logs.outboxLog.append(settled(1));

    now += 40 * DAY; // past the webhook log's 30 days only
    const feb = at();
    await audited(t.id, 'open');
    await webhookLog.append(webhookAttempt(2));
    await retention.logs.outboxLog.append(settled(2));
    await s.running.scheduler.tick();
    expect(await ids('webhook_log')).toEqual([feb]);
    expect((await ids('outbox')).filter((a) => a === jan || a === feb)).toEqual([feb, jan]);
    expect(await ids('audit')).toEqual(expect.arrayContaining([jan, feb]));

    now += 60 * DAY; // 100 days after the first entries: past the outbox log's 90
    await s.running.scheduler.tick();
    expect((await ids('outbox')).filter((a) => a === jan || a === feb)).toEqual([feb]);

    now += 300 * DAY; // 400 days: the first audit entries are past a year, February's are not
    await s.running.scheduler.tick();
    const audit = await ids('audit');
    expect(audit).not.toContain(jan);
    expect(audit).toContain(feb);
    // The logs go on taking entries, and the audit search (the whole log) agrees.
    await audited(t.id, 'pending');
    const searched = await s.call('GET', `/admin?r=audit&target=${t.id}&limit=500`);
    expect(searched.status).toBe(200);
    expect(searched.body.audit.map((e: { at: string }) => e.at)).toEqual([at(), feb]);
  });
});

describe('article views past the popularity window (issue 31/33)', () => {
  it('are removed, on disk too, while the votes stay for the reports', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'ticketing-kbviews-'));
    const start = (over: { dataDir: string; keys?: TestKeys }) =>
      startServer({ ...over, clock: () => new Date(now), env: { TICKETING_SCHEDULER_SECONDS: '0' } });
    let v = await start({ dataDir });
    const article = async (title: string) => {
      const res = await v.call('POST', '/admin?r=kb', { json: { title, body: `About ${title}.`, published: true } });
      expect(res.status).toBe(201);
      return res.body.article.id as string;
    };
    const [old, recent] = [await article('Old news'), await article('Recent news')];
    // Three views of the first (one per 10 minutes from this address) and a "Yes".
    for (let i = 0; i < 3; i++) {
      expect((await v.call('GET', `/kb?id=${old}`, { key: v.keys.pk })).status).toBe(200);
      now += 11 * 60_000;
    }
    const vote = await v.call('POST', '/kb/feedback', { key: v.keys.pk, json: { article_id: old, helpful: true } });
    expect(vote.status).toBe(200);
    const voteDays = `from=${new Date(now - DAY).toISOString().slice(0, 10)}&to=${new Date(now + DAY).toISOString().slice(0, 10)}`;
    now += 60 * DAY;
    for (let i = 0; i < 2; i++) {
      expect((await v.call('GET', `/kb?id=${recent}`, { key: v.keys.pk })).status).toBe(200);
      now += 11 * 60_000;
    }
    const all = () => v.running.deps.kbFeedback.tally('live', 0, now + 1);
    expect(Object.fromEntries(await all())).toEqual({
      [old]: { helpful: 1, not_helpful: 0, views: 3 },
      [recent]: { helpful: 0, not_helpful: 0, views: 2 },
    });

    now += 31 * DAY; // the first article's views are 91 days old, the second's 31
    await v.running.scheduler.tick();
    const kept = {
      [old]: { helpful: 1, not_helpful: 0, views: 0 },
      [recent]: { helpful: 0, not_helpful: 0, views: 2 },
    };
    expect(Object.fromEntries(await all())).toEqual(kept);
    // Read again from the store after a restart: gone from the file (or the table), not only from memory.
    await v.close({ keepData: true });
    v = await start({ dataDir, keys: v.keys });
    try {
      expect(Object.fromEntries(await all())).toEqual(kept);
      // The vote is still in the report of its day.
      const report = await v.call('GET', `/reports?${voteDays}`);
      expect(report.status, report.text).toBe(200);
      expect(report.body.kb_feedback.articles).toEqual([
        expect.objectContaining({ article_id: old, helpful: 1, not_helpful: 0 }),
      ]);
      // And the log takes views after.
      expect((await v.call('GET', `/kb?id=${old}`, { key: v.keys.pk })).status).toBe(200);
      expect((await all()).get(old)?.views).toBe(1);
    } finally {
      await v.close();
    }
  });
});
