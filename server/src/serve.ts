import { boot, type BootExtension } from './boot.js';
import { ConfigError, loadConfig } from './config/config.js';
import { LockError } from './store/lock.js';
import { StartupError } from './store/startup-error.js';

/** Boots from the environment, stops cleanly on SIGINT/SIGTERM, and turns start-up failures into a message and exit code 1. */
export async function serve(options: { extension?: BootExtension } = {}) {
  try {
    const running = await boot(loadConfig(), options);
    const stop = (signal: string) => {
      running.deps.logger.info({ signal }, 'stopping');
      void running.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof LockError) {
      process.stderr.write(`${err.message}\n`);
    } else if (err instanceof StartupError) {
      process.stderr.write(`${err.message}\n${err.hint}\n`);
    } else {
      process.stderr.write(`Could not start: ${(err as Error).stack ?? String(err)}\n`);
    }
    process.exit(1);
  }
}
