import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../test-support/server.js';

// The public help centre (/help) over real HTTP, on the JSON files and on PostgreSQL alike: what a
// visitor and a search engine see, what a draft never shows, what a vote stores and where it is counted.

let s: TestServer;
const ids: Record<string, string> = {};
let pk: string;

const save = async (key: string, article: Record<string, unknown>) => {
  const res = await s.call('POST', '/admin?r=kb', { json: { ...(ids[key] ? { id: ids[key] } : {}), ...article } });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  ids[key] = res.body.article.id;
};
const page = (path: string, headers: Record<string, string> = {}) =>
  s.call('GET', `${s.url}${path}`, { key: null, headers });

const HOSTILE = '<script>alert(1)</script>';

beforeAll(async () => {
  s = await startServer();
  // The live public key the shop made: the help centre's pages load the widget with it. The one made
  // at the first start is revoked (a revoked key is never used); one for another site only is not used.
  const existing = (await s.call('GET', '/admin?r=keys')).body.keys as { id: string; kind: string; mode: string }[];
  for (const k of existing.filter((k) => k.kind === 'public' && k.mode === 'live'))
    expect((await s.call('DELETE', `/admin?r=keys&id=${k.id}`)).status).toBe(200);
  await s.call('POST', '/admin?r=keys', { json: { kind: 'public', mode: 'live', origins: ['https://shop.example'] } });
  const key = await s.call('POST', '/admin?r=keys', { json: { kind: 'public', mode: 'live' } });
  pk = key.body.key;
  await s.call('POST', '/admin?r=mail', { json: { from_name: 'Teapot Shop', from_address: 'help@teapot.example' } });
  await save('refund', {
    title: 'How do refunds work?',
    body: 'Open your order and choose **Refund**. Use code SPRING_SALE_2026.\n\nSee [the policy](https://shop.example/refunds).',
    category: 'Orders',
    published: true,
    translations: {
      fr: {
        title: 'Comment fonctionnent les remboursements ?',
        body: 'Ouvrez votre commande et choisissez **Rembourser**.',
      },
    },
  });
  await save('shipping', {
    title: 'Shipping times',
    body: 'We ship within two days.',
    category: 'Orders',
    published: true,
  });
  await save('care', { title: 'Caring for your teapot', body: 'Rinse with hot water.', published: true });
  await save('draft', {
    title: 'Secret discount codes',
    body: 'Internal: STAFF50 gives half off.',
    category: 'Hidden drafts',
    published: false,
  });
  await save('hostile', {
    title: `Evil ${HOSTILE} "title"`,
    body:
      `Body ${HOSTILE} <img src=x onerror=alert(2)> [click](javascript:alert(3)) ` +
      '![pic](javascript:alert(4)) [ok](https://ok.example/?a=1&b="2") `<b>code</b>`\n\n```"><script>x</script>\n<i>\n```',
    category: `"><svg onload=alert(5)>`,
    published: true,
  });
});
afterAll(() => s.close());

describe('the help centre', () => {
  it('sends a visitor to their language, and a bare language to its home', async () => {
    const fr = await page('/help', { 'Accept-Language': 'fr-CA,fr;q=0.9,en;q=0.5' });
    expect(fr.status).toBe(302);
    expect(fr.headers.get('location')).toBe('/help/fr/');
    expect(fr.headers.get('vary')).toMatch(/Accept-Language/i);
    expect((await page('/help')).headers.get('location')).toBe('/help/en/');
    const bare = await page('/help/de');
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/help/de/');
    expect((await page('/help/xx/')).status).toBe(404);
  });

  it('lists the published articles by category, never a draft', async () => {
    const home = await page('/help/en/');
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toMatch(/^text\/html/);
    expect(home.text).toMatch(/^<!doctype html>\n<html lang="en" dir="ltr">/);
    expect(home.text).toContain('<h2 id="section-');
    expect(home.text).toContain('>Orders</h2>');
    expect(home.text).toContain('>General</h2>'); // the article without a category
    expect(home.text).toContain('<a href="/help/en/how-do-refunds-work">How do refunds work?</a>');
    expect(home.text).toContain('<a href="/help/en/shipping-times">Shipping times</a>');
    expect(home.text).not.toContain('Secret discount');
    expect(home.text).not.toContain('Hidden drafts');
    expect(home.text).toContain(`<link rel="canonical" href="${s.url}/help/en/">`);
  });

  it('never shows a draft, by its slug, its id, a search or a vote', async () => {
    expect((await page('/help/en/secret-discount-codes')).status).toBe(404);
    const byId = await page(`/help/en/${ids.draft}`);
    expect(byId.status).toBe(404);
    expect(byId.text).not.toContain('STAFF50');
    const found = await page('/help/en/search?q=discount');
    expect(found.text).not.toContain('Secret');
    expect(found.text).toContain('No article matches your search.');
    const vote = await s.call('POST', `${s.url}/help/en/secret-discount-codes`, {
      key: null,
      form: { helpful: 'yes' },
    });
    expect(vote.status).toBe(404);
    const widgetVote = await s.call('POST', '/kb/feedback', {
      key: s.keys.pk,
      json: { article_id: ids.draft, helpful: true },
    });
    expect(widgetVote.status).toBe(404);
    expect(widgetVote.body.error.code).toBe('article_not_found');
  });

  it('renders an article from its Markdown, with its address, language and the shop’s design', async () => {
    const res = await page('/help/en/how-do-refunds-work');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>How do refunds work?</h1>');
    expect(res.text).toContain('<strong>Refund</strong>');
    expect(res.text).toContain('SPRING_SALE_2026'); // underscores inside words are not emphasis
    expect(res.text).toContain(
      '<a href="https://shop.example/refunds" rel="noopener noreferrer nofollow">the policy</a>',
    );
    expect(res.text).toContain(`<link rel="canonical" href="${s.url}/help/en/how-do-refunds-work">`);
    expect(res.text).toContain(`<link rel="alternate" hreflang="fr" href="${s.url}/help/fr/how-do-refunds-work">`);
    expect(res.text).toContain('<meta name="description" content="Open your order and choose Refund.');
    expect(res.text).toContain('--primary:#2563eb');
    // "Write to us": a mail to support without JavaScript; the widget with the shop's key with it.
    expect(res.text).toContain('href="mailto:help@teapot.example?subject=How%20do%20refunds%20work%3F"');
    expect(res.text).toContain(`<script src="/widget.js" data-key="${pk}" data-locale="en" async></script>`);
    expect(res.text).toContain('data-subject="How do refunds work?"');
    // The article's id leads to its address.
    const byId = await page(`/help/en/${ids.refund}`);
    expect(byId.status).toBe(301);
    expect(byId.headers.get('location')).toBe('/help/en/how-do-refunds-work');
  });

  it('shows a translation in its language, and the article as written where it has none', async () => {
    const fr = await page('/help/fr/how-do-refunds-work');
    expect(fr.text).toMatch(/^<!doctype html>\n<html lang="fr" dir="ltr">/);
    expect(fr.text).toContain('<article lang="fr" dir="ltr"><h1>Comment fonctionnent les remboursements ?</h1>');
    expect(fr.text).toContain('<strong>Rembourser</strong>');
    expect(fr.text).toContain('Cet article vous a-t-il aidé ?');
    expect(fr.text).toContain(`<link rel="canonical" href="${s.url}/help/fr/how-do-refunds-work">`);
    // No German text: the page is in German around the English article, whose canonical page is English.
    const de = await page('/help/de/how-do-refunds-work');
    expect(de.text).toMatch(/<html lang="de" dir="ltr">/);
    expect(de.text).toContain('<article lang="en" dir="ltr"><h1>How do refunds work?</h1>');
    expect(de.text).toContain('War das hilfreich?');
    expect(de.text).toContain(`<link rel="canonical" href="${s.url}/help/en/how-do-refunds-work">`);
    const ar = await page('/help/ar/');
    expect(ar.text).toMatch(/<html lang="ar" dir="rtl">/);
    // The French search finds the French text.
    const found = await page(`/help/fr/search?q=${encodeURIComponent('remboursement')}`);
    expect(found.text).toContain(
      '<a href="/help/fr/how-do-refunds-work">Comment fonctionnent les <mark>remboursements</mark> ?</a>',
    );
  });

  it('searches with a GET form, forgiving a typo, and marks what matched', async () => {
    const home = await page('/help/en/');
    expect(home.text).toContain('<form class="search" role="search" method="get" action="/help/en/search">');
    const res = await page('/help/en/search?q=shiping');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<a href="/help/en/shipping-times"><mark>Shipping</mark> times</a>');
    expect(res.text).toContain('<meta name="robots" content="noindex">');
    expect(res.text).toContain('value="shiping"');
  });

  it('escapes a hostile title, body, category and search everywhere', async () => {
    const slug = 'evil-script-alert-1-script-title';
    const pages = [
      await page('/help/en/'),
      await page(`/help/en/${slug}`),
      await page(`/help/en/search?q=${encodeURIComponent(`evil ${HOSTILE}"><img src=x onerror=alert(6)>`)}`),
    ];
    expect(pages[1]!.status).toBe(200);
    for (const p of pages) {
      // The only scripts are the widget's and the help centre's own.
      const scripts = [...p.text.matchAll(/<script[^>]*>/g)].map((m) => m[0]);
      expect(scripts).toEqual([
        `<script src="/widget.js" data-key="${pk}" data-locale="en" async>`,
        '<script src="/help/help.js" async>',
      ]);
      expect(p.text).not.toMatch(/<(img|svg|i|b)[\s>]/);
      // No event handler in a tag (with the quoted values taken out: in text or a value it is harmless).
      expect(p.text.replace(/"[^"]*"/g, '""')).not.toMatch(/<[^>]*\son\w+=/);
      expect(p.text).not.toMatch(/(href|src|action)="\s*javascript:/i);
    }
    const article = pages[1]!.text;
    expect(article).toContain('<h1>Evil &lt;script&gt;alert(1)&lt;/script&gt; &quot;title&quot;</h1>');
    expect(article).toContain('&lt;img src=x onerror=alert(2)&gt;');
    expect(article).toContain(' click '); // an unsafe link keeps its text, and is no link
    expect(article).not.toMatch(/>click<\/a>/);
    expect(article).toContain(
      '<a href="https://ok.example/?a=1&amp;b=%222%22" rel="noopener noreferrer nofollow">ok</a>',
    );
    expect(article).toContain('<code>&lt;b&gt;code&lt;/b&gt;</code>');
    expect(article).toContain('&quot;&gt;&lt;svg onload=alert(5)&gt;');
    expect(pages[2]!.text).toContain(
      'value="evil &lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(6)&gt;"',
    );
    // The page's policy allows no inline script at all, should anything slip through.
    expect(pages[1]!.headers.get('content-security-policy')).toMatch(/script-src 'self' /);
    expect(pages[1]!.headers.get('content-security-policy')).not.toContain('unsafe-inline');
  });

  it('lists exactly the published articles in the sitemap, in each language they are written in', async () => {
    const res = await page('/help/sitemap.xml');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
    const locs = [...res.text.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]!.replace(s.url, ''));
    expect(locs.filter((l) => !/^\/help\/[a-z]{2}\/$/.test(l)).sort()).toEqual(
      [
        '/help/en/caring-for-your-teapot',
        '/help/en/evil-script-alert-1-script-title',
        '/help/en/how-do-refunds-work',
        '/help/fr/how-do-refunds-work',
        '/help/en/shipping-times',
      ].sort(),
    );
    expect(locs.filter((l) => /^\/help\/[a-z]{2}\/$/.test(l))).toEqual(
      ['en', 'de', 'fr', 'es', 'ar'].map((l) => `/help/${l}/`),
    );
    // Publishing changes it at once; so does unpublishing.
    await save('draft', { title: 'Secret discount codes', body: 'Now public.', published: true });
    expect((await page('/help/sitemap.xml')).text).toContain('/help/en/secret-discount-codes</loc>');
    await save('draft', { title: 'Secret discount codes', body: 'Internal again.', published: false });
    expect((await page('/help/sitemap.xml')).text).not.toContain('secret-discount-codes');
  });

  it('takes "Was this helpful?" by a form without JavaScript and by the widget, and counts it in the report', async () => {
    const before = (await s.call('GET', '/reports')).body.kb_feedback;
    expect(before).toEqual({ helpful: 0, not_helpful: 0, articles: [] });

    const form = await page('/help/en/shipping-times');
    expect(form.text).toContain(
      '<form method="post" action="/help/en/shipping-times"><button type="submit" name="helpful" value="yes">Yes</button>',
    );
    const yes = await s.call('POST', `${s.url}/help/en/shipping-times`, { key: null, form: { helpful: 'yes' } });
    expect(yes.status).toBe(303);
    expect(yes.headers.get('location')).toBe('/help/en/shipping-times?voted=1#feedback');
    const thanks = await page('/help/en/shipping-times?voted=1');
    expect(thanks.text).toContain('<p role="status">Thank you for your feedback.</p>');
    expect(thanks.text).not.toContain('name="helpful"');
    await s.call('POST', `${s.url}/help/fr/how-do-refunds-work`, { key: null, form: { helpful: 'no' } });
    const widget = await s.call('POST', '/kb/feedback', {
      key: s.keys.pk,
      json: { article_id: ids.shipping, helpful: false },
    });
    expect(widget.status).toBe(200);
    expect(widget.body).toEqual({ article_id: ids.shipping, helpful: false });
    // A test key's vote counts in the test mode's report only.
    await s.call('POST', '/kb/feedback', { key: s.keys.pkTest, json: { article_id: ids.care, helpful: true } });

    const report = (await s.call('GET', '/reports')).body.kb_feedback;
    expect(report).toEqual({
      helpful: 1,
      not_helpful: 2,
      articles: [
        { article_id: ids.shipping, title: 'Shipping times', helpful: 1, not_helpful: 1 },
        { article_id: ids.refund, title: 'How do refunds work?', helpful: 0, not_helpful: 1 },
      ],
    });
    const test = (await s.call('GET', '/reports', { key: s.keys.skTest })).body.kb_feedback;
    expect(test.articles).toEqual([
      { article_id: ids.care, title: 'Caring for your teapot', helpful: 1, not_helpful: 0 },
    ]);
    // Yesterday's report has none of today's votes.
    const day = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
    const old = (await s.call('GET', `/reports?from=${day}&to=${day}`)).body.kb_feedback;
    expect(old.helpful + old.not_helpful).toBe(0);
  });

  it('refuses a vote that is not yes or no, in the API’s error shape', async () => {
    const bad = await s.call('POST', `${s.url}/help/en/shipping-times`, { key: null, form: { helpful: 'maybe' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_failed', param: 'helpful' });
    for (const path of ['/help', '/help/en/', '/help/sitemap.xml', '/help/help.js', '/help/en/search']) {
      const res = await s.call('POST', `${s.url}${path}`, { key: null, form: { helpful: 'yes' } });
      expect(res.status, path).toBe(405);
      expect(res.body.error.code, path).toBe('method_not_allowed');
    }
    const json = await s.call('POST', `${s.url}/help/en/shipping-times`, { key: null, json: { helpful: 'yes' } });
    expect(json.status).toBe(415);
    expect(json.body.error.code).toBe('unsupported_media_type');
  });

  it('answers a repeated request by its ETag, and a changed article with a new one', async () => {
    const first = await page('/help/en/shipping-times');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(first.headers.get('cache-control')).toBe('public, max-age=60, must-revalidate');
    const again = await page('/help/en/shipping-times', { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    await save('shipping', {
      title: 'Shipping times',
      body: 'We ship within one day.',
      category: 'Orders',
      published: true,
    });
    const changed = await page('/help/en/shipping-times', { 'If-None-Match': etag });
    expect(changed.status).toBe(200);
    expect(changed.text).toContain('We ship within one day.');
  });

  it('is gone when the knowledge base is switched off', async () => {
    const modules = (await s.call('GET', '/admin?r=modules')).body.modules;
    await s.call('POST', '/admin?r=modules', {
      json: { modules: modules.map((m: { name: string }) => (m.name === 'kb' ? { ...m, enabled: false } : m)) },
    });
    try {
      expect((await page('/help/en/')).status).toBe(404);
      expect((await page('/help/sitemap.xml')).status).toBe(404);
    } finally {
      await s.call('POST', '/admin?r=modules', { json: { modules } });
    }
  });
});
