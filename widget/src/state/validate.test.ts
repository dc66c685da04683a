import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { en } from '../i18n/en.js';
import { server, support, type TestServer } from '../test-support/widget.js';
import type { Category } from '../types.js';
import { checkNewTicket } from './validate.js';

// The widget's checks must agree with the server's: for each input, the widget finds a problem in a
// field exactly when the server refuses that field. Each case changes one thing of a valid ticket.

let s: TestServer;
const category: Category = {
  id: 'shop',
  name: 'Shop',
  fields: [
    { id: 'qty', label: 'Quantity', type: 'number', required: true },
    { id: 'contact', label: 'Other email', type: 'email', required: false },
    { id: 'site', label: 'Web site', type: 'url', required: false },
    { id: 'day', label: 'Day', type: 'date', required: false },
    { id: 'size', label: 'Size', type: 'select', required: false, options: ['S', 'M', 'L'] },
    { id: 'terms', label: 'Terms', type: 'checkbox', required: true },
    { id: 'note', label: 'Note', type: 'text', required: false },
  ],
};
const valid = { name: 'Ada', email: 'ada@example.com', subject: 'Hello', message: 'Text', category: 'shop' };
const validFields = { qty: '2', terms: 'true' };

beforeAll(async () => {
  s = await server();
  await support(s, 'POST', '/admin?r=categories', { categories: [category] });
});
afterAll(() => s.close());

async function both(values: Partial<typeof valid>, fields: Record<string, string> = {}) {
  const v = { ...valid, ...values };
  const f = { ...validFields, ...fields };
  const client = Object.keys(checkNewTicket(en, v, f, category, false)).sort();
  const res = await support(s, 'POST', '/create', { ...v, fields: f }, s.keys.pk);
  const server =
    res.status === 201
      ? []
      : ((res.body.error.details ?? [{ param: res.body.error.param }]) as { param: string }[])
          .map((d) => d.param)
          .sort();
  return { client, server };
}

describe('the checks of the new-ticket form', () => {
  const cases: [string, Partial<typeof valid>, Record<string, string>?][] = [
    ['a valid ticket', {}],
    ['no name', { name: '' }],
    ['a blank name', { name: '   ' }],
    ['a name of 200 characters', { name: 'n'.repeat(200) }],
    ['a name of 201 characters', { name: 'n'.repeat(201) }],
    ['a name of 200 characters and spaces around', { name: `  ${'n'.repeat(200)}  ` }],
    ['no email', { email: '' }],
    ['an email without @', { email: 'not-an-email' }],
    ['an email without a dot after @', { email: 'ada@example' }],
    ['an email with two dots', { email: 'a..b@example.com' }],
    ['an email starting with a dot', { email: '.ada@example.com' }],
    ['an email with a one-letter top-level domain', { email: 'ada@example.c' }],
    ['an email with an apostrophe', { email: "o'brien@example.com" }],
    ['an email with a plus', { email: 'ada+shop@example.com' }],
    ['an email of 255 characters', { email: `${'a'.repeat(243)}@example.com` }],
    ['a subject of 300 characters', { subject: 's'.repeat(300) }],
    ['a subject of 301 characters', { subject: 's'.repeat(301) }],
    ['a blank message', { message: ' \n ' }],
    ['a message of 50,001 characters', { message: 'm'.repeat(50_001) }],
    ['no quantity', {}, { qty: '' }],
    ['a quantity that is no number', {}, { qty: 'two' }],
    ['a quantity in exponent notation', {}, { qty: '1e3' }],
    ['another email that is none', {}, { contact: 'nobody' }],
    ['a web site on ftp', {}, { site: 'ftp://example.com' }],
    ['a web site', {}, { site: 'https://example.com/shop' }],
    ['a web site that is no address', {}, { site: 'example' }],
    ['a day that does not exist', {}, { day: '2026-02-30' }],
    ['a day in another format', {}, { day: '30.01.2026' }],
    ['a day', {}, { day: '2026-02-28' }],
    ['a size that is not an option', {}, { size: 'XL' }],
    ['a size', {}, { size: 'M' }],
    ['terms not ticked', {}, { terms: 'false' }],
    ['a note of 5,001 characters', {}, { note: 'x'.repeat(5001) }],
  ];
  for (const [what, values, fields] of cases)
    it(`agree with the server on ${what}`, async () => {
      const { client, server } = await both(values, fields);
      expect(client).toEqual(server);
    });

  it('find every problem at once', async () => {
    const { client, server } = await both({ name: '', email: 'x', subject: '' }, {});
    expect(client).toEqual(['email', 'name', 'subject']);
    expect(server).toEqual(client);
  });
});
