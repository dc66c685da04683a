import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPage, openWidget, shot, startStack, type Stack } from './harness.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

// Each payload, if it ever ran, would bump window.__xss or call alert (hooked to do the same).
const CORPUS = [
  '<img src=x onerror="window.__xss++">',
  '<script>window.__xss++</script>',
  '"><svg onload=window.__xss++>',
  '<a href="javascript:window.__xss++">click</a>',
  '<iframe srcdoc="<script>parent.__xss++</script>"></iframe>',
  '{{constructor.constructor("window.__xss++")()}}',
  "';alert(1);//",
  '\u202E<b onmouseover=alert(1)>rtl</b>',
];

describe('an XSS corpus', () => {
  it('never runs, wherever it appears: names, subjects, messages, replies, articles, file names', async () => {
    const { page, context, errors } = await openPage(stack, 'index.html');
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const payload = CORPUS.join(' ');
    await stack.api.call('POST', '/admin?r=kb', {
      json: {
        title: `Evil article ${CORPUS[0]}`,
        body: `${payload}\n\n[click me](javascript:window.__xss++) **${CORPUS[2]}**\n\n\`\`\`\n${CORPUS[1]}\n\`\`\``,
        published: true,
      },
    });
    await openWidget(page);
    await page.getByRole('button', { name: 'New ticket' }).click();
    await page.getByLabel('Name').fill(CORPUS[0]!);
    await page.getByLabel('Email').fill('xss@example.com');
    await page.getByLabel('Subject').fill(CORPUS[2]!);
    await page.getByLabel('Message').fill(payload);
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('heading', { name: CORPUS[2]! }).waitFor();
    const id = (await stack.api.call('GET', '/list?email=xss@example.com')).body.data[0].id as string;
    for (const text of CORPUS)
      await stack.api.call('POST', '/reply', { json: { ticket_id: id, message: text, author: CORPUS[3] } });
    const form = new FormData();
    form.append('ticket_id', id);
    form.append('file', new Blob(['harmless']), `${CORPUS[0]}.txt`);
    expect((await stack.api.call('POST', '/upload', { multipart: form })).status).toBe(201);
    await stack.api.call('POST', '/reply', { json: { ticket_id: id, message: 'final-marker-9' } });
    await page.locator('[data-ticketing] .msg', { hasText: 'final-marker-9' }).waitFor({ timeout: 15_000 });
    // The payloads are on screen, as text.
    await expect(page.locator('[data-ticketing] .file .name').first().textContent()).resolves.toBe(`${CORPUS[0]}.txt`);
    await shot(page, 'xss-thread');
    // Hover and click over everything, in case a handler slipped through.
    for (const el of await page.locator('[data-ticketing] .msg').all()) await el.hover();

    await page.getByRole('button', { name: 'Back' }).click();
    await page.getByLabel('Search help articles').fill('evil article');
    await page.getByRole('button', { name: /Evil article/ }).click();
    await page.locator('[data-ticketing] .article').waitFor();
    const article = page.locator('[data-ticketing] .article');
    expect(await article.locator('img, script, iframe, svg').count()).toBe(0);
    // A javascript: link stays text, never a link.
    expect(await article.locator('a').count()).toBe(0);
    await expect(article.textContent()).resolves.toContain('click me');
    await shot(page, 'xss-article');

    expect(await page.evaluate(() => (window as unknown as { __xss: number }).__xss)).toBe(0);
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('never renders a downloaded file, however much it looks like a page', async () => {
    const t = await stack.api.call('POST', '/create', {
      key: stack.api.keys.pk,
      json: { name: 'D', email: 'd@example.com', subject: 'file', message: 'm' },
    });
    const form = new FormData();
    form.append('ticket_id', t.body.id);
    form.append(
      'file',
      new Blob(['<!doctype html><html><body><script>alert(1);window.__xss++</script>Rendered!</body></html>']),
      'page.html.txt',
    );
    const file = (await stack.api.call('POST', '/upload', { multipart: form })).body;
    const context = await stack.browser.newContext({
      acceptDownloads: true,
      extraHTTPHeaders: { Authorization: `Bearer ${stack.api.keys.pk}` },
    });
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => void dialogs.push(d.message()));
    const url = `${stack.api.url}/v1/file?ticket_id=${t.body.id}&file_id=${file.id}&email=d%40example.com`;
    const [download] = await Promise.all([page.waitForEvent('download'), page.goto(url).catch(() => null)]);
    expect(download.suggestedFilename()).toBe('page.html.txt');
    expect(await page.content()).not.toContain('Rendered!');
    expect(dialogs).toEqual([]);
    await context.close();
  });
});
