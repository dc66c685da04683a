import { request } from 'node:http';
import { fireEvent, waitFor } from '@testing-library/preact';
import { startServer, type TestServer } from '@ticketing/server/test-support';
import { createWidget } from '../host.js';
import type { TicketingHandle, WidgetConfig, WidgetOptions } from '../types.js';

export type { TestServer };

/** A real Ticketing server on loopback with a fresh data directory, for the widget to talk to. */
export async function server(): Promise<TestServer> {
  return startServer();
}

export interface Mounted {
  handle: TicketingHandle;
  /** The host element and its shadow root, once /widget-config has answered (they throw before). */
  readonly host: HTMLElement;
  readonly root: ShadowRoot;
  /** How often the panel module was requested. */
  loads: () => number;
  /** How often the unread watcher (watch.ts) was requested. */
  watchLoads: () => number;
}

/** Mounts the widget as the loader does, with the panel imported from source. */
/** `stored`: the design the server writes into the widget.js it serves (widget-loader.ts); none by default. */
export function mountWidget(
  s: TestServer,
  options: Partial<WidgetOptions> = {},
  stored?: WidgetConfig['design'],
): Mounted {
  let loads = 0;
  let watchLoads = 0;
  const handle = createWidget(
    { key: s.keys.pk, api: s.base, ...options },
    () => {
      loads++;
      return import('../panel/panel.js');
    },
    () => {
      watchLoads++;
      return import('../watch.js');
    },
    stored,
  );
  const host = () => $<HTMLElement>(document, '[data-ticketing]');
  return {
    handle,
    get host() {
      return host();
    },
    get root() {
      return host().shadowRoot!;
    },
    loads: () => loads,
    watchLoads: () => watchLoads,
  };
}

/** Resolves when `check` stops throwing (DOM updates after real network round trips). */
export const until = <T>(check: () => T, ms = 5000): Promise<T> => waitFor(check, { timeout: ms });

export const $ = <T extends Element = HTMLElement>(root: ParentNode, selector: string) => {
  const el = root.querySelector<T>(selector);
  if (!el) throw new Error(`no ${selector}`);
  return el;
};

/** Types into an input as a person does: the value changes, then an input event. */
export const type = (el: HTMLInputElement | HTMLTextAreaElement, value: string) =>
  fireEvent.input(el, { target: { value } });

/** The element matching `selector` whose text is `text` (or matches it), searched inside the shadow root. */
export function byText(root: ShadowRoot | ParentNode, selector: string, text: string | RegExp): HTMLElement {
  const all = [...root.querySelectorAll<HTMLElement>(selector)];
  const found = all.filter((el) => {
    const own = (el.textContent ?? '').trim().replace(/\s+/g, ' ');
    return typeof text === 'string' ? own === text : text.test(own);
  });
  if (found.length !== 1)
    throw new Error(
      `${found.length} ${selector} with text ${String(text)}; texts: ${JSON.stringify(all.map((el) => el.textContent))}`,
    );
  return found[0]!;
}

/**
 * Support's side of a test (a secret key, /admin, /reply as support), over node:http: the page's
 * fetch (happy-dom's) enforces CORS, and endpoints for secret keys rightly send no CORS headers.
 */
export function support(
  s: TestServer,
  method: string,
  path: string,
  json?: unknown,
  key = s.keys.sk,
): Promise<{ status: number; body: any }> {
  return new Promise((ok, fail) => {
    const body = json === undefined ? undefined : JSON.stringify(json);
    const req = request(`${s.base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => ok({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

/** Support attaches a file (multipart POST /upload with the secret key), as support's tools do. */
export function supportUpload(
  s: TestServer,
  fields: Record<string, string>,
  file: { name: string; data: Buffer; type: string },
): Promise<{ status: number; body: any }> {
  const boundary = `----ticketing${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`,
    ),
    file.data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  const body = Buffer.concat(parts);
  return new Promise((ok, fail) => {
    const req = request(`${s.base}/upload`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${s.keys.sk}`, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => ok({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', fail);
    req.end(body);
  });
}
