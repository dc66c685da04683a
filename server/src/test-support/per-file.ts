import { afterAll } from 'vitest';
import { killLiveChildren } from './child-server.js';
import { closeLeftServers } from './server.js';

// Vitest's set-up file, run before each test file (vitest.config.ts). The workers run many files one
// after the other without isolation, so what a file started and left running (after a failed or timed
// out test) is ended when the file ends, as the end of a worker per file used to.
afterAll(async () => {
  killLiveChildren();
  await closeLeftServers();
});
