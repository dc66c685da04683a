import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../test-support/server.js';

// POST /hours/now over HTTP: the business-hours editor's "open now?", on the saved hours and on hours
// not yet saved, at a fixed clock.
let s: TestServer;
// Monday 2026-11-23, 07:30 UTC = 08:30 in Berlin.
const clock = () => new Date('2026-11-23T07:30:00Z');
beforeAll(async () => {
  s = await startServer({ clock, env: { TICKETING_SCHEDULER_SECONDS: '0' } });
});
afterAll(() => s.close());

const nineToFive = { open: '09:00', close: '17:00' };
const berlin = {
  timezone: 'Europe/Berlin',
  days: { mon: [nineToFive], tue: [nineToFive], wed: [nineToFive], thu: [nineToFive], fri: [nineToFive] },
  holidays: ['2026-11-24'],
};

describe('POST /hours/now', () => {
  it('answers always open without hours, then the saved hours: closed now, opening at 09:00 Berlin', async () => {
    const none = await s.call('POST', '/hours/now');
    expect(none.status, none.text).toBe(200);
    expect(none.body).toEqual({ open_now: true, next_open_at: null, timezone: 'UTC', at: '2026-11-23T07:30:00.000Z' });

    expect((await s.call('POST', '/admin?r=business_hours', { json: berlin })).status).toBe(200);
    const saved = await s.call('POST', '/hours/now', { json: {} });
    expect(saved.body).toEqual({
      open_now: false,
      next_open_at: '2026-11-23T08:00:00.000Z',
      timezone: 'Europe/Berlin',
      at: '2026-11-23T07:30:00.000Z',
    });
    // At another moment: Monday 17:00 Berlin is closed, and Tuesday is a holiday, so Wednesday 09:00.
    const evening = await s.call('POST', '/hours/now', { json: { at: '2026-11-23T16:00:00Z' } });
    expect(evening.body).toMatchObject({ open_now: false, next_open_at: '2026-11-25T08:00:00.000Z' });
    const noon = await s.call('POST', '/hours/now', { json: { at: '2026-11-23T11:00:00.000Z' } });
    expect(noon.body).toMatchObject({ open_now: true, next_open_at: null });
  });

  it('tries unsaved hours without storing them, and refuses invalid ones at their field', async () => {
    const before = (await s.call('GET', '/admin?r=business_hours')).body.business_hours;
    const tokyo = { ...berlin, timezone: 'Asia/Tokyo', holidays: [] };
    // 07:30 UTC = 16:30 in Tokyo: open.
    const res = await s.call('POST', '/hours/now', { json: { business_hours: tokyo } });
    expect(res.body).toMatchObject({ open_now: true, timezone: 'Asia/Tokyo' });
    expect((await s.call('GET', '/admin?r=business_hours')).body.business_hours).toEqual(before);

    const bad = await s.call('POST', '/hours/now', {
      json: {
        business_hours: { ...berlin, timezone: 'Nowhere/Town', days: { mon: [{ open: '18:00', close: '09:00' }] } },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    expect(bad.body.error.details.map((d: { param: string }) => d.param)).toEqual(
      expect.arrayContaining(['business_hours.timezone', 'business_hours.days.mon.0.close']),
    );
    // Support only: a public key is refused.
    expect((await s.call('POST', '/hours/now', { key: s.keys.pk })).status).toBe(403);
  });
});
