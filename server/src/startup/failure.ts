import type { Config } from '../config/config.js';

const FS_REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  ENOTDIR: 'part of the path is a file, not a directory',
  EISDIR: 'a directory stands where a file should be',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the path is too long',
};

/**
 * One clear line for the failures a first start meets (a taken port, a data directory the server may
 * not write), instead of a stack trace; undefined for anything unexpected, which keeps its stack.
 */
export function startupFailureMessage(err: unknown, config: Config | undefined): string | undefined {
  const e = err as NodeJS.ErrnoException & { port?: number; address?: string };
  if (!e?.code) return undefined;
  const user = process.getuid ? ` for uid ${process.getuid()}` : '';
  if (e.syscall === 'listen' || e.syscall === 'bind') {
    const where = `${e.address ?? config?.host}:${e.port ?? config?.port}`;
    if (e.code === 'EADDRINUSE')
      return `Could not start: ${where} is already in use by another program. Stop it, or set TICKETING_PORT to a free port.`;
    if (e.code === 'EACCES')
      return `Could not start: not allowed to listen on ${where}${user}; ports below 1024 need privileges. Use a higher TICKETING_PORT behind a reverse proxy (docs/deploy.md).`;
    if (e.code === 'EADDRNOTAVAIL')
      return `Could not start: ${e.address ?? config?.host} is not an address of this machine (TICKETING_HOST).`;
    return `Could not start: cannot listen on ${where}: ${e.code}.`;
  }
  const reason = FS_REASONS[e.code];
  if (reason && e.path)
    return `Could not start: the data directory ${config?.dataDir ?? ''} cannot be used: ${reason}${e.code === 'EACCES' || e.code === 'EPERM' ? user : ''} (${e.syscall} ${e.path}).`;
  return undefined;
}
