import type { Context, Middleware } from 'koa';
import type { Ticket } from '../api-types.js';
import type { QuotaConfig } from '../config.js';
import type { Deps } from '../deps.js';
import { FreeSpace } from '../store/free-space.js';
import { ApiError } from './errors.js';

// What keeps one client from filling the disk (SECURITY.md, "Limits"): files and bytes per ticket,
// bytes per client address and hour, and a floor of free disk space under which nothing new is stored.

const HOUR_MS = 3_600_000;
const MB = 1024 * 1024;
const mb = (bytes: number) => `${Math.round((bytes / MB) * 10) / 10} MB`;

/** The endpoints that store what a client sends: refused while the disk is nearly full. */
export const STORING_ENDPOINTS: readonly string[] = ['create', 'reply', 'upload'];
const UPLOADING_ENDPOINTS: readonly string[] = ['create', 'upload'];

const uploadBucket = (ctx: Context) => `upload|${ctx.ip}`;

const uploadQuotaExceeded = (config: QuotaConfig, wait: number) =>
  new ApiError(
    429,
    'upload_quota_exceeded',
    `This address may upload ${mb(config.uploadBytesPerHour)} of files an hour. Try again in ${wait} s.`,
    { headers: { 'Retry-After': String(wait) } },
  );

/**
 * Runs after the key check and before the body is read, for the storing endpoints: refuses while free
 * space under the data directory is below the floor, and refuses a public key's upload from an address
 * whose hourly upload quota is already used up, before its bytes are read.
 */
export function storageGuard(deps: Deps): (endpoint: string) => Middleware {
  const free = new FreeSpace(deps.config.dataDir);
  return (endpoint) => async (ctx, next) => {
    const floor = deps.config.minFreeDiskBytes;
    if (floor > 0 && (await free.bytes()) < floor) {
      throw new ApiError(
        503,
        'unavailable',
        'The server is short of disk space and stores nothing new right now. Try again later.',
        { headers: { 'Retry-After': '300' } },
      );
    }
    if (UPLOADING_ENDPOINTS.includes(endpoint) && ctx.state.auth.kind === 'public') {
      const quotas = deps.config.quotas;
      const wait = deps.rateLimiter.wait(uploadBucket(ctx), quotas.uploadBytesPerHour);
      if (wait) throw uploadQuotaExceeded(quotas, wait);
    }
    await next();
  };
}

/** Counts a public key's accepted files against its address's hourly quota; 429 when they do not fit. */
export function chargeUpload(ctx: Context, deps: Deps, sizes: number[]) {
  const bytes = sizes.reduce((sum, n) => sum + n, 0);
  if (ctx.state.auth.kind !== 'public' || bytes === 0) return;
  const quotas = deps.config.quotas;
  const wait = deps.rateLimiter.hit(uploadBucket(ctx), quotas.uploadBytesPerHour, HOUR_MS, bytes);
  if (wait) throw uploadQuotaExceeded(quotas, wait);
}

/**
 * Refuses files that would leave a ticket (`current`, or a new one) with more files or bytes of files
 * than the quota allows, whoever sends them: 413 `ticket_quota_exceeded`.
 */
export function checkTicketQuota(
  quotas: QuotaConfig,
  current: Pick<Ticket, 'attachments' | 'replies'> | undefined,
  adding: number[],
  param: string,
) {
  const held = current ? [...current.attachments, ...current.replies.flatMap((r) => r.attachments)] : [];
  const files = held.length + adding.length;
  const bytes = held.reduce((sum, a) => sum + a.size, 0) + adding.reduce((sum, n) => sum + n, 0);
  if (files <= quotas.ticketFiles && bytes <= quotas.ticketBytes) return;
  throw new ApiError(
    413,
    'ticket_quota_exceeded',
    `A ticket holds at most ${quotas.ticketFiles} files and ${mb(quotas.ticketBytes)} of files; ` +
      `this would make ${files} files, ${mb(bytes)}.`,
    { param },
  );
}
