import { join, relative, resolve } from 'node:path';
import { LAYOUT } from '../store/layout.js';

// sun_path holds 108 bytes on Linux (104 on macOS), the terminating NUL included.
const MAX_SOCKET_PATH = 103;

/**
 * The control socket's address: data/control.sock, absolute, or relative to the working directory
 * when the absolute path is too long for a Unix socket address. Undefined when both are too long.
 */
export function controlSocketPath(dataDir: string): string | undefined {
  const absolute = join(resolve(dataDir), LAYOUT.controlSocket);
  if (Buffer.byteLength(absolute) <= MAX_SOCKET_PATH) return absolute;
  const rel = relative(process.cwd(), absolute);
  return Buffer.byteLength(rel) <= MAX_SOCKET_PATH ? rel : undefined;
}
