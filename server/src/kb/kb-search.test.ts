import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../test-support/server.js';

let s: TestServer;
const ids: Record<string, string> = {};

const save = async (key: string, title: string, body: string, published = true) => {
  const res = await s.call('POST', '/admin?r=kb', {
    json: { ...(ids[key] ? { id: ids[key] } : {}), title, body, published },
  });
  expect(res.status).toBeLessThan(300);
  ids[key] = res.body.article.id;
};

type Item = { id: string; title: string; excerpt: string; highlight: { title: number[][]; excerpt: number[][] } };
const search = async (q: string, lang?: string) => {
  const res = await s.call('GET', `/kb?q=${encodeURIComponent(q)}`, {
    key: s.keys.pk,
    headers: lang ? { 'Accept-Language': lang } : {},
  });
  expect(res.status).toBe(200);
  return res.body.data as Item[];
};
const idsOf = (items: Item[]) => items.map((a) => a.id);
const marked = (text: string, ranges: number[][]) => ranges.map(([a, b]) => text.slice(a, b));

beforeAll(async () => {
  s = await startServer();
  await save('password', 'Password reset', 'Forgot your password? Use the link on the sign-in page.');
  await save('delivery', 'Delivery times', 'Parcels arrive within three working days.');
  await save('lieferung', 'Lieferung ins Ausland', 'Wir liefern in alle Länder der EU.');
  await save('secret', 'Secret discount codes', 'Internal: the password for staff discounts.', false);
  await save(
    'long',
    'Account settings',
    `${'You can change many things about your account here. '.repeat(8)}Two-factor authentication is optional.`,
  );
});
afterAll(() => s.close());

describe('/kb?q= search', () => {
  it('forgives a typo', async () => {
    const found = await search('pasword');
    expect(idsOf(found)[0]).toBe(ids.password);
    expect(marked(found[0]!.title, found[0]!.highlight.title)).toEqual(['Password']);
  });

  it('matches a word being typed as a prefix', async () => {
    const found = await search('deliv');
    expect(idsOf(found)).toEqual([ids.delivery]);
    expect(found[0]!.highlight.title).toEqual([[0, 8]]);
  });

  it('matches another form of a German word for a German customer only', async () => {
    const found = await search('Land', 'de-DE,de;q=0.9');
    expect(idsOf(found)).toEqual([ids.lieferung]);
    expect(marked(found[0]!.excerpt, found[0]!.highlight.excerpt)).toEqual(['Länder']);
    // Without German stemming, "land" is no prefix of "länder", and too short for a typo.
    expect(idsOf(await search('Land', 'fr'))).toEqual([]);
  });

  it('matches another form of an English word for an English customer', async () => {
    const found = await search('parcel', 'en');
    expect(idsOf(found)).toEqual([ids.delivery]);
    expect(marked(found[0]!.excerpt, found[0]!.highlight.excerpt)).toEqual(['Parcels']);
  });

  it('ranks a title match above a body match', async () => {
    await save('mentions', 'Sign-in problems', 'If the password is refused, see the password reset article. Password.');
    expect(idsOf(await search('password reset')).slice(0, 2)).toEqual([ids.password, ids.mentions]);
  });

  it('never finds an unpublished article for a customer, but does for support', async () => {
    expect(idsOf(await search('discount'))).toEqual([]);
    expect(idsOf(await search('password'))).not.toContain(ids.secret);
    const support = await s.call('GET', '/kb?q=discount');
    expect(support.body.data.map((a: Item) => a.id)).toEqual([ids.secret]);
  });

  it('sees a change at once: a published, renamed and unpublished article', async () => {
    await save('refund', 'Refunds', 'Money back within 14 days.');
    expect(idsOf(await search('refnds'))).toEqual([ids.refund]);
    await save('refund', 'Returns', 'Money back within 14 days.');
    expect(idsOf(await search('refunds'))).toEqual([]);
    await save('refund', 'Returns', 'Money back within 14 days.', false);
    expect(idsOf(await search('money'))).toEqual([]);
  });

  it('shows the body around a match far from its start, with the match marked', async () => {
    const [hit] = await search('authentication');
    expect(hit!.id).toBe(ids.long);
    expect(hit!.excerpt.startsWith('…')).toBe(true);
    expect(marked(hit!.excerpt, hit!.highlight.excerpt)).toEqual(['authentication']);
    expect(hit!.excerpt.length).toBeLessThanOrEqual(160);
  });

  it('answers nothing for words that match nothing, and one-letter words', async () => {
    expect(await search('teapot')).toEqual([]);
    expect(await search('a')).toEqual([]);
  });

  it('pages with limit and offset, and refuses bad ones', async () => {
    const all = idsOf(await search('password'));
    expect(all.length).toBeGreaterThan(1);
    const page = await s.call('GET', '/kb?q=password&limit=1&offset=1', { key: s.keys.pk });
    expect(page.body.data.map((a: Item) => a.id)).toEqual([all[1]]);
    for (const bad of ['limit=0', 'limit=101', 'limit=x', 'offset=-1']) {
      const res = await s.call('GET', `/kb?q=password&${bad}`, { key: s.keys.pk });
      expect(res.status, bad).toBe(400);
      expect(res.body.error.param, bad).toBe(bad.split('=')[0]);
    }
  });

  it('says the answer depends on the language', async () => {
    const res = await s.call('GET', '/kb?q=password', { key: s.keys.pk });
    expect(res.headers.get('vary')).toMatch(/Accept-Language/i);
  });
});
