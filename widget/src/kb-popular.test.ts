import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { $, mountWidget, server, support, until, type TestServer } from './test-support/widget.js';

// The widget's home lists the five most popular articles (views and "Was this helpful?" votes), not
// the five newest: the oldest article, the one customers found helpful, comes first.

let s: TestServer;
let helpful: string;
beforeAll(async () => {
  s = await server();
  for (const title of ['Oldest and helpful', 'Two', 'Three', 'Four', 'Five', 'Six', 'Newest']) {
    const made = await support(s, 'POST', '/admin?r=kb', { title, body: `${title}.`, published: true });
    helpful ??= made.body.article.id;
  }
  const res = await fetch(`${s.base}/kb/feedback`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${s.keys.pk}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ article_id: helpful, helpful: true }),
  });
  expect(res.status).toBe(200);
});
afterAll(() => s.close());

describe('the knowledge base’s home in the widget', () => {
  it('lists the most popular articles first', async () => {
    const w = mountWidget(s, { open: true });
    try {
      const root = await until(() => $(w.root, '[role="dialog"]') && w.root);
      const titles = await until(() => {
        const items = [...root.querySelectorAll('.item')].map((b) => b.firstChild?.textContent ?? '');
        if (items.length < 5) throw new Error(`${items.length} items`);
        return items;
      });
      expect(titles).toEqual(['Oldest and helpful', 'Newest', 'Six', 'Five', 'Four']);
    } finally {
      w.handle.destroy();
    }
  });
});
