// A process that tries to take data-directory locks at agreed instants, one directory per round,
// reports whether it got each, and holds each a while (so racers that come later see a live owner).
// Used by the lock race test.
import { setTimeout as sleep } from 'node:timers/promises';
import { acquireLock } from '../store/lock.js';

const [startAt, roundMs, ...dirs] = process.argv.slice(2);
for (const [round, dir] of dirs.entries()) {
  const at = Number(startAt) + round * Number(roundMs);
  await sleep(Math.max(0, at - Date.now() - 20));
  while (Date.now() < at) {
    /* spin the last few ms: every racer calls acquireLock within the same millisecond or two */
  }
  try {
    const lock = acquireLock(dir);
    process.stdout.write('got\n');
    setTimeout(() => lock.release(), Number(roundMs) / 2);
  } catch (err) {
    process.stdout.write(`refused: ${(err as Error).message.replace(/\n/g, ' ')}\n`);
  }
}
