// A process that tries to take data-directory locks at agreed instants, one directory per round,
// reports whether it got each, and holds what it got until the test closes its stdin (so a racer
// that comes late, on a loaded machine, still meets a live owner). Used by the lock race test: it
// prints "ready" once loaded, and the test then sends every racer the same start instant (a first line
// on stdin), so no racer waits a fixed guess of how long the slowest takes to load.
import { setTimeout as sleep } from 'node:timers/promises';
import { acquireLock } from '../store/lock.js';

const [roundMs, ...dirs] = process.argv.slice(2);
process.stdout.write('ready\n');
const startAt = await new Promise<number>((ok) => {
  let line = '';
  const read = (chunk: Buffer) => {
    line += chunk.toString();
    if (!line.includes('\n')) return;
    process.stdin.off('data', read);
    ok(Number(line.slice(0, line.indexOf('\n'))));
  };
  process.stdin.on('data', read);
});
for (const [round, dir] of dirs.entries()) {
  const at = startAt + round * Number(roundMs);
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
