import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { $, mountWidget, server, support, until, type Mounted, type TestServer } from './test-support/widget.js';

let s: TestServer;
let w: Mounted | undefined;
beforeAll(async () => {
  s = await server();
});
afterAll(() => s.close());
afterEach(() => {
  w?.handle.destroy();
  w = undefined;
});

describe('the launcher', () => {
  it('appears once the configuration has arrived, labelled, coloured and placed from the design', async () => {
    await support(s, 'POST', '/admin?r=design', {
      primary_color: '#fde047',
      position: 'bottom-left',
      launcher_label: null,
    });
    w = mountWidget(s);
    // Nothing in the page until /widget-config has answered; then everything at once.
    expect(document.querySelector('[data-ticketing]')).toBeNull();
    const button = await until(() => $<HTMLButtonElement>(w!.root, 'button.launcher'));
    expect(button.hidden).toBe(false);
    expect(button.getAttribute('aria-label')).toBe('Contact support');
    expect(button.getAttribute('aria-expanded')).toBe('false');
    expect(w.host.getAttribute('data-position')).toBe('bottom-left');
    expect(w.root.adoptedStyleSheets.length).toBe(1);
    // The colours travel in the launcher's own sheet, not in a style attribute on the page's element.
    const rules = [...w.root.adoptedStyleSheets[0]!.cssRules].map((r) => r.cssText).join('\n');
    expect(rules).toMatch(/--tk-primary:\s*#fde047/);
    expect(rules).toMatch(/--tk-on-primary:\s*#000/); // dark text on yellow
    expect(w.host.getAttribute('style')).toBeNull();
    expect(document.querySelectorAll('style').length).toBe(0); // no global CSS
    await support(s, 'POST', '/admin?r=design', {});
  });

  it('speaks German, and data-position and data-locale override the design', async () => {
    await support(s, 'POST', '/admin?r=design', { locale: 'de' });
    // The configured language is for a visitor whose browser asks for none of the widget's languages.
    Object.defineProperty(navigator, 'languages', { value: ['pt-BR'], configurable: true });
    w = mountWidget(s);
    await until(() => expect($(w!.root, 'button.launcher').getAttribute('aria-label')).toBe('Support kontaktieren'));
    w.handle.destroy();
    // The page's own language comes first.
    document.documentElement.lang = 'fr';
    w = mountWidget(s);
    await until(() => expect($(w!.root, 'button.launcher').getAttribute('aria-label')).toBe('Contacter le support'));
    w.handle.destroy();
    document.documentElement.lang = '';
    delete (navigator as { languages?: unknown }).languages;
    w = mountWidget(s, { locale: 'en', position: 'bottom-left' });
    await until(() => expect($(w!.root, 'button.launcher').getAttribute('aria-label')).toBe('Contact support'));
    expect(w.host.getAttribute('data-position')).toBe('bottom-left');
    await support(s, 'POST', '/admin?r=design', {});
  });

  it('a design override (the console preview, data-design) wins over the stored design on this page only', async () => {
    await support(s, 'POST', '/admin?r=design', { primary_color: '#fde047', launcher_label: 'Stored label' });
    w = mountWidget(s, {
      design: { primary_color: '#1e3a8a', launcher_label: 'Preview label', position: 'bottom-left' },
    });
    const button = await until(() => $<HTMLButtonElement>(w!.root, 'button.launcher'));
    expect(button.getAttribute('aria-label')).toBe('Preview label');
    expect(w.host.getAttribute('data-position')).toBe('bottom-left');
    const rules = [...w.root.adoptedStyleSheets[0]!.cssRules].map((r) => r.cssText).join('\n');
    expect(rules).toMatch(/--tk-primary:\s*#1e3a8a/);
    expect(rules).toMatch(/--tk-on-primary:\s*#fff/);
    // Nothing was stored: the portal's design is as it was.
    const stored = await support(s, 'GET', '/admin?r=design');
    expect(stored.body.design.launcher_label).toBe('Stored label');
    await support(s, 'POST', '/admin?r=design', {});
  });

  it('loads the panel on first open, not before; prefetches it on hover', async () => {
    const events: string[] = [];
    w = mountWidget(s);
    w.handle.on('ready', () => events.push('ready'));
    w.handle.on('open', () => events.push('open'));
    w.handle.on('close', () => events.push('close'));
    await until(() => expect(events).toEqual(['ready']));
    const button = $<HTMLButtonElement>(w.root, 'button.launcher');
    expect(w.loads()).toBe(0);
    button.dispatchEvent(new Event('mouseenter'));
    expect(w.loads()).toBe(1);
    button.click();
    const dialog = await until(() => $(w!.root, '[role="dialog"]'));
    expect(w.loads()).toBe(1);
    expect(dialog.getAttribute('aria-labelledby')).toBe('tk-title');
    expect($(w.root, '#tk-title').textContent).toBe('Support');
    expect(button.getAttribute('aria-expanded')).toBe('true');
    expect(events).toEqual(['ready', 'open']);
    // Focus moved into the dialog.
    await until(() => expect(dialog.contains(w!.root.activeElement)).toBe(true));
    // Escape closes, and focus goes back to the launcher.
    dialog.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    await until(() => expect(w!.root.querySelector('[role="dialog"]')).toBeNull());
    expect(w.root.activeElement).toBe(button);
    expect(button.getAttribute('aria-expanded')).toBe('false');
    expect(events).toEqual(['ready', 'open', 'close']);
    w.handle.toggle();
    await until(() => $(w!.root, '[role="dialog"]'));
    w.handle.toggle();
    await until(() => expect(w!.root.querySelector('[role="dialog"]')).toBeNull());
  });

  it('opens on load with open: true, and an unsubscribed handler hears nothing', async () => {
    let opens = 0;
    w = mountWidget(s, { open: true });
    const off = w.handle.on('open', () => opens++);
    off();
    await until(() => $(w!.root, '[role="dialog"]'));
    expect(opens).toBe(0);
  });

  it('says what went wrong with a bad key, and shows nothing', async () => {
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args.join(' '));
    try {
      w = mountWidget(s, { key: `pk_live_${'x'.repeat(30)}` });
      await until(() => expect(errors.join('\n')).toMatch(/\[ticketing\] could not start/));
      expect(document.querySelector('[data-ticketing]')).toBeNull();
    } finally {
      console.error = original;
    }
  });

  it('draws from the design widget.js carries before any request, and asks for the rest with the panel', async () => {
    const stored = { ...(await support(s, 'GET', '/admin?r=design')).body.design, launcher_label: 'Carried label' };
    // Nothing answers at this address: the launcher needs no request.
    w = mountWidget(s, { api: 'http://127.0.0.1:9/v1' }, stored);
    await Promise.resolve(); // drawn in a microtask, after the page's queued calls
    const button = $<HTMLButtonElement>(w.root, 'button.launcher');
    expect(button.getAttribute('aria-label')).toBe('Carried label');
    w.handle.destroy();

    const events: string[] = [];
    w = mountWidget(s, {}, stored);
    w.handle.on('ready', () => events.push('ready'));
    await until(() => expect(events).toEqual(['ready']));
    w.handle.open();
    // The form's categories come from /widget-config, asked for now.
    const dialog = await until(() => $(w!.root, '[role="dialog"]'));
    expect($(dialog, '#tk-title').textContent).toBe('Support');
  });

  it('goes away when the server refuses the key it was drawn for', async () => {
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args.join(' '));
    try {
      const stored = (await support(s, 'GET', '/admin?r=design')).body.design;
      w = mountWidget(s, { key: `pk_live_${'x'.repeat(30)}` }, stored);
      await until(() => $(w!.root, 'button.launcher'));
      w.handle.open();
      await until(() => expect(errors.join('\n')).toMatch(/\[ticketing\] could not start.*401/));
      expect(document.querySelector('[data-ticketing]')).toBeNull();
    } finally {
      console.error = original;
    }
  });

  it('keeps the launcher when the configuration fails for another reason, and asks again at the next click', async () => {
    const real = (await support(s, 'GET', '/widget-config', undefined, s.keys.pk)).body;
    let asked = 0;
    // A server in the middle of a restart: 503 once, then the configuration.
    const flaky = createServer((req, res) => {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Access-Control-Allow-Headers', 'Authorization');
      if (req.method === 'OPTIONS') return res.writeHead(204).end();
      res.setHeader('Content-Type', 'application/json');
      // Only the configuration is counted (and flaky): the home's article list asks /kb.
      if (!req.url?.includes('/widget-config')) return res.end('{"data":[]}');
      if (++asked === 1) return res.writeHead(503).end('{"error":{"code":"unavailable","message":"Restarting"}}');
      res.end(JSON.stringify(real));
    });
    await new Promise<void>((ok) => flaky.listen(0, '127.0.0.1', ok));
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args.join(' '));
    try {
      const { port } = flaky.address() as AddressInfo;
      w = mountWidget(s, { api: `http://127.0.0.1:${port}/v1` }, real.design);
      await until(() => $(w!.root, 'button.launcher'));
      w.handle.open();
      await until(() => expect(errors.join('\n')).toMatch(/could not start.*503/));
      expect($(w.root, 'button.launcher')).toBeTruthy(); // still there
      w.handle.open();
      await until(() => $(w!.root, '[role="dialog"]'));
      expect(asked).toBe(2);
    } finally {
      console.error = original;
      flaky.close();
    }
  });

  it('destroy() removes every node, listener and timer', async () => {
    w = mountWidget(s, { open: true });
    await until(() => $(w!.root, '[role="dialog"]'));
    const before = document.body.children.length;
    w.handle.destroy();
    expect(document.querySelector('[data-ticketing]')).toBeNull();
    expect(document.body.children.length).toBe(before - 1);
    let heard = 0;
    w.handle.on('open', () => heard++);
    w.handle.open(); // after destroy: nothing happens
    // The panel's code is loaded (it was open), so what open() could start runs in microtasks, all
    // done before the next task.
    await new Promise((r) => setTimeout(r, 0));
    expect(document.querySelector('[data-ticketing]')).toBeNull();
    expect(heard).toBe(0);
    w = undefined;
  });
});
