import { describe, expect, it } from 'vitest';
import { DEFAULT_FILTERS, filtersQuery, parseFilters } from './filters.js';

describe('inbox filters in the URL', () => {
  it('round-trips a bookmarked view through the query string', () => {
    const f = parseFilters({ view: 'mine', status: 'open', tag: 'vip', q: ' refund ', sort: 'due' });
    expect(f).toEqual({ view: 'mine', sort: 'due', status: 'open', tag: 'vip', q: 'refund' });
    expect(parseFilters(Object.fromEntries(new URLSearchParams(filtersQuery(f).slice(1))))).toEqual(f);
  });

  it('falls back to the default inbox for unknown views and sorts, and leaves defaults out of the URL', () => {
    expect(parseFilters({ view: '<script>', sort: 'nope' })).toEqual(DEFAULT_FILTERS);
    expect(filtersQuery(DEFAULT_FILTERS)).toBe('');
  });
});
