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
export async function startStack(options: { demo?: boolean } = {}): Promise<Stack> {
  if (!existsSync(CHROMIUM))
    throw new Error(`No Chromium at ${CHROMIUM}: install Debian's chromium package or set CHROMIUM_PATH`);
  const api = await startServer({ env: { TICKETING_SCHEDULER_SECONDS: '0' }, demo: options.demo });
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

const PASSWORD = 'correct horse battery staple';

export interface TestAgent {
  id: string;
  name: string;
  email: string;
  password: string;
}

let seq = 0;
/** A new agent with a password, made in /admin?r=agents with the test server's secret key. */
export async function makeAgent(stack: Stack, over: Record<string, unknown> = {}): Promise<TestAgent> {
  seq++;
  const json = {
    name: `Grace Hopper ${seq}`,
    email: `grace${seq}@shop.example`,
    password: PASSWORD,
    role: 'admin',
    ...over,
  };
  const res = await stack.api.call('POST', '/admin?r=agents', { json });
  if (res.status !== 201) throw new Error(`creating an agent: ${res.status} ${res.text}`);
  return { ...(res.body.agent as { id: string; name: string; email: string }), password: json.password as string };
}

/** Signs in through the console's email and password form. */
export async function signIn(page: Page, agent: { email: string; password: string }) {
  await page.getByLabel('Email').fill(agent.email);
  await page.getByLabel('Password', { exact: true }).fill(agent.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}
