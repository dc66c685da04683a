import { resolveObjectURL } from 'node:buffer';
import { fireEvent } from '@testing-library/preact';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PNG_1PX } from '@ticketing/server/test-support';
import {
  $,
  byText,
  mountWidget,
  server,
  support,
  supportUpload,
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
    // Before anything is searched, the knowledge base's articles are there to read.
    const home = await until(() => $(root, 'ul[aria-label="Help articles"]'));
    await until(() => expect([...home.querySelectorAll('.item')].length).toBe(2));
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
    // Back on the home view, the search is as the customer left it, results and all.
    expect((await until(() => $<HTMLInputElement>(root, '#tk-q'))).value).toBe('refund');
    click(await until(() => byText(root, '.item', /How refunds work/)));
    // Not answered: "Write to us" opens the form with the search as its subject.
    click(await until(() => byText(root, 'button', 'Still need help? Write to us')));
    expect((await until(() => $<HTMLInputElement>(root, '#tk-subject'))).value).toBe('refund');
  });

  it('finds an article despite a typo and marks the matched words', async () => {
    const root = await open();
    type($(root, '#tk-q'), 'refnds');
    // The search's answer (with marks), not the list shown before the search.
    const hit = await until(() => {
      const item = byText(root, '.item', /How refunds work/);
      if (!item.querySelector('mark')) throw new Error('not searched yet');
      return item;
    });
    const marks = [...hit.querySelectorAll('mark')].map((m) => m.textContent);
    expect(marks[0]).toBe('refunds'); // in the title
    expect(marks).toContain('Refund'); // in the excerpt
    expect(hit.textContent).toContain('How refunds workOpen your order and choose Refund.');
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
      { id, email: 'ada@example.com', subject: 'Refund for order 42', created_at: stored.body.created_at, seen: 0 },
    ]);
    expect($(root, '.tk .sr[aria-live="polite"]').textContent).toContain('Your ticket was sent');
    // A clear confirmation: the ticket's number and what happens next, with focus on it.
    const done = $(root, '.created');
    expect(done.textContent).toContain(`Your ticket number is #${stored.body.number}.`);
    expect(stored.body.number).toBe(1001);
    // This server sends no mail (none is set up): the answer comes here, and the widget says so.
    expect(done.textContent).toContain('We will answer here: follow the ticket on this device.');
    expect(done.textContent).not.toContain('by email');
    expect(root.activeElement).toBe(done);
    // Sent: no draft left behind, only who filed it, for the next ticket on this device.
    expect(JSON.parse(localStorage.getItem(`ticketing:drafts:${s.keys.pk}`)!)).toEqual({
      me: { name: 'Ada', email: 'ada@example.com' },
    });
    // Every message carries its time.
    expect($(root, '.msg header time').getAttribute('datetime')).toBe(stored.body.created_at);
    // The next ticket starts with the name and email, on this device (a new panel: a page reload).
    w!.handle.destroy();
    const again = await open();
    click(byText(again, 'button', 'New ticket'));
    await until(() => $(again, '#tk-name'));
    expect($<HTMLInputElement>(again, '#tk-name').value).toBe('Ada');
    expect($<HTMLInputElement>(again, '#tk-email').value).toBe('ada@example.com');
  });

  it('says "we will answer by email" once support’s replies go out by mail', async () => {
    const mail = await server();
    try {
      await support(mail, 'POST', '/admin?r=mail', {
        from_address: 'help@shop.example',
        smtp: { host: '127.0.0.1', port: 9 },
      });
      w = mountWidget(mail, { open: true });
      const root = await until(() => $(w!.root, '[role="dialog"]') && w!.root);
      click(byText(root, 'button', 'New ticket'));
      type(await until(() => $(root, '#tk-name')), 'Ada');
      type($(root, '#tk-email'), 'ada@example.com');
      type($(root, '#tk-subject'), 'By mail');
      type($(root, '#tk-message'), 'Hello');
      click(byText(root, 'button', 'Send'));
      const done = await until(() => $(root, '.created'));
      expect(done.textContent).toContain('We will answer by email to ada@example.com');
    } finally {
      w?.handle.destroy();
      w = undefined;
      await mail.close();
    }
  });

  it('shows every invalid field at once, before sending, marks required fields and moves focus to the first', async () => {
    const root = await open();
    click(byText(root, 'button', 'New ticket'));
    await until(() => $(root, '#tk-subject'));
    fireEvent.change($<HTMLSelectElement>(root, '#tk-category'), { target: { value: 'orders' } });
    await until(() => $(root, '#tk-f-order_id'));
    // Required fields: marked for the eye (an "*" the form explains) and for screen readers.
    expect(byText(root, 'p', 'Fields marked * are required.')).toBeTruthy();
    for (const id of ['tk-name', 'tk-email', 'tk-subject', 'tk-message', 'tk-f-order_id']) {
      expect($(root, `#${id}`).getAttribute('aria-required')).toBe('true');
      expect($(root, `label[for="${id}"] .req[aria-hidden="true"]`).textContent).toBe(' *');
    }
    expect($(root, '#tk-f-gift').getAttribute('aria-required')).toBeNull();
    expect(root.querySelector('label[for="tk-f-gift"] .req')).toBeNull();
    type($(root, '#tk-email'), 'not-an-email');
    type($(root, '#tk-message'), 'Kept text');
    click(byText(root, 'button', 'Send'));
    const expected = {
      'tk-name': 'Please fill this in.',
      'tk-email': 'Please enter an email address like name@example.com.',
      'tk-f-order_id': 'Please fill this in.',
      'tk-subject': 'Please fill this in.',
    };
    // The checks are a file of their own, preloaded with the form: nothing is sent meanwhile.
    await until(() => $(root, '#tk-name-err'));
    for (const [id, text] of Object.entries(expected)) {
      expect($(root, `#${id}-err`).textContent).toBe(text);
      expect($(root, `#${id}`).getAttribute('aria-invalid')).toBe('true');
      expect($(root, `#${id}`).getAttribute('aria-describedby')).toBe(`${id}-err`);
    }
    expect(root.querySelector('#tk-message-err')).toBeNull();
    await until(() => expect(root.activeElement).toBe($(root, '#tk-name')));
    expect($(root, '.tk .sr[aria-live="polite"]').textContent).toBe('Please correct the 4 highlighted fields.');
    expect($<HTMLTextAreaElement>(root, '#tk-message').value).toBe('Kept text');
    // Nothing went to the server.
    expect((await support(s, 'GET', '/list?email=not-an-email')).body.total).toBe(0);
    // Corrected, it goes through. A field's error goes as soon as it is edited; the others stay.
    type($(root, '#tk-name'), 'Ada');
    await until(() => expect(root.querySelector('#tk-name-err')).toBeNull());
    expect($(root, '#tk-name').getAttribute('aria-invalid')).toBeNull();
    expect($(root, '#tk-subject-err').textContent).toBe('Please fill this in.');
    type($(root, '#tk-email'), 'ada@example.com');
    type($(root, '#tk-subject'), 'Hi');
    type($(root, '#tk-f-order_id'), '42');
    click(byText(root, 'button', 'Send'));
    await until(() => byText(root, 'h3', 'Hi'));
  });

  it('shows what only the server refuses next to the field that param names, and keeps what was typed', async () => {
    const root = await open();
    click(byText(root, 'button', 'New ticket'));
    await until(() => $(root, '#tk-subject'));
    type($(root, '#tk-name'), 'Ada\u0007'); // a control character: the server's rule, not checked here
    type($(root, '#tk-email'), 'ada@example.com');
    type($(root, '#tk-subject'), 'Hello');
    type($(root, '#tk-message'), 'Kept text');
    click(byText(root, 'button', 'Send'));
    const err = await until(() => $(root, '#tk-name-err'));
    expect(err.textContent).toMatch(/control characters/);
    expect($(root, '#tk-name').getAttribute('aria-invalid')).toBe('true');
    await until(() => expect(root.activeElement).toBe($(root, '#tk-name')));
    expect($<HTMLTextAreaElement>(root, '#tk-message').value).toBe('Kept text');
  });

  it('shows the server’s refusals in the widget’s language (German)', async () => {
    const root = await open({ locale: 'de' });
    click(byText(root, 'button', 'Neue Anfrage'));
    await until(() => $(root, '#tk-subject'));
    type($(root, '#tk-name'), 'Ada\u0007');
    type($(root, '#tk-email'), 'ada@example.com');
    type($(root, '#tk-subject'), 'Hallo');
    type($(root, '#tk-message'), 'Text');
    click(byText(root, 'button', 'Senden'));
    const err = await until(() => $(root, '#tk-name-err'));
    expect(err.textContent).toBe('ist ungültig');
  });

  it('keeps a draft of the form (all but files) when the panel closes and the page reloads', async () => {
    let root = await open();
    click(byText(root, 'button', 'New ticket'));
    await until(() => $(root, '#tk-subject'));
    fireEvent.change($<HTMLSelectElement>(root, '#tk-category'), { target: { value: 'orders' } });
    await until(() => $(root, '#tk-f-order_id'));
    type($(root, '#tk-f-order_id'), '77');
    type($(root, '#tk-name'), 'Dora Draft');
    type($(root, '#tk-email'), 'dora@example.com');
    type($(root, '#tk-subject'), 'Half written');
    type($(root, '#tk-message'), 'I was about to say');
    const values = (r: ShadowRoot) =>
      ['tk-name', 'tk-email', 'tk-category', 'tk-f-order_id', 'tk-subject', 'tk-message'].map(
        (id) => $<HTMLInputElement>(r, `#${id}`).value,
      );
    const typed = ['Dora Draft', 'dora@example.com', 'orders', '77', 'Half written', 'I was about to say'];
    // Closing the panel unmounts the form.
    w!.handle.close();
    await until(() => expect(root.querySelector('[role="dialog"]')).toBeNull());
    w!.handle.open();
    await until(() => $(root, '#tk-f-order_id'));
    expect(values(root)).toEqual(typed);
    // A reload: a new widget on the same page, with only localStorage in common.
    w!.handle.destroy();
    root = await open();
    click(byText(root, 'button', 'New ticket'));
    await until(() => $(root, '#tk-f-order_id'));
    expect(values(root)).toEqual(typed);
    click(byText(root, 'button', 'Send'));
    await until(() => byText(root, 'h3', 'Half written'));
    // The draft is gone; who filed it stays for the next ticket.
    expect(JSON.parse(localStorage.getItem(`ticketing:drafts:${s.keys.pk}`)!)).toEqual({
      replies: {},
      me: { name: 'Dora Draft', email: 'dora@example.com' },
    });
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

  it('refuses a file that is too large or of the wrong type before sending, in words, and counts the chosen ones', async () => {
    const root = await open();
    click(byText(root, 'button', 'New ticket'));
    const input = await until(() => $<HTMLInputElement>(root, '#tk-files'));
    // The browser's own file input is hidden; a button in the widget's language opens it.
    expect(input.hidden).toBe(true);
    const button = byText(root, 'button', 'Add files');
    expect($(root, '#tk-files-count').textContent).toBe('or drop or paste them here');
    const big = new File([new Uint8Array(5 * 1024 * 1024 + 1)], 'huge.txt');
    const exe = new File(['MZ'], 'tool.exe');
    const ok = new File(['hello'], 'notes.txt');
    fireEvent.change(input, { target: { files: [big, exe, ok] } });
    await until(() => byText(root, '.chip', /notes\.txt/));
    expect(root.querySelectorAll('.chip')).toHaveLength(1);
    expect($(root, '#tk-files-count').textContent).toBe('1 file');
    const err = $(root, '#tk-files-err').textContent;
    expect(err).toContain('huge.txt is larger than 5 MB.');
    expect(err).toMatch(/tool\.exe: this type of file cannot be attached/);
    expect(button.getAttribute('aria-describedby')).toBe('tk-files-count tk-files-err');
    fireEvent.change(input, { target: { files: [new File(['b'], 'more.csv')] } });
    await until(() => expect($(root, '#tk-files-count').textContent).toBe('2 files'));
    click($(root, 'button[aria-label="Remove notes.txt"]'));
    await until(() => expect(root.querySelectorAll('.chip')).toHaveLength(1));
  });
});

describe('thread', () => {
  async function ticketFromThisBrowser(subject = 'Leaky teapot') {
    const created = await support(
      s,
      'POST',
      '/create',
      { name: 'Ada', email: 'ada@example.com', subject, message: 'It leaks. **Badly**.' },
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
    const mine = await until(() => byText(root, '.msg.mine', /It leaks\./));
    expect(mine.textContent).toContain('**Badly**'); // the customer's own words, as typed
    expect(mine.querySelector('strong')).toBeNull();
    await support(s, 'POST', '/reply', {
      ticket_id: id,
      message: 'We are sending a **new one**. [Track it](https://shop.example/track).',
      author: 'Grace',
    });
    document.dispatchEvent(new Event('visibilitychange')); // what the 10 s poll does
    const reply = await until(() => byText(root, '.msg.theirs', /We are sending a new one\./));
    expect(reply.querySelector('header')!.textContent).toMatch(/^Grace \S/); // and the reply's time
    // Support's Markdown: bold, and a link that opens in a new tab without the opener.
    expect($(reply, 'strong').textContent).toBe('new one');
    const link = $<HTMLAnchorElement>(reply, 'a');
    expect([link.href, link.target, link.rel]).toEqual(['https://shop.example/track', '_blank', 'noopener noreferrer']);
    expect($(root, '.tk .sr[aria-live="polite"]').textContent).toBe('New reply from support.');
  });

  it('sends a reply with a file, keeps a reply draft until it is sent, asks to close, and rates with a comment', async () => {
    const events: string[] = [];
    const id = await ticketFromThisBrowser('Broken lid');
    let root = await open();
    w!.handle.on('reply:sent', () => events.push('reply'));
    w!.handle.on('rated', () => events.push('rated'));
    click(await until(() => byText(root, '.item', /Broken lid/)));
    let box = await until(() => $<HTMLTextAreaElement>(root, '#tk-reply'));
    expect(box.getAttribute('aria-required')).toBe('true');
    type(box, 'Here is a photo');
    // The draft survives a reload (a new widget, the same localStorage).
    w!.handle.destroy();
    root = await open();
    w!.handle.on('reply:sent', () => events.push('reply'));
    w!.handle.on('rated', () => events.push('rated'));
    click(await until(() => byText(root, '.item', /Broken lid/)));
    box = await until(() => $<HTMLTextAreaElement>(root, '#tk-reply'));
    expect(box.value).toBe('Here is a photo');
    const input = $<HTMLInputElement>(root, '#tk-reply-files');
    fireEvent.change(input, { target: { files: [new File(['receipt'], 'receipt.txt', { type: 'text/plain' })] } });
    await until(() => expect($(root, '#tk-reply-files-count').textContent).toBe('1 file'));
    click(byText(root, 'button', 'Reply'));
    await until(() => byText(root, '.msg.mine', /Here is a photo/));
    // The reply's file, with its size, as a download button in the thread.
    const file = await until(() => byText(root, '.msg.mine .file', /receipt\.txt/));
    expect($(file, '.size').textContent).toBe('7 bytes');
    expect(file.title).toBe('Download receipt.txt');
    expect(box.value).toBe('');
    expect(localStorage.getItem(`ticketing:drafts:${s.keys.pk}`)).toBeNull();
    const stored = (await support(s, 'GET', `/ticket?id=${id}`)).body;
    expect(stored.replies[0]).toMatchObject({
      message: 'Here is a photo',
      from_customer: true,
      attachments: [{ name: 'receipt.txt', size: 7 }],
    });

    click(byText(root, 'button', /close the ticket/));
    await until(() => byText(root, '.notice', 'You asked to close this ticket.'));
    await support(s, 'POST', '/close-resolve', { ticket_id: id, accept: true });
    document.dispatchEvent(new Event('visibilitychange'));
    const star = await until(() => $<HTMLButtonElement>(root, 'button[aria-label="4 of 5"]'));
    expect(star.textContent).toBe('☆');
    click(star);
    // Chosen stars are filled, the others outlined: not colour alone.
    await until(() => expect(star.getAttribute('aria-pressed')).toBe('true'));
    expect([...root.querySelectorAll('.star')].map((b) => b.textContent).join('')).toBe('★★★★☆');
    type($(root, '#tk-rate-comment'), 'Quick and kind.');
    click(byText(root, 'button', 'Send rating'));
    await until(() => byText(root, '[role="status"] p', 'Thank you for your rating!'));
    expect(byText(root, 'p', 'You rated this 4 of 5.')).toBeTruthy();
    expect((await support(s, 'GET', `/ticket?id=${id}`)).body.rating).toMatchObject({
      score: 4,
      comment: 'Quick and kind.',
    });
    expect(events).toEqual(['reply', 'rated']);
    // Closed is no dead end: "I still need help" writes on, and the reply reopens the ticket.
    const again = await until(() => $<HTMLTextAreaElement>(root, '#tk-reply'));
    expect(byText(root, 'label[for="tk-reply"]', /^I still need help/)).toBeTruthy();
    type(again, 'The new lid leaks too.');
    click(byText(root, 'button', 'Reply'));
    await until(() => byText(root, '.msg.mine', /The new lid leaks too\./));
    const reopened = (await support(s, 'GET', `/ticket?id=${id}`)).body;
    expect(reopened.status).toBe('open');
    expect(reopened.replies.at(-1)).toMatchObject({ message: 'The new lid leaks too.', from_customer: true });
    await until(() => byText(root, 'p', /Status: Open/));
  });

  it("lists support's files with their sizes and shows images as thumbnails, fetched with the key", async () => {
    const id = await ticketFromThisBrowser('Which lid?');
    const reply = await support(s, 'POST', '/reply', { ticket_id: id, message: 'Is it this one?', author: 'Grace' });
    const replyId = reply.body.replies[0].id as string;
    const png = await supportUpload(
      s,
      { ticket_id: id, reply_id: replyId },
      {
        name: 'lid.png',
        data: PNG_1PX,
        type: 'image/png',
      },
    );
    expect(png.status).toBe(201);
    const sheet = Buffer.from('size,colour\nM,blue\n');
    expect(
      (
        await supportUpload(
          s,
          { ticket_id: id, reply_id: replyId },
          { name: 'sizes.csv', data: sheet, type: 'text/csv' },
        )
      ).status,
    ).toBe(201);
    const root = await open();
    click(await until(() => byText(root, '.item', /Which lid\?/)));
    const theirs = await until(() => byText(root, '.msg.theirs', /Is it this one\?/));
    const files = [...theirs.querySelectorAll('.file')];
    expect(files.map((f) => [f.querySelector('.name')!.textContent, f.querySelector('.size')!.textContent])).toEqual([
      ['lid.png', `${PNG_1PX.length} bytes`],
      ['sizes.csv', '19 bytes'],
    ]);
    // The thumbnail is an object URL of the bytes the server holds; only images get one.
    const img = await until(() => $<HTMLImageElement>(files[0]!, 'img.thumb'));
    expect(img.src).toMatch(/^blob:/);
    const blob = resolveObjectURL(img.src)!;
    expect(Buffer.from(await blob.arrayBuffer()).equals(PNG_1PX)).toBe(true);
    expect(files[1]!.querySelector('img')).toBeNull();
  });

  it("forgets this browser's tickets on request, and their drafts with them", async () => {
    const id = await ticketFromThisBrowser();
    localStorage.setItem(
      `ticketing:drafts:${s.keys.pk}`,
      JSON.stringify({
        new: { subject: 'Another' },
        replies: { [id]: 'Unsent', tkt_gone: 'Of a ticket forgotten before' },
      }),
    );
    const root = await open();
    // A draft of a ticket this browser no longer remembers is dropped on start.
    expect(JSON.parse(localStorage.getItem(`ticketing:drafts:${s.keys.pk}`)!).replies).toEqual({ [id]: 'Unsent' });
    click(await until(() => byText(root, 'button', /Forget these tickets/)));
    await until(() => byText(root, 'p', 'No tickets from this browser yet.'));
    expect(localStorage.getItem(`ticketing:tickets:${s.keys.pk}`)).toBeNull();
    expect(localStorage.getItem(`ticketing:drafts:${s.keys.pk}`)).toBeNull();
  });
});

describe('the panel', () => {
  it('follows a click made the moment it shows, before its effects have run', async () => {
    const root = await open();
    w!.handle.close();
    await until(() => expect(root.querySelector('[role="dialog"]')).toBeNull());
    // 'open' is emitted right after the panel is drawn again: the click comes before any effect.
    w!.handle.on('open', () => click(byText(root, 'button', 'New ticket')));
    w!.handle.open();
    await until(() => $(root, '#tk-subject'));
  });
});

describe('configuration', () => {
  it('shows the shop’s own words in the visitor’s language where given, else as written', async () => {
    await support(s, 'POST', '/admin?r=design', {
      title: 'Teapot Shop',
      greeting: 'Hello!',
      launcher_label: 'Help',
      translations: { fr: { title: 'La Théière', greeting: 'Bonjour !', launcher_label: 'Aide' } },
    });
    const { body } = await support(s, 'GET', '/admin?r=categories');
    await support(s, 'POST', '/admin?r=categories', {
      categories: body.categories.map((c: { id: string }) =>
        c.id === 'orders'
          ? { ...c, translations: { fr: { name: 'Commandes', fields: { order_id: { label: 'Numéro de commande' } } } } }
          : c,
      ),
    });
    document.documentElement.lang = 'fr';
    try {
      const root = await open();
      expect($(root, '#tk-title').textContent).toBe('La Théière');
      expect(byText(root, 'p', 'Bonjour !')).toBeTruthy();
      expect($(w!.root, 'button.launcher').getAttribute('aria-label')).toBe('Aide');
      click(byText(root, 'button', 'Nouvelle demande'));
      const select = await until(() => $<HTMLSelectElement>(root, '#tk-category'));
      expect([...select.options].map((o) => o.textContent)).toEqual(['Choisissez un sujet', 'Commandes', 'Other']);
      fireEvent.change(select, { target: { value: 'orders' } });
      expect((await until(() => $(root, 'label[for="tk-f-order_id"]'))).textContent).toMatch(/^Numéro de commande/);
      // In English (no translation given) the words stay as written.
      w!.handle.destroy();
      document.documentElement.lang = 'en';
      const en = await open();
      expect($(en, '#tk-title').textContent).toBe('Teapot Shop');
      expect($(w!.root, 'button.launcher').getAttribute('aria-label')).toBe('Help');
    } finally {
      document.documentElement.lang = '';
      await support(s, 'POST', '/admin?r=design', {});
      await support(s, 'POST', '/admin?r=categories', body);
    }
  });

  it('speaks German, follows the theme, and says when support is back', async () => {
    await support(s, 'POST', '/admin?r=design', { locale: 'de', theme: 'dark', title: 'Hilfe' });
    await support(s, 'POST', '/admin?r=business_hours', {
      timezone: 'UTC',
      days: { mon: [{ open: '00:00', close: '00:01' }] },
    });
    // A visitor whose page and browser name none of the widget's languages: the configured one.
    const languages = (list: string[]) =>
      Object.defineProperty(navigator, 'languages', { value: list, configurable: true });
    languages(['pt-BR', 'pt']);
    try {
      const root = await open();
      expect($(root, '[role="dialog"]').className).toBe('tk dark');
      expect($(root, '[role="dialog"]').getAttribute('lang')).toBe('de');
      expect(byText(root, 'button', 'Neue Anfrage')).toBeTruthy();
      expect($(root, '#tk-title').textContent).toBe('Hilfe');
      expect($(root, '.notice[role="status"]').textContent).toMatch(/Wir sind gerade nicht erreichbar.*am /);
      // The page's <html lang> wins over the configured language, then the browser's (fr-CA is French).
      w!.handle.destroy();
      document.documentElement.lang = 'es-MX';
      let again = await open();
      expect($(again, '[role="dialog"]').getAttribute('lang')).toBe('es');
      w!.handle.destroy();
      document.documentElement.lang = '';
      languages(['pt-BR', 'fr-CA', 'de']);
      again = await open();
      expect($(again, '[role="dialog"]').getAttribute('lang')).toBe('fr');
      expect(byText(again, 'button', 'Nouvelle demande')).toBeTruthy();
      // data-locale wins over both.
      w!.handle.destroy();
      again = await open({ locale: 'de' });
      expect($(again, '[role="dialog"]').getAttribute('lang')).toBe('de');
    } finally {
      document.documentElement.lang = '';
      delete (navigator as { languages?: unknown }).languages;
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
