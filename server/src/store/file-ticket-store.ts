import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Ticket } from '../model/index.js';
import { isId } from '../model/index.js';
import {
  makeDir,
  removeStaleTemps,
  syncDir,
  unlinkDurable,
  writeFileDurable,
  writeFilesDurable,
} from './durable-write.js';
import { Journal, type JournalRecord, type LateRecord, type Latest } from './journal.js';
import { KeyedMutex } from './keyed-mutex.js';
import { readFiles } from './read-files.js';
import { StartupError } from './startup-error.js';
import { searchQuery, SearchIndex } from './search-index.js';
import { TicketIndex } from './ticket-index.js';
import {
  FIRST_NUMBER,
  IDEMPOTENCY_MS,
  type KeyMode,
  type NewTicketChange,
  type ListContext,
  type ListFilter,
  type StoredTicket,
  type FileStore,
  type TicketChange,
  type TicketFacts,
  type TicketStore,
  withNumber,
} from './ticket-store.js';
import { gated, gatedTogether } from './write-gate.js';

/** Writes the tickets of the journal's retiring files (handed over by a rotation, or left by a crash) as files under `root`, then deletes those journal files. */
async function checkpoint(journal: Journal, root: string) {
  const count = journal.retiringCount;
  if (!count) return;
  const latest: Latest = journal.pendingFiles();
  await writeFilesDurable(
    join(root, 'tickets'),
    [...latest].map(([id, t]) => ({ path: join(root, 'tickets', `${id}.json`), data: t && JSON.stringify(t) })),
  );
  for (const [id, t] of latest) if (t === null) await removeTree(join(root, 'files', id));
  await journal.retire(count);
}

/** Removes a ticket's folder of files, through the write gate (a backup sees it whole or gone). */
const removeTree = (dir: string) => gated(dir, () => rm(dir, { recursive: true, force: true }));

/**
 * The ticket with the request's Idempotency-Key added to those it keeps; keys older than a day (past
 * their promise) are dropped as the ticket is written.
 */
function withKey<T extends Pick<StoredTicket, 'idempotency'>>(t: T, key: TicketChange['idempotency']): T {
  if (!key) return t;
  const since = Date.parse(key.at) - IDEMPOTENCY_MS;
  return { ...t, idempotency: [...(t.idempotency ?? []).filter((k) => Date.parse(k.at) > since), key] };
}

/**
 * data/<mode>/last-deleted-number: the highest number of a deleted ticket, so that a restart, which
 * takes the next number from the tickets it finds, never gives a deleted ticket's number again.
 */
const LAST_DELETED = 'last-deleted-number';

/** Parsed tickets kept in memory, most recently used; reads of hot tickets skip the disk. */
const CACHE_SIZE = 5000;
/** When the journal holds this much (some thousands of tickets), a checkpoint writes their files. */
const CHECKPOINT_BYTES = 4 * 1024 * 1024;

function readLastDeleted(path: string): number {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return FIRST_NUMBER - 1;
    throw err;
  }
  if (!/^\d{1,15}\s*$/.test(text))
    throw new StartupError(
      `The file ${path} is damaged.`,
      'It should hold one number: the highest number of a deleted ticket. Put back the highest number any ticket of this mode ever had.',
    );
  return Number(text.trim());
}

function looksLikeTicket(value: unknown, id: string): value is Ticket {
  const t = value as Ticket;
  return (
    typeof t === 'object' &&
    t !== null &&
    t.id === id &&
    typeof t.created_at === 'string' &&
    Number.isSafeInteger(t.number) &&
    typeof t.status === 'string' &&
    Array.isArray(t.replies) &&
    Array.isArray(t.attachments)
  );
}

/**
 * data/<mode>/tickets/tkt_X.json, one file per ticket, and data/<mode>/files/tkt_X/fil_Y for
 * attachment bytes (generated names only, never the customer's).
 *
 * A ticket write is acknowledged once it is in the journal (data/<mode>/journal-N.jsonl), which
 * commits concurrent writes together with one fdatasync (group commit). Its file is written by the
 * next checkpoint, several thousand tickets at a time; until then reads find it in the journal.
 * At start, a journal a crash left behind is written out as files before the files are read.
 */
export class FileTicketStore implements TicketStore, FileStore {
  private index = new TicketIndex();
  /** Every ticket's words, for /search. */
  private words = new SearchIndex();
  private mutex = new KeyedMutex();
  // Shared, never mutated: every writer builds a new record (routes clone or spread before changing).
  private cache = new Map<string, Ticket>();
  /** Idempotency-Keys found in the ticket files (written with them), to the ticket each made. */
  private idempotency = new Map<string, { ticketId: string; hash: string; at: string }>();
  private readonly ticketsDir: string;
  private readonly filesDir: string;
  private checkpointing: Promise<void> | undefined;
  /** The highest number given so far (a ticket's, or a deleted ticket's). */
  private lastNumber = FIRST_NUMBER - 1;
  /** What LAST_DELETED holds. */
  private lastDeleted = FIRST_NUMBER - 1;

  private constructor(
    readonly mode: KeyMode,
    private readonly root: string,
    private readonly journal: Journal,
    private readonly checkpointBytes: number,
  ) {
    this.ticketsDir = join(root, 'tickets');
    this.filesDir = join(root, 'files');
  }

  static async open(
    dataDir: string,
    mode: KeyMode,
    options: { checkpointBytes?: number } = {},
  ): Promise<FileTicketStore> {
    const store = await FileTicketStore.openUnindexed(dataDir, mode, options);
    await store.load();
    return store;
  }

  /**
   * The store with nothing read yet: `batches()` then gives every ticket once, for the migration
   * command, which copies them without holding an index of all of them in memory.
   */
  static async openUnindexed(
    dataDir: string,
    mode: KeyMode,
    options: { checkpointBytes?: number } = {},
  ): Promise<FileTicketStore> {
    const root = join(dataDir, mode);
    await makeDir(join(root, 'tickets'));
    await makeDir(join(root, 'files'));
    await removeStaleTemps(join(root, 'tickets'));
    const store = new FileTicketStore(
      mode,
      root,
      await Journal.open(root),
      options.checkpointBytes ?? CHECKPOINT_BYTES,
    );
    await store.checkpoint(); // what a crash left in the journal becomes files, before they are read
    return store;
  }

  /**
   * Reads every ticket once, straight into the index; each parsed ticket is dropped as soon as its
   * index entry exists. With many tickets a second thread does the reading (read-files.ts), so the
   * system calls overlap with parsing and indexing here.
   *
   * The search index is not built here but begun: it reads each ticket's words from the list index
   * in slices after the port opens (at 100k tickets it took 2 of the 4.6 s start-up). Oldest first:
   * document numbers then follow creation, which a search's ranking of the newest relies on.
   */
  private async load() {
    for await (const batch of this.batches())
      for (const ticket of batch) {
        this.index.add(ticket);
        this.rememberKeys(ticket);
      }
    this.index.sorted();
    void this.words.build(
      this.index.ids(),
      (id) => this.index.searchSource(id),
      (id) => Date.parse(this.index.itemOf(id)!.created_at),
    );
  }

  /** Settles when the search index holds every ticket found at start (it is built after the port opens). */
  searchReady(): Promise<void> {
    return this.words.whenReady();
  }

  /**
   * Every ticket file, parsed, a batch at a time (a damaged one stops the start); afterwards
   * `lastGiven` is the highest number the store ever gave.
   */
  async *batches(): AsyncGenerator<Ticket[]> {
    const names = readdirSync(this.ticketsDir).filter((name) => name.endsWith('.json'));
    let highest = FIRST_NUMBER - 1;
    for await (const batch of readFiles(this.ticketsDir, names)) {
      const tickets: Ticket[] = [];
      for (let i = 0; i < batch.names.length; i++) {
        const name = batch.names[i]!;
        const text = batch.text(i);
        let parsed: unknown;
        try {
          parsed = text === undefined ? undefined : JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        if (!looksLikeTicket(parsed, name.slice(0, -'.json'.length))) {
          throw new StartupError(
            `The ticket file ${join(this.ticketsDir, name)} is damaged (not a ticket in valid JSON).`,
            'Restore it from a backup, or move it out of the tickets directory to start without it. The server has not changed it.',
          );
        }
        tickets.push(parsed);
        if (parsed.number > highest) highest = parsed.number;
      }
      yield tickets;
    }
    this.lastDeleted = readLastDeleted(join(this.root, LAST_DELETED));
    this.lastNumber = Math.max(this.lastDeleted, highest);
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
    const journaled = this.journal.lookup(id);
    if (journaled !== undefined) return journaled ?? undefined;
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

  /** The highest number given so far (the migration command carries it over to PostgreSQL). */
  get lastGiven() {
    return this.lastNumber;
  }

  async getByNumber(number: number): Promise<Ticket | undefined> {
    const id = this.index.idOf(number);
    return id === undefined ? undefined : this.get(id);
  }

  async create(change: NewTicketChange): Promise<Ticket> {
    return this.mutex.run(change.ticket.id, async () => {
      const base = withKey(change.ticket, change.idempotency);
      let ticket: StoredTicket | undefined;
      // The number is given as the journal forms the batch, in journal order, and given back if the
      // batch fails: concurrent creates get consecutive numbers and a failed write leaves no gap.
      const numbered: LateRecord = {
        make: () => {
          ticket = withNumber(base, ++this.lastNumber);
          return { ticket };
        },
        undo: () => {
          this.lastNumber--;
        },
      };
      await this.writeChange(base.id, change.files, numbered);
      if (!ticket) throw new Error('the journal acknowledged a record it never made');
      this.index.put(ticket);
      this.words.put(ticket);
      this.remember(ticket);
      this.rememberKeys(ticket);
      return ticket;
    });
  }

  update(id: string, change: (current: Ticket) => TicketChange | Promise<TicketChange>) {
    return this.mutex.run(id, async () => {
      const current = await this.get(id);
      if (!current) return undefined;
      return this.write(current, await change(current));
    });
  }

  async updateMany(
    ids: readonly string[],
    change: (current: (Ticket | undefined)[]) => TicketChange[] | Promise<TicketChange[]>,
  ): Promise<Ticket[]> {
    // Each ticket's lock, nested in the order of their ids; the tickets read and written inside all of them.
    const locked = [...new Set(ids)].sort();
    const work = async () => {
      const current = await Promise.all(ids.map((id) => this.get(id)));
      const next = await change(current);
      if (next.length !== ids.length || next.some((c, i) => c.ticket.id !== ids[i] || !current[i]))
        throw new Error('updateMany: a change for each ticket named, in that order');
      const written: Ticket[] = [];
      for (const [i, c] of next.entries()) written.push(await this.write(current[i]!, c));
      return written;
    };
    const inside = locked.reduceRight<() => Promise<Ticket[]>>((run, id) => () => this.mutex.run(id, run), work);
    return inside();
  }

  /** Writes a change to a ticket whose lock the caller holds, and keeps the index, words and cache in step. */
  private async write(current: Ticket, next: TicketChange) {
    const ticket = withKey(next.ticket, next.idempotency);
    await this.writeChange(ticket.id, next.files, { ticket }, current);
    this.index.put(ticket);
    this.words.put(ticket);
    this.remember(ticket);
    this.rememberKeys(ticket);
    return ticket;
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
   * Files first (each durable), then the ticket that names them, in the journal. If anything fails,
   * the files this write put on disk are taken back, and the journal takes back its own failed batch:
   * so a write either completes whole or leaves no trace, and the index and cache, updated only
   * after success, agree with what a restart would read.
   */
  private async writeChange(
    id: string,
    files: TicketChange['files'] = [],
    record: JournalRecord | LateRecord,
    previous?: Ticket,
  ) {
    // One pass of the write gate: a backup's cut holds the attachments and the journal entry together or neither.
    await gatedTogether(this.root, () => this.writeFilesAndJournal(id, files, record, previous));
    this.checkpointWhenDue();
  }

  private async writeFilesAndJournal(
    id: string,
    files: NonNullable<TicketChange['files']>,
    record: JournalRecord | LateRecord,
    previous?: Ticket,
  ) {
    const written: string[] = [];
    try {
      if (files.length) {
        const dir = join(this.filesDir, id);
        await makeDir(dir);
        await syncDir(this.filesDir);
        for (const f of files) {
          const path = join(dir, f.id);
          written.push(path);
          await writeFileDurable(path, f.data);
        }
      }
      await this.journal.append(record);
    } catch (err) {
      await Promise.all(written.map((p) => unlinkDurable(p).catch(() => {})));
      if (!previous && files.length) await removeTree(join(this.filesDir, id)).catch(() => {});
      throw err;
    }
  }

  private checkpointWhenDue() {
    if (this.checkpointing || this.journal.bytes < this.checkpointBytes) return;
    // In the background: writes go on into the next journal file meanwhile. A failed checkpoint
    // loses nothing (the journal files stay until one succeeds) and is tried again when next due.
    this.checkpointing = this.journal
      .rotate()
      .then(() => this.checkpoint())
      .catch(() => {})
      .finally(() => (this.checkpointing = undefined));
  }

  private checkpoint() {
    return checkpoint(this.journal, this.root);
  }

  /**
   * Writes out what a crash left in the journal of `dataDir/<mode>` as ticket files, without opening
   * the store (no index is built): an offline backup's first step.
   */
  static async settle(dataDir: string, mode: KeyMode) {
    const root = join(dataDir, mode);
    if (!existsSync(root)) return;
    const journal = await Journal.open(root);
    try {
      await checkpoint(journal, root);
    } finally {
      await journal.close();
    }
  }

  remove(id: string) {
    return this.mutex.run(id, async () => {
      if (!this.index.has(id)) return false;
      const number = this.index.numberOf(id)!;
      if (number > this.lastDeleted) {
        // Before the ticket goes: a restart then knows its number was given even if it was the highest.
        await writeFileDurable(join(this.root, LAST_DELETED), `${number}\n`);
        this.lastDeleted = number;
      }
      // One pass: a backup holds the ticket with its files, or neither.
      await gatedTogether(this.root, async () => {
        await this.journal.append({ removed: id });
        this.index.remove(id);
        this.words.remove(id);
        this.cache.delete(id);
        await unlinkDurable(this.ticketPath(id));
        await removeTree(join(this.filesDir, id));
      });
      this.checkpointWhenDue();
      return true;
    });
  }

  list(filter: ListFilter, limit: number, offset: number, context?: ListContext) {
    return Promise.resolve(this.index.list(filter, limit, offset, context));
  }

  async search(query: string, limit: number, offset: number) {
    // Until the index holds every ticket, a search waits for it (its slices go on meanwhile): the
    // wait is bounded by the build, about two seconds of a core at 100k tickets.
    if (!this.words.ready) await this.words.whenReady();
    const { words, number, id } = searchQuery(query);
    // The ticket a number or an id names exactly comes first.
    const exact = [number === undefined ? undefined : this.index.idOf(number), id].filter((x) => x !== undefined);
    const { ids, total } = this.words.search(words, exact, limit, offset);
    const items = ids.map((ticketId) => this.index.itemOf(ticketId)).filter((item) => item !== undefined);
    return { items, total };
  }

  count(filter: ListFilter, context?: ListContext) {
    return Promise.resolve(this.index.list(filter, 0, 0, context).total);
  }

  counts(context: ListContext) {
    return Promise.resolve(this.index.counts(context));
  }

  /**
   * A snapshot of the index, yielded one by one: the index changes under writes that run between
   * the consumer's awaits, the snapshot does not.
   */
  async *scan(): AsyncIterable<TicketFacts> {
    yield* [...this.index.scan()];
  }

  async read(ticketId: string, fileId: string): Promise<Buffer | undefined> {
    if (!isId('tkt', ticketId) || !isId('fil', fileId)) return undefined;
    try {
      return await readFile(join(this.filesDir, ticketId, fileId));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async idle() {
    await this.mutex.idle();
    await this.journal.idle();
    await this.checkpointing;
  }

  /**
   * Writes everything the journal holds out as ticket files, after any checkpoint under way: a
   * backup's first step (so the snapshot is plain files) and shutdown's last.
   */
  async flush() {
    while (this.checkpointing) await this.checkpointing;
    const run = (async () => {
      if (this.journal.bytes > 0) await this.journal.rotate();
      await this.checkpoint();
    })();
    this.checkpointing = run.catch(() => {}).finally(() => (this.checkpointing = undefined));
    await run;
  }

  /** At shutdown: every ticket left as its file and no journal (people reading the directory see plain files). */
  async close() {
    await this.idle();
    await this.flush();
    await this.journal.close();
  }
}
