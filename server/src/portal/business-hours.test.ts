import { describe, expect, it } from 'vitest';
import { BusinessHoursSchema } from '../admin/schema.js';
import { openState } from './business-hours.js';

const hours = (over: object) => BusinessHoursSchema.parse(over);
const weekdays = {
  mon: [{ open: '09:00', close: '17:00' }],
  tue: [{ open: '09:00', close: '17:00' }],
  wed: [
    { open: '09:00', close: '12:00' },
    { open: '13:00', close: '17:00' },
  ],
  thu: [{ open: '09:00', close: '17:00' }],
  fri: [{ open: '09:00', close: '17:00' }],
};

describe('openState', () => {
  it('counts as always open when no hours are set', () => {
    expect(openState(hours({}), new Date('2026-11-22T03:00:00Z'))).toEqual({ open_now: true, next_open_at: null });
  });

  it('works in the configured time zone', () => {
    const berlin = hours({ timezone: 'Europe/Berlin', days: weekdays });
    // Monday 2026-11-23 08:30 UTC = 09:30 in Berlin (CET, UTC+1)
    expect(openState(berlin, new Date('2026-11-23T08:30:00Z')).open_now).toBe(true);
    // Monday 07:59 UTC = 08:59 Berlin: closed, opens at 08:00 UTC
    expect(openState(berlin, new Date('2026-11-23T07:59:00Z'))).toEqual({
      open_now: false,
      next_open_at: '2026-11-23T08:00:00.000Z',
    });
    // Wednesday lunch break 12:30 Berlin
    expect(openState(berlin, new Date('2026-11-25T11:30:00Z'))).toEqual({
      open_now: false,
      next_open_at: '2026-11-25T12:00:00.000Z',
    });
    // Friday 17:00 Berlin: closed until Monday 09:00 Berlin
    expect(openState(berlin, new Date('2026-11-27T16:00:00Z'))).toEqual({
      open_now: false,
      next_open_at: '2026-11-30T08:00:00.000Z',
    });
  });

  it('skips holidays', () => {
    const h = hours({ timezone: 'America/New_York', days: weekdays, holidays: ['2026-11-26'] });
    // Thursday 2026-11-26 (Thanksgiving) 10:00 New York = 15:00 UTC
    expect(openState(h, new Date('2026-11-26T15:00:00Z'))).toEqual({
      open_now: false,
      next_open_at: '2026-11-27T14:00:00.000Z',
    });
  });

  it('follows daylight saving time', () => {
    const h = hours({ timezone: 'Europe/Berlin', days: { mon: [{ open: '09:00', close: '17:00' }] } });
    // Sunday 2026-03-29 is the switch to CEST (UTC+2): Monday 09:00 is 07:00 UTC.
    expect(openState(h, new Date('2026-03-28T12:00:00Z')).next_open_at).toBe('2026-03-30T07:00:00.000Z');
    // In winter it is 08:00 UTC.
    expect(openState(h, new Date('2026-11-28T12:00:00Z')).next_open_at).toBe('2026-11-30T08:00:00.000Z');
  });

  it('says nothing about a next opening when every day in the next month is a holiday', () => {
    const all = Array.from({ length: 40 }, (_, i) => new Date(Date.UTC(2026, 10, 22 + i)).toISOString().slice(0, 10));
    expect(openState(hours({ days: weekdays, holidays: all }), new Date('2026-11-22T03:00:00Z'))).toEqual({
      open_now: false,
      next_open_at: null,
    });
  });
});
