import { existsSync, mkdirSync } from 'node:fs';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startServer, type TestServer } from '@ticketing/server/test-support';
import { startMailServer } from '@ticketing/server/test-support/mail-in';
// One launch recipe for every browser run (demo-site's tests, the console's, the benchmark).
import { CHROMIUM, CHROMIUM_ARGS } from '../../demo-site/tests/chromium.js';

export const SHOTS = new URL('../screenshots/', import.meta.url).pathname;

/** Every answer of 400 or more the page gets from now on: a walk as role `agent` expects none. */
export function refusals(page: Page) {
  const refused: string[] = [];
  page.on('response', (r) => {
    if (r.status() >= 400) refused.push(`${r.status()} ${r.request().method()} ${r.url()}`);
  });
  return refused;
}

export interface Stack {
  api: TestServer;
  /** The built-in mail receiver's SMTP port (`mail: true`). */
  mailPort?: number;
  browser: Browser;
  close(): Promise<void>;
}

/**
 * The real server (serving console/dist) and a browser. `mail`: with mail in and out set up (mail-in.ts
 * of the server's test support), for messages that arrive by mail.
 */
export async function startStack(options: { demo?: boolean; clock?: () => Date; mail?: boolean } = {}): Promise<Stack> {
  if (!existsSync(CHROMIUM))
    throw new Error(`No Chromium at ${CHROMIUM}: install Debian's chromium package or set CHROMIUM_PATH`);
  const env = { TICKETING_SCHEDULER_SECONDS: '0' };
  const mail = options.mail ? await startMailServer({ env }) : undefined;
  const api =
    mail?.s ?? (await startServer({ env, demo: options.demo, ...(options.clock ? { clock: options.clock } : {}) }));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  mkdirSync(SHOTS, { recursive: true });
  return {
    api,
    ...(mail ? { mailPort: mail.port } : {}),
    browser,
    async close() {
      await browser.close();
      await (mail ?? api).close();
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

/** axe's own script, as the page runs it. */
const AXE_SOURCE = axe.source;
/** The WCAG 2.0 / 2.1 A and AA rules of axe. */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * axe-core's findings of serious or critical impact on what the page shows now, one line per rule and
 * element. axe goes in through the DevTools protocol (page.evaluate), which the console's CSP does
 * not govern, so the page is checked under its real policy; a page keeps it until it reloads.
 */
export async function axeFindings(page: Page): Promise<string[]> {
  if ((await page.evaluate('typeof window.axe')) === 'undefined') await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (tags) => {
    type Node = { target: string[]; failureSummary?: string };
    type Violation = { id: string; impact: string; help: string; nodes: Node[] };
    const axe = (window as unknown as { axe: { run(...a: unknown[]): Promise<{ violations: Violation[] }> } }).axe;
    const { violations } = await axe.run(document, {
      runOnly: { type: 'tag', values: tags },
      resultTypes: ['violations'],
    });
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .flatMap((v) =>
        v.nodes.map(
          (n) => `${v.id} (${v.impact}): ${n.target.join(' ')}: ${(n.failureSummary ?? v.help).replace(/\s+/g, ' ')}`,
        ),
      );
  }, AXE_TAGS);
}
