// A process that tries to take data-directory locks at agreed instants, one directory per round,
// reports whether it got each, and holds what it got until the test closes its stdin (so a racer
// that comes late, on a loaded machine, still meets a live owner). Used by the lock race test.
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
    acquireLock(dir);
    process.stdout.write('got\n');
  } catch (err) {
    process.stdout.write(`refused: ${(err as Error).message.replace(/\n/g, ' ')}\n`);
  }
}
process.stdin.resume(); // alive, holding the locks, until the test ends stdin
