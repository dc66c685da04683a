import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { PNG_1PX } from '@ticketing/server/test-support';
import { openPage, openWidget, shot, startStack, type Stack } from './harness.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

/** What the thread's 10 s poll does, without waiting for it. */
const refresh = (page: Page) => page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));

/** Clicks an attachment in the widget and returns the file the browser saved: its name and bytes. */
async function download(page: Page, name: string) {
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('[data-ticketing] .file', { hasText: name }).click(),
  ]);
  return { name: file.suggestedFilename(), bytes: await readFile((await file.path())!) };
}

describe('files in the thread', () => {
  it('downloads what support attached, byte for byte, and shows images as thumbnails', async () => {
    const { page, context, errors } = await openPage(stack, 'index.html');
    await openWidget(page);
    await page.getByRole('button', { name: 'New ticket' }).click();
    await page.getByLabel('Name').fill('Fay Files');
    await page.getByLabel('Email').fill('fay@example.com');
    await page.getByLabel('Subject').fill('Which lid fits?');
    await page.getByLabel('Message').fill('Mine is the classic pot.');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('heading', { name: 'Which lid fits?' }).waitFor();
    const id = (await stack.api.call('GET', '/list?email=fay@example.com')).body.data[0].id as string;

    // Support answers and attaches two files to that reply: POST /v1/upload, secret key, reply_id.
    const reply = await stack.api.call('POST', '/reply', {
      json: { ticket_id: id, message: 'This one, see the photo and the notes.', author: 'Grace' },
    });
    const replyId = reply.body.replies.at(-1).id as string;
    const notes = Buffer.from('Deckel „Classic“: Ø 9 cm, passt auf 1,2 l.\n');
    for (const [name, data, type] of [
      ['Anleitung für den Deckel.txt', notes, 'text/plain'],
      ['lid.png', PNG_1PX, 'image/png'],
    ] as const) {
      const form = new FormData();
      form.append('ticket_id', id);
      form.append('reply_id', replyId);
      form.append('file', new Blob([data], { type }), name);
      const up = await stack.api.call('POST', '/upload', { key: stack.api.keys.sk, multipart: form });
      expect(up.status).toBe(201);
    }
    await refresh(page);
    const theirs = page.locator('[data-ticketing] .msg.theirs', { hasText: 'see the photo' });
    await theirs.locator('.file').nth(1).waitFor();
    expect(await theirs.locator('.file .size').allTextContents()).toEqual([`${notes.length} bytes`, '68 bytes']);

    // The image's thumbnail: an object URL of the fetched bytes, decoded by the browser.
    const thumb = theirs.locator('img.thumb');
    await page.waitForFunction(
      (img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth === 1,
      await thumb.elementHandle(),
    );
    expect(await thumb.getAttribute('src')).toMatch(/^blob:/);
    await shot(page, 'files-thread');

    // Downloads: the key travels in a header, so the widget fetches and hands the browser a Blob.
    expect(await download(page, 'Anleitung')).toEqual({ name: 'Anleitung für den Deckel.txt', bytes: notes });
    expect(await download(page, 'lid.png')).toEqual({ name: 'lid.png', bytes: PNG_1PX });
    expect(page.url()).toBe(`${stack.site}/index.html`);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('downloads a file that looks like a page without ever rendering it', async () => {
    const { page, context, errors } = await openPage(stack, 'index.html');
    const dialogs: string[] = [];
    page.on('dialog', (d) => void dialogs.push(d.message()));
    await openWidget(page);
    await page.getByRole('button', { name: 'New ticket' }).click();
    await page.getByLabel('Name').fill('Hal Html');
    await page.getByLabel('Email').fill('hal@example.com');
    await page.getByLabel('Subject').fill('A page as text');
    await page.getByLabel('Message').fill('Attached.');
    const page_ = '<!doctype html><script>alert(1);window.__xss++</script>Rendered!';
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      page.getByRole('button', { name: 'Add files' }).click(),
    ]);
    await chooser.setFiles({ name: 'page.html.txt', mimeType: 'text/html', buffer: Buffer.from(page_) });
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('heading', { name: 'A page as text' }).waitFor();
    expect(await download(page, 'page.html.txt')).toEqual({ name: 'page.html.txt', bytes: Buffer.from(page_) });
    expect(page.url()).toBe(`${stack.site}/index.html`);
    expect(context.pages()).toHaveLength(1);
    expect(await page.evaluate(() => (window as unknown as { __xss: number }).__xss)).toBe(0);
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
