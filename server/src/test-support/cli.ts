import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { entryArgs } from './entry-point.js';
import { checkoutPathForOthers, nodeForOthers } from './other-user.js';

const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `ticketing` command (dist/cli.js when freshly built, else src/cli.ts through tsx) as its own process, optionally as another user. */
export function runCli(
  args: string[],
  env: Record<string, string>,
  as?: { uid: number; gid: number },
): Promise<CliResult> {
  return new Promise((ok) => {
    execFile(
      as ? nodeForOthers() : process.execPath,
      [...entryArgs('cli', false, as ? checkoutPathForOthers : undefined), ...args],
      { cwd: as ? checkoutPathForOthers(SERVER_DIR) : SERVER_DIR, env: { PATH: process.env.PATH, ...env }, ...as },
      (err, stdout, stderr) => ok({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
