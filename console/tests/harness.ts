import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startServer, type TestServer } from '@ticketing/server/test-support';
// One launch recipe for every browser run (demo-site's tests, the console's, the benchmark).
import { CHROMIUM, CHROMIUM_ARGS } from '../../demo-site/tests/chromium.js';

export const SHOTS = new URL('../screenshots/', import.meta.url).pathname;

export interface Stack {
  api: TestServer;
  browser: Browser;
  close(): Promise<void>;
}

/** The real server (serving console/dist) and a browser. */
export async function startStack(): Promise<Stack> {
  if (!existsSync(CHROMIUM))
    throw new Error(`No Chromium at ${CHROMIUM}: install Debian's chromium package or set CHROMIUM_PATH`);
  const api = await startServer({ env: { TICKETING_SCHEDULER_SECONDS: '0' } });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  mkdirSync(SHOTS, { recursive: true });
  return {
    api,
    browser,
    async close() {
      await browser.close();
      await api.close();
    },
  };
}

export interface Opened {
  page: Page;
  /** Uncaught errors and CSP violations of the page: none is expected. */
  errors: string[];
  close(): Promise<void>;
}

/** A fresh context at `path` of the console, watching for page errors and refused (CSP) loads. */
export async function openConsole(stack: Stack, path = '/console/', width = 1280): Promise<Opened> {
  const context = await stack.browser.newContext({ viewport: { width, height: width > 600 ? 800 : 844 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused/i.test(m.text())) errors.push(m.text());
  });
  await page.goto(`${stack.api.url}${path}`);
  return { page, errors, close: () => context.close() };
}

/** Signs in with the server's live secret key (the sign-in screen's key form, behind its switch). */
export async function signInWithKey(page: Page, key: string) {
  const field = page.getByLabel('Secret key');
  const useKey = page.getByRole('button', { name: 'Use a secret key' });
  await Promise.race([field.waitFor(), useKey.waitFor()]);
  if (!(await field.isVisible())) await useKey.click();
  await field.fill(key);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}
