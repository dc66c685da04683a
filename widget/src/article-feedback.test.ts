import { fireEvent } from '@testing-library/preact';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  $,
  byText,
  mountWidget,
  server,
  support,
  type,
  until,
  type Mounted,
  type TestServer,
} from './test-support/widget.js';

// An article in the widget ends with "Was this helpful?": the answer goes to the server (the same
// store as the help centre's form) and shows in the report support reads.

let s: TestServer;
let w: Mounted | undefined;
let article: string;
beforeAll(async () => {
  s = await server();
  const made = await support(s, 'POST', '/admin?r=kb', {
    title: 'Descaling a kettle',
    body: 'Use **citric acid**, never vinegar.',
    published: true,
  });
  article = made.body.article.id;
});
afterAll(() => s.close());
afterEach(() => {
  w?.handle.destroy();
  w = undefined;
});

async function openArticle(locale?: string) {
  w = mountWidget(s, { open: true, ...(locale ? { locale } : {}) });
  const root = await until(() => $(w!.root, '[role="dialog"]') && w!.root);
  type($(root, '#tk-q'), 'descaling');
  fireEvent.click(await until(() => byText(root, '.item', /Descaling a kettle/)));
  await until(() => byText(root, 'h3', 'Descaling a kettle'));
  return root;
}

describe('"Was this helpful?" under an article', () => {
  it('stores a yes and a no, thanks the customer, and counts both in the report', async () => {
    let root = await openArticle();
    const group = await until(() => $(root, '[role="group"][aria-labelledby="tk-helpful"]'));
    expect(byText(group, 'p', 'Was this helpful?')).toBeTruthy();
    fireEvent.click(byText(group, 'button', 'Yes')!);
    expect((await until(() => byText(root, '[role="status"]', 'Thank you for your feedback.'))).textContent).toBe(
      'Thank you for your feedback.',
    );
    expect(root.querySelector('[aria-labelledby="tk-helpful"]')).toBeNull();
    w!.handle.destroy();

    root = await openArticle('de');
    fireEvent.click(await until(() => byText(root, 'button', 'Nein')));
    await until(() => byText(root, '[role="status"]', 'Danke für Ihre Rückmeldung.'));

    const report = await support(s, 'GET', '/reports');
    expect(report.body.kb_feedback).toEqual({
      helpful: 1,
      not_helpful: 1,
      articles: [{ article_id: article, title: 'Descaling a kettle', helpful: 1, not_helpful: 1 }],
    });
  });

  it('says why when the vote cannot be stored, and keeps the buttons', async () => {
    const root = await openArticle();
    const yes = await until(() => byText(root, 'button', 'Yes'));
    await support(s, 'POST', '/admin?r=kb', { id: article, title: 'Descaling a kettle', body: 'x', published: false });
    try {
      fireEvent.click(yes);
      await until(() => $(root, '[role="group"] [role="alert"]'));
      expect(byText(root, 'button', 'Yes')).toBeTruthy();
    } finally {
      await support(s, 'POST', '/admin?r=kb', {
        id: article,
        title: 'Descaling a kettle',
        body: 'Use **citric acid**.',
        published: true,
      });
    }
  });
});
