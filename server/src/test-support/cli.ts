import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { checkoutPathForOthers, nodeForOthers } from './other-user.js';

const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));
const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `ticketing` command (src/cli.ts through tsx) as its own process, optionally as another user. */
export function runCli(
  args: string[],
  env: Record<string, string>,
  as?: { uid: number; gid: number },
): Promise<CliResult> {
  return new Promise((ok) => {
    execFile(
      as ? nodeForOthers() : process.execPath,
      ['--import', 'tsx', as ? checkoutPathForOthers(CLI) : CLI, ...args],
      { cwd: as ? checkoutPathForOthers(SERVER_DIR) : SERVER_DIR, env: { PATH: process.env.PATH, ...env }, ...as },
      (err, stdout, stderr) => ok({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
