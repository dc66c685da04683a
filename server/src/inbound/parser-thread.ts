import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { ParsedInbound } from './parse-mail.js';

/** A mail the parser thread could not parse: too slow, out of memory, crashed or refused by the parser. */
export class MailParseFailed extends Error {}

/**
 * The parser thread's heap and stack: a 25 MB mail parses in well under the heap; a mail built to
 * exhaust either ends the thread (an out-of-memory or stack overflow there), not the server.
 */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 };

/**
 * Mail is parsed in a worker thread, never on the event loop that answers HTTP (issue 28: one mail
 * stalled every request for a minute). One thread, one mail at a time, each with a deadline: past it,
 * or when the thread dies (memory, stack), the mail fails at once with the reason, and the next mail
 * gets a new thread.
 */
export class ParserThread {
  private worker: Promise<Worker> | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {}

  /** Parses one mail; rejects with MailParseFailed for a mail that cannot be parsed in time or at all. */
  parse(raw: Buffer): Promise<ParsedInbound> {
    const run = this.queue.then(() => this.run(raw));
    this.queue = run.catch(() => {});
    return run;
  }

  async close() {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.then((w) => w.terminate()).catch(() => {});
  }

  /** The thread, started when none runs: replaced once it has died or was ended. */
  private thread(): Promise<Worker> {
    if (this.worker) return this.worker;
    const started = start().then((w) => {
      // Failures while a mail is parsed are reported by run(); an idle thread's are only noted.
      w.on('error', () => {});
      w.once('exit', () => {
        if (this.worker === started) this.worker = undefined;
      });
      return w;
    });
    this.worker = started;
    started.catch(() => {
      if (this.worker === started) this.worker = undefined;
    });
    return started;
  }

  private async run(raw: Buffer): Promise<ParsedInbound> {
    const worker = await this.thread();
    return new Promise<ParsedInbound>((ok, fail) => {
      const finish = () => {
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      };
      // A thread that failed, or was ended for taking too long, is not used again. Mails run one at a
      // time, so the thread in use is this one.
      const drop = () => {
        this.worker = undefined;
        void worker.terminate();
      };
      const timer = setTimeout(() => {
        finish();
        drop();
        this.logger.warn({ ms: this.timeoutMs }, 'mail in: parsing took too long; the parser thread was ended');
        fail(new MailParseFailed(`parsing the mail took longer than ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      const onMessage = (m: { parsed?: ParsedInbound; error?: string }) => {
        finish();
        if (m.parsed) ok(m.parsed);
        else fail(new MailParseFailed(`the mail could not be parsed: ${m.error ?? 'no reason given'}`));
      };
      const onError = (err: Error) => {
        finish();
        drop();
        fail(new MailParseFailed(`the parser thread failed on this mail: ${err.message}`));
      };
      const onExit = (code: number) => {
        finish();
        drop();
        fail(new MailParseFailed(`the parser thread stopped on this mail (exit code ${code})`));
      };
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      worker.postMessage(raw);
    });
  }
}

/**
 * A new parser thread, resolved once it has loaded the parsers. Built, it runs parse-worker.js; under
 * the tests, parse-worker.ts, loaded through tsx's loader.
 */
function start(): Promise<Worker> {
  const own = import.meta.url;
  const ts = own.endsWith('.ts');
  const entry = new URL(`./parse-worker.${ts ? 'ts' : 'js'}`, own).href;
  const worker = ts
    ? new Worker(
        `import(${JSON.stringify(tsxApi())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`,
        { eval: true, resourceLimits: RESOURCE_LIMITS },
      )
    : new Worker(new URL(entry), { resourceLimits: RESOURCE_LIMITS });
  // An idle thread does not keep the process alive.
  worker.unref();
  return new Promise((ok, fail) => {
    const onError = (err: Error) => fail(err);
    const onExit = (code: number) => fail(new Error(`the parser thread stopped while starting (exit code ${code})`));
    worker.once('error', onError).once('exit', onExit);
    worker.once('message', () => {
      worker.off('error', onError).off('exit', onExit);
      ok(worker);
    });
  });
}

/** tsx's ESM API (a devDependency: only the tests run .ts files). */
function tsxApi(): string {
  const cjs = createRequire(import.meta.url).resolve('tsx/esm/api');
  return pathToFileURL(cjs.replace(/\.cjs$/, '.mjs')).href;
}
