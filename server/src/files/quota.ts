import type { QuotaConfig } from '../config/config.js';
import { ApiError } from '../http/errors.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { RequestActor, Ticket } from '../model/index.js';
import { FreeSpace } from '../store/free-space.js';

// What keeps one client from filling the disk (SECURITY.md, "Limits"): files and bytes per ticket,
// bytes per client address and hour, and a floor of free disk space under which nothing new is stored.

const HOUR_MS = 3_600_000;
const MB = 1024 * 1024;
const mb = (bytes: number) => `${Math.round((bytes / MB) * 10) / 10} MB`;

/** What a route stores of what a client sends: text (a reply), or files as well (/create, /upload). */
export type Storing = 'text' | 'files';

const uploadBucket = (ip: string) => `upload|${ip}`;

export class Quotas {
  private readonly free: FreeSpace;

  constructor(
    private readonly config: { dataDir: string; quotas: QuotaConfig; minFreeDiskBytes: number },
    /** The app's limiter: upload bytes are counted in windows beside the request limits. */
    private readonly limiter: RateLimiter,
  ) {
    this.free = new FreeSpace(config.dataDir);
  }

  private exceeded(wait: number) {
    return new ApiError(
      429,
      'upload_quota_exceeded',
      `This address may upload ${mb(this.config.quotas.uploadBytesPerHour)} of files an hour. Try again in ${wait} s.`,
      { headers: { 'Retry-After': String(wait) } },
    );
  }

  /**
   * Runs after the rate limit and before the body is read, for routes that store what they are sent:
   * refuses while free space under the data directory is below the floor, and refuses a customer's
   * upload from an address whose hourly upload quota is already used up, before its bytes are read.
   */
  async guard(actor: RequestActor, ip: string, storing: Storing) {
    const floor = this.config.minFreeDiskBytes;
    if (floor > 0 && (await this.free.bytes()) < floor) {
      throw new ApiError(
        503,
        'unavailable',
        'The server is short of disk space and stores nothing new right now. Try again later.',
        { headers: { 'Retry-After': '300' } },
      );
    }
    if (storing === 'files' && actor.kind === 'customer') {
      const wait = await this.limiter.wait(uploadBucket(ip), this.config.quotas.uploadBytesPerHour);
      if (wait) throw this.exceeded(wait);
    }
  }

  /** Counts a customer's accepted files against its address's hourly quota; 429 when they do not fit. */
  async charge(actor: RequestActor, ip: string, sizes: number[]) {
    const bytes = sizes.reduce((sum, n) => sum + n, 0);
    if (actor.kind !== 'customer' || bytes === 0) return;
    const wait = await this.limiter.hit(uploadBucket(ip), this.config.quotas.uploadBytesPerHour, HOUR_MS, bytes);
    if (wait) throw this.exceeded(wait);
  }

  /**
   * Refuses files that would leave a ticket (`current`, or a new one) with more files or bytes of
   * files than the quota allows, whoever sends them: 413 `ticket_quota_exceeded`.
   */
  checkTicket(current: Pick<Ticket, 'attachments' | 'replies'> | undefined, adding: number[], param: string) {
    const { quotas } = this.config;
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

  /**
   * Refuses a customer's message that would leave a ticket with more messages or characters of text
   * than the quota allows (issue 33: one public key made one ticket 14 MB, 300 replies of 49 KB,
   * and every read of it slow): 413 `ticket_quota_exceeded`. Support's replies and notes are never
   * refused, so a full ticket can still be answered and closed.
   */
  checkThread(current: Pick<Ticket, 'message' | 'replies'>, adding: string, actor: RequestActor) {
    if (actor.kind !== 'customer') return;
    const { quotas } = this.config;
    const messages = current.replies.length + 2; // the ticket's own message, its replies, this one
    const chars = current.replies.reduce((sum, r) => sum + r.message.length, current.message.length) + adding.length;
    if (messages <= quotas.ticketMessages && chars <= quotas.ticketTextChars) return;
    throw new ApiError(
      413,
      'ticket_quota_exceeded',
      `A ticket holds at most ${quotas.ticketMessages} messages and ${quotas.ticketTextChars.toLocaleString('en')} characters of text; ` +
        'this one is full. Please open a new ticket.',
      { param: 'message' },
    );
  }
}
