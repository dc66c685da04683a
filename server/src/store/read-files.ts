import * as fs from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** Files read one after another into one buffer: their names, and where each one's bytes end. */
export class FileBatch {
  constructor(
    readonly names: string[],
    /** The end of each file's bytes in `data`; -1 when the file could not be read. */
    private readonly ends: number[],
    private readonly data: Buffer,
  ) {}

  /** The file's text (UTF-8), or undefined when it could not be read. */
  text(i: number): string | undefined {
    const end = this.ends[i]!;
    if (end < 0) return undefined;
    let start = 0;
    for (let j = i - 1; j >= 0; j--)
      if (this.ends[j]! >= 0) {
        start = this.ends[j]!;
        break;
      }
    return this.data.toString('utf8', start, end);
  }
}

/** A batch holds about this much, so a million files never sit in memory at once. */
const BATCH_BYTES = 1 << 20;
/** Batches the reading thread may be ahead of the parsing one. */
const AHEAD = 8;
/** Below this many files, a second thread costs more to start (some 30 ms) than it saves. */
const PARALLEL_FROM = 2000;

/**
 * Reads files of `list` from `i` on into `data` until it is half full (open, read, close into one
 * buffer: no fstat), growing it for a large file. Plain JavaScript with no imports (`fs` is passed):
 * the reading thread runs this very function's source.
 */
function fillBatch(
  fs: Pick<typeof import('node:fs'), 'openSync' | 'readSync' | 'closeSync'>,
  dir: string,
  list: string[],
  i: number,
  data: Buffer,
  batchBytes: number,
) {
  let length = 0;
  const batch: string[] = [];
  const ends: number[] = [];
  while (i < list.length && length < batchBytes / 2) {
    const name = list[i++]!;
    const start = length;
    try {
      const fd = fs.openSync(dir + '/' + name, 'r');
      try {
        for (;;) {
          if (length === data.length) {
            const bigger = Buffer.allocUnsafeSlow(data.length * 2);
            data.copy(bigger, 0, 0, length);
            data = bigger;
          }
          const n = fs.readSync(fd, data, length, data.length - length, null);
          if (n === 0) break;
          length += n;
        }
      } finally {
        fs.closeSync(fd);
      }
      ends.push(length);
    } catch {
      length = start;
      ends.push(-1);
    }
    batch.push(name);
  }
  return { i, data, batch, ends };
}

/**
 * The reading thread, run with eval (so it needs no file of its own beside the compiled or the
 * TypeScript sources), around fillBatch's own source. It waits while it is AHEAD batches
 * ahead of the consumer, which counts the batches it is done with in `consumed`.
 */
const READER = `
const { workerData, parentPort, receiveMessageOnPort } = require('node:worker_threads');
const fs = require('node:fs');
${fillBatch}
const { dir, names, shared, batchBytes, ahead } = workerData;
const consumed = new Int32Array(shared);
const list = names.split('\\0');
let i = 0;
let sent = 0;
const spare = []; // buffers the consumer is done with, sent back
while (i < list.length) {
  for (;;) {
    const done = Atomics.load(consumed, 0);
    if (sent - done < ahead) break;
    Atomics.wait(consumed, 0, done);
  }
  for (let m = receiveMessageOnPort(parentPort); m; m = receiveMessageOnPort(parentPort)) spare.push(m.message);
  let data = spare.length ? Buffer.from(spare.pop()) : Buffer.allocUnsafeSlow(batchBytes);
  let batch, ends;
  ({ i, data, batch, ends } = fillBatch(fs, dir, list, i, data, batchBytes));
  parentPort.postMessage({ names: batch, ends, data: data.buffer }, [data.buffer]);
  sent++;
}
parentPort.postMessage({ done: true });
`;

/** Reads files in this thread, a batch at a time. */
function* readHere(dir: string, names: string[]): Generator<FileBatch> {
  let i = 0;
  let data: Buffer = Buffer.allocUnsafe(BATCH_BYTES); // one buffer for every batch
  while (i < names.length) {
    let batch: string[];
    let ends: number[];
    ({ i, data, batch, ends } = fillBatch(fs, dir, names, i, data, BATCH_BYTES));
    yield new FileBatch(batch, ends, data);
  }
}

/**
 * The files `names` of `dir`, in that order, in batches; a batch's texts are to be taken before the
 * next batch is asked for (its buffer is then used again). Many files are read by a second thread
 * while this one works on the batches already read: reading 100k small files is mostly system
 * calls (open, read, close: about a second of a core here), which then overlap with parsing them.
 * A file that cannot be read (gone, a directory, no permission) comes back without text.
 */
export async function* readFiles(
  dir: string,
  names: string[],
  parallelFrom = PARALLEL_FROM,
): AsyncGenerator<FileBatch> {
  if (names.length < parallelFrom || availableParallelism() < 2) {
    yield* readHere(dir, names);
    return;
  }
  const shared = new SharedArrayBuffer(4);
  const consumed = new Int32Array(shared);
  let worker: Worker;
  try {
    worker = new Worker(READER, {
      eval: true,
      // Not the server's own flags (a loader such as tsx would only slow the thread's start).
      execArgv: [],
      workerData: {
        dir,
        names: names.join('\0') /* the one character no file name holds */,
        shared,
        batchBytes: BATCH_BYTES,
        ahead: AHEAD,
      },
    });
  } catch {
    // No second thread here (Node's permission model without --allow-worker, say): read in this one.
    yield* readHere(dir, names);
    return;
  }
  const queue: { names: string[]; ends: number[]; data: ArrayBuffer }[] = [];
  let done = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const woken = () => {
    wake?.();
    wake = undefined;
  };
  worker.on('message', (m: { done: true } | (typeof queue)[number]) => {
    if ('done' in m) done = true;
    else queue.push(m);
    woken();
  });
  worker.on('error', (err) => {
    failure ??= err;
    woken();
  });
  // Messages sent before the thread ended arrive before 'exit'.
  worker.on('exit', (code) => {
    if (!done) failure ??= new Error(`The thread reading ${dir} stopped (exit code ${code}) before it was done.`);
    woken();
  });
  try {
    for (;;) {
      const next = queue.shift();
      if (next) {
        yield new FileBatch(next.names, next.ends, Buffer.from(next.data));
        worker.postMessage(next.data, [next.data]); // its buffer, for a batch to come
        Atomics.add(consumed, 0, 1);
        Atomics.notify(consumed, 0);
        continue;
      }
      if (failure) throw failure;
      if (done) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    // Also when the consumer stopped early (a damaged file): the reader must not wait for it.
    Atomics.store(consumed, 0, 1 << 30);
    Atomics.notify(consumed, 0);
    await worker.terminate();
  }
}
