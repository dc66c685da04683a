import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../test-support/server.js';

// The knowledge base in the visitor's language (issue 31): /v1/kb and the help centre's search answer
// each article in its translation where it has one, and rank what matches in that language first.

let s: TestServer;
const ids: Record<string, string> = {};

const save = async (key: string, article: Record<string, unknown>) => {
  const res = await s.call('POST', '/admin?r=kb', { json: { published: true, ...article } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  ids[key] = res.body.article.id;
};

type Item = {
  id: string;
  title: string;
  excerpt: string;
  category: string | null;
  lang: string;
  highlight: { title: number[][]; excerpt: number[][] };
};
const kb = async (query: string, headers: Record<string, string> = {}) => {
  const res = await s.call('GET', `/kb${query}`, { key: s.keys.pk, headers });
  expect(res.status, res.text).toBe(200);
  return res.body;
};
const search = async (q: string, headers: Record<string, string> = {}) =>
  (await kb(`?q=${encodeURIComponent(q)}`, headers)).data as Item[];
const marked = (text: string, ranges: number[][]) => ranges.map(([a, b]) => text.slice(a, b));

beforeAll(async () => {
  s = await startServer();
  await save('returns', {
    title: 'Sending an order back',
    body: 'Pack the parcel and print the label from your account.',
    category: 'Orders',
    translations: {
      fr: {
        title: 'Renvoyer une commande',
        body: 'Emballez le colis et imprimez l’étiquette de retour depuis votre compte.',
        category: 'Commandes',
      },
      de: { title: 'Eine Bestellung zurückschicken', body: 'Packen Sie das Paket ein.' },
    },
  });
  // As written only (English), with the French word in its title: as written it scores higher than
  // the translation above, whose body alone has the word.
  await save('retour', {
    title: 'Retour labels for Belgium',
    body: 'Belgian customers use the bpost label.',
    category: 'Orders',
  });
  await save('draft', {
    title: 'Retour codes for staff',
    body: 'Internal.',
    published: false,
    translations: { fr: { title: 'Codes de retour internes', body: 'Interne : retour gratuit.' } },
  });
});
afterAll(() => s.close());

describe('/v1/kb in the visitor’s language', () => {
  it('searches the translation first and answers in it: title, excerpt, category, marks', async () => {
    const found = await search('retour', { 'Accept-Language': 'fr-FR,fr;q=0.9,en;q=0.5' });
    expect(found.map((a) => a.id)).toEqual([ids.returns, ids.retour]);
    const [fr, asWritten] = found as [Item, Item];
    expect(fr).toMatchObject({ title: 'Renvoyer une commande', category: 'Commandes', lang: 'fr' });
    expect(fr.excerpt).toContain('étiquette de retour');
    expect(marked(fr.excerpt, fr.highlight.excerpt)).toEqual(['retour']);
    expect(asWritten).toMatchObject({ title: 'Retour labels for Belgium', category: 'Orders', lang: 'en' });
    expect(marked(asWritten.title, asWritten.highlight.title)).toEqual(['Retour']);
    // Without a French reader, the text as written is all there is: the translation is not searched.
    expect((await search('retour')).map((a) => a.id)).toEqual([ids.retour]);
  });

  it('takes the language from locale= as from Accept-Language', async () => {
    const res = await kb('?q=retour&locale=fr', { 'Accept-Language': 'de' });
    expect(res.data.map((a: Item) => [a.id, a.lang])).toEqual([
      [ids.returns, 'fr'],
      [ids.retour, 'en'],
    ]);
  });

  it('finds an article through its text as written too, and still shows it translated', async () => {
    const found = await search('parcel', { 'Accept-Language': 'fr' });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ id: ids.returns, title: 'Renvoyer une commande', lang: 'fr' });
    // The marks point into the English text that matched: none apply to the French shown.
    expect(found[0]!.highlight).toEqual({ title: [], excerpt: [] });
    expect(found[0]!.excerpt).toMatch(/^Emballez le colis/);
  });

  it('lists and reads one article in the visitor’s language, falling back to the text as written', async () => {
    const list = (await kb('', { 'Accept-Language': 'fr' })).data as Item[];
    expect(list.find((a) => a.id === ids.returns)).toMatchObject({ title: 'Renvoyer une commande', lang: 'fr' });
    expect(list.find((a) => a.id === ids.retour)).toMatchObject({ title: 'Retour labels for Belgium', lang: 'en' });
    expect(list.map((a) => a.id)).not.toContain(ids.draft);

    const fr = await kb(`?id=${ids.returns}`, { 'Accept-Language': 'fr' });
    expect(fr).toMatchObject({ title: 'Renvoyer une commande', category: 'Commandes', lang: 'fr' });
    expect(fr.body).toContain('étiquette de retour');
    // A translation without a category of its own keeps the article's.
    const de = await kb(`?id=${ids.returns}`, { 'Accept-Language': 'de' });
    expect(de).toMatchObject({ title: 'Eine Bestellung zurückschicken', category: 'Orders', lang: 'de' });
    const es = await kb(`?id=${ids.returns}`, { 'Accept-Language': 'es' });
    expect(es).toMatchObject({ title: 'Sending an order back', category: 'Orders', lang: 'en' });
  });

  it('never shows a draft’s translation to a customer', async () => {
    const found = await search('interne', { 'Accept-Language': 'fr' });
    expect(found.map((a) => a.id)).not.toContain(ids.draft);
    const res = await s.call('GET', `/kb?id=${ids.draft}`, { key: s.keys.pk, headers: { 'Accept-Language': 'fr' } });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('article_not_found');
    const bad = await s.call('GET', '/kb?q=x&locale=xx', { key: s.keys.pk });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_failed', param: 'locale' });
  });
});

describe('the help centre’s search in the visitor’s language', () => {
  it('ranks the French translation first and shows French titles and categories', async () => {
    const res = await s.call('GET', `${s.url}/help/fr/search?q=retour`, { key: null });
    expect(res.status).toBe(200);
    const french = res.text.indexOf('Renvoyer une commande');
    const english = res.text.indexOf('<mark>Retour</mark> labels for Belgium');
    expect(french).toBeGreaterThan(0);
    expect(english).toBeGreaterThan(french);
    expect(res.text).not.toContain('Codes de retour internes');
    const home = await s.call('GET', `${s.url}/help/fr/`, { key: null });
    expect(home.text).toMatch(/<h2 id="section-\d">Commandes<\/h2>/);
  });
});
