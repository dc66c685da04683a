import { fireEvent } from '@testing-library/preact';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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

let s: TestServer;
let w: Mounted | undefined;
beforeAll(async () => {
  s = await server();
  await support(s, 'POST', '/admin?r=categories', {
    categories: [
      {
        id: 'orders',
        name: 'Orders',
        fields: [
          { id: 'order_id', label: 'Order number', type: 'number', required: true },
          { id: 'gift', label: 'Gift', type: 'checkbox' },
        ],
      },
      { id: 'other', name: 'Other', fields: [] },
    ],
  });
  for (const [title, body] of [
    [
      'How refunds work',
      'Open your order and choose **Refund**.\n\n- Step one\n- Step two\n\n[Policy](https://shop.example/policy) <img src=x onerror="window.__xss=1">',
    ],
    ['Shipping times', 'We ship within *two* days. Use `TRACK` to follow.'],
  ]) {
    await support(s, 'POST', '/admin?r=kb', { title, body, published: true });
  }
});
afterAll(() => s.close());
beforeEach(() => localStorage.clear());
afterEach(() => {
  w?.handle.destroy();
  w = undefined;
});

async function open(options = {}) {
  w = mountWidget(s, { open: true, ...options });
  await until(() => $(w!.root, '[role="dialog"]'));
  return w.root;
}
const click = (el: HTMLElement) => fireEvent.click(el);

describe('home', () => {
  it('greets, searches the knowledge base while typing, and opens an article rendered safely', async () => {
    const root = await open();
    expect(byText(root, 'p', 'Hi! How can we help?')).toBeTruthy();
    type($(root, '#tk-q'), 'refund');
    const hit = await until(() => byText(root, '.item', /How refunds work/));
    expect(hit.textContent).toContain('Open your order and choose Refund.');
    click(hit);
    await until(() => byText(root, 'h3', 'How refunds work'));
    const article = $(root, '.article');
    expect($(article, 'strong').textContent).toBe('Refund');
    expect(article.querySelectorAll('li')).toHaveLength(2);
    const link = $<HTMLAnchorElement>(article, 'a');
    expect(link.href).toBe('https://shop.example/policy');
    expect(link.target).toBe('_blank');
    expect(link.rel).toBe('noopener noreferrer');
    expect(article.querySelector('img')).toBeNull(); // raw HTML stays text
    expect(article.textContent).toContain('<img src=x onerror="window.__xss=1">');
    click($(root, 'button[aria-label="Back"]'));
    await until(() => $(root, '#tk-q'));
  });

  it('shows "no articles" for a search that finds nothing', async () => {
    const root = await open();
    type($(root, '#tk-q'), 'teapotless');
    await until(() => byText(root, 'li', 'No articles match.'));
  });
});

describe('new ticket', () => {
  it('files a ticket with the category fields, remembers it in this browser, and shows its thread', async () => {
    const created: unknown[] = [];
    const root = await open();
    w!.handle.on('ticket:created', (d) => created.push(d));
    w!.handle.identify({ name: 'Ada', email: 'ada@example.com' });
    click(byText(root, 'button', 'New ticket'));
    await until(() => $(root, '#tk-subject'));
    expect($<HTMLInputElement>(root, '#tk-name').value).toBe('Ada');
    expect($<HTMLInputElement>(root, '#tk-email').value).toBe('ada@example.com');
    fireEvent.change($<HTMLSelectElement>(root, '#tk-category'), { target: { value: 'orders' } });
    await until(() => $(root, '#tk-f-order_id'));
    type($(root, '#tk-f-order_id'), '42');
    type($(root, '#tk-subject'), 'Refund for order 42');
    type($(root, '#tk-message'), 'The teapot leaks.');
    // Suggestions while typing the subject.
    await until(() => byText(root, '.notice .link', 'How refunds work'));
    click(byText(root, 'button', 'Send'));
    await until(() => byText(root, 'h3', 'Refund for order 42'));
    expect(created).toHaveLength(1);
    const id = (created[0] as { id: string }).id;
    const stored = await support(s, 'GET', `/ticket?id=${id}`);
    expect(stored.body).toMatchObject({
      category: 'orders',
      fields: { order_id: 42 },
      page_url: 'http://shop.test/cart',
      email: 'ada@example.com',
    });
    expect(JSON.parse(localStorage.getItem(`ticketing:tickets:${s.keys.pk}`)!)).toEqual([
      { id, email: 'ada@example.com', subject: 'Refund for order 42', created_at: stored.body.created_at },
    ]);
    expect($(root, '.sr[aria-live="polite"]').textContent).toContain('Your ticket was sent');
  });

  it('shows API errors next to the field that param names, and keeps what was typed', async () => {
    const root = await open();
    click(byText(root, 'button', 'New ticket'));
    await until(() => $(root, '#tk-subject'));
    type($(root, '#tk-name'), 'Ada');
    type($(root, '#tk-email'), 'not-an-email');
    type($(root, '#tk-subject'), 'Hello');
    type($(root, '#tk-message'), 'Kept text');
    click(byText(root, 'button', 'Send'));
    const err = await until(() => $(root, '#tk-email-err'));
    expect(err.textContent).toMatch(/valid email/);
    expect($(root, '#tk-email').getAttribute('aria-invalid')).toBe('true');
    expect($(root, '#tk-email').getAttribute('aria-describedby')).toBe('tk-email-err');
    expect($<HTMLTextAreaElement>(root, '#tk-message').value).toBe('Kept text');
    // Empty required fields are caught before sending.
    type($(root, '#tk-subject'), '');
    click(byText(root, 'button', 'Send'));
    await until(() => expect($(root, '#tk-subject-err').textContent).toBe('Please fill this in.'));
  });

  it('keeps the text and offers a retry when the network fails', async () => {
    const root = await open();
    click(byText(root, 'button', 'New ticket'));
    await until(() => $(root, '#tk-subject'));
    for (const [id, v] of [
      ['name', 'Ada'],
      ['email', 'ada@example.com'],
      ['subject', 'Offline'],
      ['message', 'Typed while offline'],
    ])
      type($(root, `#tk-${id}`), v!);
    const original = window.fetch;
    window.fetch = () => Promise.reject(new TypeError('Failed to fetch')); // the connection drops
    try {
      click(byText(root, 'button', 'Send'));
      const alert = await until(() => $(root, '[role="alert"]'));
      expect(alert.textContent).toMatch(/Could not reach support/);
      expect($<HTMLTextAreaElement>(root, '#tk-message').value).toBe('Typed while offline');
    } finally {
      window.fetch = original;
    }
    click(byText(root, 'button', 'Try again'));
    await until(() => byText(root, 'h3', 'Offline'));
  });

  it('refuses a file that is too large or of the wrong type before sending', async () => {
    const root = await open();
    click(byText(root, 'button', 'New ticket'));
    const input = await until(() => $<HTMLInputElement>(root, '#tk-files'));
    const big = new File([new Uint8Array(5 * 1024 * 1024 + 1)], 'huge.txt');
    const exe = new File(['MZ'], 'tool.exe');
    const ok = new File(['hello'], 'notes.txt');
    fireEvent.change(input, { target: { files: [big, exe, ok] } });
    await until(() => byText(root, '.chip', /notes\.txt/));
    expect(root.querySelectorAll('.chip')).toHaveLength(1);
    expect($(root, '#tk-files-err').textContent).toMatch(/tool\.exe/);
    click($(root, 'button[aria-label="Remove notes.txt"]'));
    await until(() => expect(root.querySelectorAll('.chip')).toHaveLength(0));
  });
});

describe('thread', () => {
  async function ticketFromThisBrowser(subject = 'Leaky teapot') {
    const created = await support(
      s,
      'POST',
      '/create',
      { name: 'Ada', email: 'ada@example.com', subject, message: 'It leaks.' },
      s.keys.pk,
    );
    localStorage.setItem(
      `ticketing:tickets:${s.keys.pk}`,
      JSON.stringify([{ id: created.body.id, email: 'ada@example.com', subject, created_at: created.body.created_at }]),
    );
    return created.body.id as string;
  }

  it("lists this browser's tickets, opens one, shows new support replies without a reload and announces them", async () => {
    const id = await ticketFromThisBrowser();
    const root = await open();
    click(await until(() => byText(root, '.item', /Leaky teapot/)));
    await until(() => byText(root, '.msg', /It leaks\./));
    await support(s, 'POST', '/reply', { ticket_id: id, message: 'We are sending a new one.', author: 'Grace' });
    document.dispatchEvent(new Event('visibilitychange')); // what the 10 s poll does
    const reply = await until(() => byText(root, '.msg.theirs', /We are sending a new one\./));
    expect(reply.querySelector('header')!.textContent).toBe('Grace');
    expect($(root, '.sr[aria-live="polite"]').textContent).toBe('New reply from support.');
  });

  it('sends a reply with a file, asks to close, and rates once closed', async () => {
    const events: string[] = [];
    const id = await ticketFromThisBrowser('Broken lid');
    const root = await open();
    w!.handle.on('reply:sent', () => events.push('reply'));
    w!.handle.on('rated', () => events.push('rated'));
    click(await until(() => byText(root, '.item', /Broken lid/)));
    const box = await until(() => $<HTMLTextAreaElement>(root, '#tk-reply'));
    type(box, 'Here is a photo');
    const input = $<HTMLInputElement>(root, '#tk-reply-files');
    Object.defineProperty(input, 'files', {
      value: [new File(['receipt'], 'receipt.txt', { type: 'text/plain' })],
      configurable: true,
    });
    input.dispatchEvent(new Event('change', { bubbles: true }));
    click(byText(root, 'button', 'Reply'));
    await until(() => byText(root, '.msg.mine', /Here is a photo/));
    await until(() => byText(root, '.chip', 'receipt.txt'));
    expect(box.value).toBe('');
    const stored = (await support(s, 'GET', `/ticket?id=${id}`)).body;
    expect(stored.replies[0]).toMatchObject({
      message: 'Here is a photo',
      from_customer: true,
      attachments: [{ name: 'receipt.txt' }],
    });

    click(byText(root, 'button', /close the ticket/));
    await until(() => byText(root, '.notice', 'You asked to close this ticket.'));
    await support(s, 'POST', '/close-resolve', { ticket_id: id, accept: true });
    document.dispatchEvent(new Event('visibilitychange'));
    const star = await until(() => $<HTMLButtonElement>(root, 'button[aria-label="4 of 5"]'));
    click(star);
    await until(() => byText(root, '[role="status"]', 'Thank you for your rating!'));
    expect($(root, 'button[aria-label="4 of 5"]').getAttribute('aria-pressed')).toBe('true');
    expect((await support(s, 'GET', `/ticket?id=${id}`)).body.rating.score).toBe(4);
    expect(events).toEqual(['reply', 'rated']);
  });

  it("forgets this browser's tickets on request", async () => {
    await ticketFromThisBrowser();
    const root = await open();
    click(await until(() => byText(root, 'button', /Forget these tickets/)));
    await until(() => byText(root, 'p', 'No tickets from this browser yet.'));
    expect(localStorage.getItem(`ticketing:tickets:${s.keys.pk}`)).toBeNull();
  });
});

describe('configuration', () => {
  it('speaks German, follows the theme, and says when support is back', async () => {
    await support(s, 'POST', '/admin?r=design', { locale: 'de', theme: 'dark', title: 'Hilfe' });
    await support(s, 'POST', '/admin?r=business_hours', {
      timezone: 'UTC',
      days: { mon: [{ open: '00:00', close: '00:01' }] },
    });
    try {
      const root = await open();
      expect($(root, '[role="dialog"]').className).toBe('tk dark');
      expect($(root, '[role="dialog"]').getAttribute('lang')).toBe('de');
      expect(byText(root, 'button', 'Neue Anfrage')).toBeTruthy();
      expect($(root, '#tk-title').textContent).toBe('Hilfe');
      expect($(root, '.notice[role="status"]').textContent).toMatch(/Wir sind gerade nicht erreichbar.*am /);
    } finally {
      await support(s, 'POST', '/admin?r=design', {});
      await support(s, 'POST', '/admin?r=business_hours', {});
    }
  });

  it('hides what the modules switch off', async () => {
    await support(s, 'POST', '/admin?r=modules', { modules: [{ name: 'close_request', enabled: true }] });
    try {
      const root = await open();
      expect(root.querySelector('#tk-q')).toBeNull();
      click(byText(root, 'button', 'New ticket'));
      await until(() => $(root, '#tk-subject'));
      expect(root.querySelector('#tk-files')).toBeNull();
    } finally {
      await support(s, 'POST', '/admin?r=modules', {
        modules: ['kb', 'uploads', 'rating', 'close_request'].map((name) => ({ name, enabled: true })),
      });
    }
  });
});
