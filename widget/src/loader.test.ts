import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { readOptions } from './options.js';
import { server, until, type TestServer } from './test-support/widget.js';

// The page-facing global is loosely typed on purpose: the tests call it as a page script would.
type Global = Window & { Ticketing?: any };
const w = window as Global;
let s: TestServer;
let errors: string[] = [];
const originalError = console.error;

beforeAll(async () => {
  s = await server();
});
afterAll(() => s.close());
afterEach(() => {
  (w.Ticketing?.destroy as (() => void) | undefined)?.();
  delete w.Ticketing;
  console.error = originalError;
  errors = [];
});

/** Runs widget.js's code as a page would, with `data` on its script tag. */
async function load(data: Record<string, string>) {
  console.error = (...args: unknown[]) => errors.push(args.map(String).join(' '));
  const script = document.createElement('script');
  script.src = `${s.url}/widget.js`;
  Object.assign(script.dataset, data);
  // Not appended: the loader reads document.currentScript, and happy-dom would try to fetch it.
  Object.defineProperty(document, 'currentScript', { value: script, configurable: true });
  vi.resetModules();
  await import('./loader.js');
}

describe('data attributes', () => {
  const src = 'https://support.example.com/widget.js';
  const key = `pk_live_${'a'.repeat(24)}`;
  it('reads the key, the API base (the script origin by default) and the options', () => {
    expect(readOptions({ dataset: { key }, src })).toEqual({ key, api: 'https://support.example.com/v1' });
    expect(
      readOptions({
        dataset: { key, api: 'http://127.0.0.1:3000/v1/', open: 'true', locale: 'de', position: 'bottom-left' },
        src,
      }),
    ).toEqual({
      key,
      api: 'http://127.0.0.1:3000/v1',
      open: true,
      locale: 'de',
      position: 'bottom-left',
    });
    expect(readOptions({ dataset: { key, position: 'top' }, src })).toEqual({
      key,
      api: 'https://support.example.com/v1',
    });
    expect(readOptions({ dataset: {}, src })).toHaveProperty('error');
    // data-design: a JSON object of design fields; anything else is ignored, not an error.
    expect(readOptions({ dataset: { key, design: '{"title":"Preview"}' }, src })).toEqual({
      key,
      api: 'https://support.example.com/v1',
      design: { title: 'Preview' },
    });
    expect(readOptions({ dataset: { key, design: '{title' }, src })).toEqual({
      key,
      api: 'https://support.example.com/v1',
    });
  });
});

describe('widget.js', () => {
  it('installs window.Ticketing and replays the calls queued before it arrived', async () => {
    const heard: string[] = [];
    // The snippet of WIDGET.md: calls before the script loads go to a queue.
    w.Ticketing = Object.assign((...args: unknown[]) => (w.Ticketing!.q as unknown[][]).push(args), {
      q: [] as unknown[][],
    });
    w.Ticketing('on', 'ready', () => heard.push('ready'));
    w.Ticketing('identify', { name: 'Ada', email: 'ada@example.com' });
    await load({ key: s.keys.pk });
    await until(() => expect(heard).toEqual(['ready']));
    expect(typeof w.Ticketing.open).toBe('function');
    expect(typeof w.Ticketing.destroy).toBe('function');
    expect(document.querySelectorAll('[data-ticketing]')).toHaveLength(1);
    // Both call styles work after loading.
    w.Ticketing('on', 'close', () => heard.push('close'));
    expect(errors).toEqual([]);
    w.Ticketing('frobnicate');
    expect(errors.join()).toMatch(/\[ticketing\] unknown command "frobnicate"/);
  });

  it('refuses a secret key with a console message and does not start', async () => {
    await load({ key: s.keys.sk });
    expect(errors.join()).toMatch(/\[ticketing\] data-key holds a secret key/);
    expect(document.querySelector('[data-ticketing]')).toBeNull();
    expect(w.Ticketing).toBeUndefined();
  });

  it('mounts once when the script is loaded twice', async () => {
    await load({ key: s.keys.pk });
    const first = w.Ticketing;
    await until(() => expect(document.querySelectorAll('[data-ticketing]')).toHaveLength(1));
    await load({ key: s.keys.pk });
    expect(w.Ticketing).toBe(first);
    expect(document.querySelectorAll('[data-ticketing]')).toHaveLength(1);
  });

  it('destroy() leaves nothing behind: no element, no global', async () => {
    const before = Object.keys(window).length;
    await load({ key: s.keys.pk });
    await until(() =>
      expect(document.querySelector('[data-ticketing]')!.shadowRoot!.querySelector('button')).not.toBeNull(),
    );
    (w.Ticketing!.destroy as () => void)();
    expect(document.querySelector('[data-ticketing]')).toBeNull();
    expect(w.Ticketing).toBeUndefined();
    expect(Object.keys(window).length).toBe(before);
    expect(document.cookie).toBe('');
  });

  it('reports a panel that cannot be loaded as an error, without throwing into the page', async () => {
    const seen: unknown[] = [];
    await load({ key: s.keys.pk, open: 'true' });
    (w.Ticketing!.on as (e: string, f: (d: unknown) => void) => void)('error', (d) => seen.push(d));
    // The test build names a panel file that does not exist.
    await until(() => expect(errors.join()).toMatch(/\[ticketing\] could not load the panel/));
    expect(seen).toHaveLength(1);
  });
});
