import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../test-support/server.js';

// Popular articles (issue 31): what customers read (the widget's article view, the help centre's pages)
// and answer "Was this helpful?" with ranks the knowledge base's home, on both stores. The rule: views
// in the last 90 days, plus 10 for each "Yes" and minus 10 for each "No"; ties newest first. A view
// counts once per address and article in 10 minutes, so the readers here come from several addresses
// (the server trusts X-Forwarded-For, as behind a proxy). A ranking is counted at most once a minute
// (a vote counts at once), so the clock moves a minute before each look.

let now = Date.parse('2026-03-02T09:00:00.000Z');
let reader = 0;
/** A new client address each call (the proxy's X-Forwarded-For). */
const nextAddress = () => ({ 'X-Forwarded-For': `198.51.100.${++reader}` });

let s: TestServer;
const ids: Record<string, string> = {};

const save = async (key: string, title: string) => {
  now += 1000; // each article newer than the one before
  const res = await s.call('POST', '/admin?r=kb', { json: { title, body: `About ${title}.`, published: true } });
  expect(res.status).toBe(201);
  ids[key] = res.body.article.id;
};
/** The ranking, a minute on by default: a ranking is reused for a minute, so new views wait for it. */
const popular = async (key = s.keys.pk, { wait = true } = {}) => {
  if (wait) now += 61_000;
  const res = await s.call('GET', '/kb?sort=popular', { key });
  expect(res.status, res.text).toBe(200);
  return (res.body.data as { id: string }[]).map((a) => a.id);
};
const read = async (key: string, times = 1, from: () => Record<string, string> = nextAddress) => {
  for (let i = 0; i < times; i++)
    expect((await s.call('GET', `/kb?id=${ids[key]}`, { key: s.keys.pk, headers: from() })).status).toBe(200);
};
const vote = async (key: string, helpful: boolean) =>
  expect(
    (await s.call('POST', '/kb/feedback', { key: s.keys.pk, json: { article_id: ids[key], helpful } })).status,
  ).toBe(200);

beforeAll(async () => {
  s = await startServer({ clock: () => new Date(now), env: { TICKETING_TRUST_PROXY: 'on' } });
  for (const [key, title] of [
    ['a', 'Alpha'],
    ['b', 'Bravo'],
    ['c', 'Charlie'],
    ['d', 'Delta'],
  ])
    await save(key!, title!);
});
afterAll(() => s.close());

describe('popular articles', () => {
  it('ranks by views and votes, newest first among equals, and keeps sort=newest as it was', async () => {
    const { a, b, c, d } = ids as Record<'a' | 'b' | 'c' | 'd', string>;
    expect(await popular()).toEqual([d, c, b, a]);
    await read('a', 2);
    expect(await popular()).toEqual([a, d, c, b]);
    await vote('b', true); // 10
    expect(await popular()).toEqual([b, a, d, c]);
    await vote('a', false);
    await vote('a', false); // 2 - 20
    await read('c'); // 1
    expect(await popular()).toEqual([b, c, d, a]);
    // Support reading an article is no customer's view.
    for (let i = 0; i < 3; i++) expect((await s.call('GET', `/kb?id=${d}`)).status).toBe(200);
    expect(await popular()).toEqual([b, c, d, a]);
    expect(await popular(s.keys.sk)).toEqual([b, c, d, a]);
    const newest = await s.call('GET', '/kb', { key: s.keys.pk });
    expect(newest.body.data.map((x: { id: string }) => x.id)).toEqual([d, c, b, a]);
    expect((await s.call('GET', '/kb?sort=best', { key: s.keys.pk })).body.error).toMatchObject({
      code: 'validation_failed',
      param: 'sort',
    });
    // The report counts votes only: an article that was only read is not in it.
    const report = await s.call('GET', '/reports');
    expect(
      report.body.kb_feedback.articles.map((x: { article_id: string; helpful: number; not_helpful: number }) => [
        x.article_id,
        x.helpful,
        x.not_helpful,
      ]),
    ).toEqual([
      [a, 0, 2],
      [b, 1, 0],
    ]);
  });

  it('counts the help centre’s pages as views and lists the popular ones on its home', async () => {
    const { b, c, d } = ids as Record<'b' | 'c' | 'd', string>;
    for (let i = 0; i < 12; i++) {
      const page = await s.call('GET', `${s.url}/help/en/delta`, { key: null, headers: nextAddress() });
      expect(page.status).toBe(200);
    }
    expect((await popular()).slice(0, 3)).toEqual([d, b, c]);
    const home = await s.call('GET', `${s.url}/help/en/`, { key: null });
    const section = /<section[^>]*aria-labelledby="popular"[^>]*>([\s\S]*?)<\/section>/.exec(home.text)?.[1] ?? '';
    expect(section).toContain('<h2 id="popular">Popular articles</h2>');
    // Read or voted up only: Alpha, voted down, is not among them.
    expect([...section.matchAll(/<a href="\/help\/en\/([^"]+)"/g)].map((m) => m[1])).toEqual([
      'delta',
      'bravo',
      'charlie',
    ]);
  });

  it('counts an address reading an article once in 10 minutes, in the widget and the help centre alike', async () => {
    const { a, b, c, d } = ids as Record<'a' | 'b' | 'c' | 'd', string>;
    // Now Delta 12, Bravo 10, Charlie 1, Alpha -18.
    expect(await popular()).toEqual([d, b, c, a]);
    const one = () => ({ 'X-Forwarded-For': '203.0.113.9' });
    // Thirty reads in the widget and thirty pages from one address: one view (Charlie 2).
    await read('c', 30, one);
    for (let i = 0; i < 30; i++)
      expect((await s.call('GET', `${s.url}/help/en/charlie`, { key: null, headers: one() })).status).toBe(200);
    expect(await popular()).toEqual([d, b, c, a]);
    // Ten minutes on, the same address counts again (3), and seven others once each: 10, as Bravo,
    // and Charlie, the newer, goes first.
    now += 10 * 60_000 + 1000;
    await read('c', 3, one);
    await read('c', 7);
    expect(await popular()).toEqual([d, c, b, a]);
  });

  it('counts the ranking at most once a minute, and again at once after a vote', async () => {
    const { a, b, c, d } = ids as Record<'a' | 'b' | 'c' | 'd', string>;
    // Delta 12, Charlie 10, Bravo 10, Alpha -18.
    expect(await popular()).toEqual([d, c, b, a]);
    await read('b', 3); // 13: first, once the minute is over
    expect(await popular(s.keys.pk, { wait: false })).toEqual([d, c, b, a]);
    now += 30_000;
    expect(await popular(s.keys.pk, { wait: false })).toEqual([d, c, b, a]);
    now += 31_000;
    expect(await popular(s.keys.pk, { wait: false })).toEqual([b, d, c, a]);
    // A vote shows at once, in the widget and on the help centre's home alike.
    await read('d', 2); // 14, counted at the next minute
    await vote('c', true); // 20
    expect(await popular(s.keys.pk, { wait: false })).toEqual([c, d, b, a]);
    const home = await s.call('GET', `${s.url}/help/en/`, { key: null });
    const section = /<section[^>]*aria-labelledby="popular"[^>]*>([\s\S]*?)<\/section>/.exec(home.text)?.[1] ?? '';
    expect([...section.matchAll(/<a href="\/help\/en\/([^"]+)"/g)].map((m) => m[1])).toEqual([
      'charlie',
      'delta',
      'bravo',
    ]);
  });
});
