import { boot, type BootExtension } from './boot.js';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { startupFailureMessage } from './startup/failure.js';
import { LockError } from './store/lock.js';
import { StartupError } from './store/startup-error.js';

/** Boots from the environment, stops cleanly on SIGINT/SIGTERM, and turns start-up failures into a message and exit code 1. */
export async function serve(options: { extension?: BootExtension } = {}) {
  let config: Config | undefined;
  try {
    config = loadConfig();
    const running = await boot(config, options);
    const stop = (signal: string) => {
      const started = Date.now();
      running.deps.logger.info({ signal }, 'stopping');
      void running.close().then(() => {
        running.deps.logger.info({ ms: Date.now() - started }, 'stopped');
        process.exit(0);
      });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof LockError) {
      process.stderr.write(`${err.message}\n`);
    } else if (err instanceof StartupError) {
      process.stderr.write(err.hint ? `${err.message}\n${err.hint}\n` : `${err.message}\n`);
    } else {
      const line = startupFailureMessage(err, config);
      process.stderr.write(line ? `${line}\n` : `Could not start: ${(err as Error).stack ?? String(err)}\n`);
    }
    process.exit(1);
  }
}
