import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Ticket } from '../model/index.js';
import { makeDir, removeStaleTemps, unlinkDurable, writeFileDurable, syncDir } from './durable-write.js';
import { isId } from '../model/index.js';
import { KeyedMutex } from './keyed-mutex.js';
import { StartupError } from './startup-error.js';
import { TicketIndex } from './ticket-index.js';
import {
  IDEMPOTENCY_MS,
  type KeyMode,
  type ListFilter,
  type StoredTicket,
  type TicketChange,
  type TicketStore,
} from './ticket-store.js';
import { gated } from './write-gate.js';

/** Removes a ticket's folder of files, through the write gate (a backup sees it whole or gone). */
const removeTree = (dir: string) => gated(dir, () => rm(dir, { recursive: true, force: true }));

/**
 * The ticket with the request's Idempotency-Key added to those it keeps; keys older than a day (past
 * their promise) are dropped as the ticket is written.
 */
function withKey(t: StoredTicket, key: TicketChange['idempotency']): StoredTicket {
  if (!key) return t;
  const since = Date.parse(key.at) - IDEMPOTENCY_MS;
  return { ...t, idempotency: [...(t.idempotency ?? []).filter((k) => Date.parse(k.at) > since), key] };
}

/** Parsed tickets kept in memory, most recently used; reads of hot tickets skip the disk. */
const CACHE_SIZE = 5000;

function looksLikeTicket(value: unknown, id: string): value is Ticket {
  const t = value as Ticket;
  return (
    typeof t === 'object' &&
    t !== null &&
    t.id === id &&
    typeof t.created_at === 'string' &&
    typeof t.status === 'string' &&
    Array.isArray(t.replies) &&
    Array.isArray(t.attachments)
  );
}

/**
 * data/<mode>/tickets/tkt_X.json, one durable file per ticket, and data/<mode>/files/tkt_X/fil_Y for
 * attachment bytes (generated names only, never the customer's).
 */
export class FileTicketStore implements TicketStore {
  private index = new TicketIndex();
  private mutex = new KeyedMutex();
  // Shared, never mutated: every writer builds a new record (routes clone or spread before changing).
  private cache = new Map<string, Ticket>();
  /** Idempotency-Keys found in the ticket files (written with them), to the ticket each made. */
  private idempotency = new Map<string, { ticketId: string; hash: string; at: string }>();
  private readonly ticketsDir: string;
  private readonly filesDir: string;

  private constructor(
    readonly mode: KeyMode,
    root: string,
  ) {
    this.ticketsDir = join(root, 'tickets');
    this.filesDir = join(root, 'files');
  }

  static async open(dataDir: string, mode: KeyMode): Promise<FileTicketStore> {
    const store = new FileTicketStore(mode, join(dataDir, mode));
    await makeDir(store.ticketsDir);
    await makeDir(store.filesDir);
    await removeStaleTemps(store.ticketsDir);
    store.load();
    return store;
  }

  /**
   * Reads every ticket once, straight into the index. Synchronous reads in one loop: at start-up
   * nothing else runs, and for 100k small files this is several times faster than queueing async
   * reads on libuv's thread pool. Each parsed ticket is dropped as soon as its index entry exists.
   */
  private load() {
    let buffer = Buffer.allocUnsafe(256 * 1024);
    for (const name of readdirSync(this.ticketsDir)) {
      if (!name.endsWith('.json')) continue;
      const path = join(this.ticketsDir, name);
      let parsed: unknown;
      try {
        // open + read + close into one reused buffer: no fstat and no allocation per file.
        const fd = openSync(path, 'r');
        let length = 0;
        try {
          for (;;) {
            const n = readSync(fd, buffer, length, buffer.length - length, null);
            if (n === 0) break;
            length += n;
            if (length === buffer.length) buffer = Buffer.concat([buffer, Buffer.allocUnsafe(buffer.length)]);
          }
        } finally {
          closeSync(fd);
        }
        parsed = JSON.parse(buffer.toString('utf8', 0, length));
      } catch {
        parsed = undefined;
      }
      if (!looksLikeTicket(parsed, name.slice(0, -'.json'.length))) {
        throw new StartupError(
          `The ticket file ${path} is damaged (not a ticket in valid JSON).`,
          'Restore it from a backup, or move it out of the tickets directory to start without it. The server has not changed it.',
        );
      }
      this.index.add(parsed);
      this.rememberKeys(parsed);
    }
    this.index.sorted();
  }

  get size() {
    return this.index.size;
  }

  has(id: string) {
    return this.index.has(id);
  }

  private ticketPath(id: string) {
    return join(this.ticketsDir, `${id}.json`);
  }

  private remember(t: Ticket) {
    this.cache.delete(t.id);
    this.cache.set(t.id, t);
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
  }

  async get(id: string): Promise<Ticket | undefined> {
    if (!isId('tkt', id) || !this.index.has(id)) return undefined;
    const cached = this.cache.get(id);
    if (cached) {
      this.remember(cached);
      return cached;
    }
    try {
      const ticket = JSON.parse(await readFile(this.ticketPath(id), 'utf8')) as Ticket;
      if (this.index.has(id)) this.remember(ticket); // not if it was deleted while we read
      return ticket;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined; // deleted meanwhile
      throw err;
    }
  }

  async create(change: TicketChange): Promise<Ticket> {
    return this.mutex.run(change.ticket.id, async () => {
      const ticket = withKey(change.ticket, change.idempotency);
      await this.writeChange({ ...change, ticket });
      this.index.put(ticket);
      this.remember(ticket);
      this.rememberKeys(ticket);
      return ticket;
    });
  }

  update(id: string, change: (current: Ticket) => TicketChange | Promise<TicketChange>) {
    return this.mutex.run(id, async () => {
      const current = await this.get(id);
      if (!current) return undefined;
      const next = await change(current);
      const ticket = withKey(next.ticket, next.idempotency);
      await this.writeChange({ ...next, ticket }, current);
      this.index.put(ticket);
      this.remember(ticket);
      this.rememberKeys(ticket);
      return ticket;
    });
  }

  private rememberKeys(t: StoredTicket) {
    for (const k of t.idempotency ?? []) {
      this.idempotency.set(k.key, { ticketId: t.id, hash: k.hash, at: k.at });
      // Now and then, forget keys past their day (measured from the newest key seen).
      if (this.idempotency.size % 1024 === 0) {
        const since = Date.parse(k.at) - IDEMPOTENCY_MS;
        for (const [key, v] of this.idempotency) if (Date.parse(v.at) <= since) this.idempotency.delete(key);
      }
    }
  }

  recallIdempotency(key: string) {
    const found = this.idempotency.get(key);
    if (found && !this.index.has(found.ticketId)) this.idempotency.delete(key);
    return Promise.resolve(found && this.index.has(found.ticketId) ? found : undefined);
  }

  /**
   * Files first, then the ticket that names them. If anything fails, whatever this write put on disk
   * is taken back: its files, and the ticket file itself (restored to `previous`, or removed for a new
   * ticket), since a failed fsync of the directory comes after the rename. So a write either completes
   * whole or leaves no trace, and the index and cache, updated only after success, agree with the disk.
   */
  private async writeChange({ ticket, files = [] }: TicketChange, previous?: Ticket) {
    const written: string[] = [];
    let ticketTouched = false;
    try {
      if (files.length) {
        const dir = join(this.filesDir, ticket.id);
        await makeDir(dir);
        await syncDir(this.filesDir);
        for (const f of files) {
          const path = join(dir, f.id);
          written.push(path);
          await writeFileDurable(path, f.data);
        }
      }
      ticketTouched = true;
      await writeFileDurable(this.ticketPath(ticket.id), JSON.stringify(ticket));
    } catch (err) {
      await Promise.all(written.map((p) => unlinkDurable(p).catch(() => {})));
      if (ticketTouched) {
        const path = this.ticketPath(ticket.id);
        await (previous ? writeFileDurable(path, JSON.stringify(previous)) : unlinkDurable(path)).catch(() => {});
      }
      if (!previous && files.length) await removeTree(join(this.filesDir, ticket.id)).catch(() => {});
      throw err;
    }
  }

  remove(id: string) {
    return this.mutex.run(id, async () => {
      if (!this.index.has(id)) return false;
      await unlinkDurable(this.ticketPath(id));
      this.index.remove(id);
      this.cache.delete(id);
      await removeTree(join(this.filesDir, id));
      return true;
    });
  }

  list(filter: ListFilter, limit: number, offset: number) {
    return this.index.list(filter, limit, offset);
  }

  count(filter: ListFilter) {
    return Promise.resolve(this.index.list(filter, 0, 0).total);
  }

  scan() {
    return this.index.scan();
  }

  async readFile(ticketId: string, fileId: string): Promise<Buffer | undefined> {
    if (!isId('tkt', ticketId) || !isId('fil', fileId)) return undefined;
    try {
      return await readFile(join(this.filesDir, ticketId, fileId));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  idle() {
    return this.mutex.idle();
  }
}
