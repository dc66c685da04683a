import { readdir, readFile, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Ticket } from '../model/index.js';
import { syncDir, unlinkDurable } from './durable-write.js';
import { faultPoint } from './faults.js';
import { gatedTogether } from './write-gate.js';

/** One line of the journal: a ticket as written, or the id of a removed ticket. */
export type JournalRecord = { ticket: Ticket } | { removed: string };
/**
 * A record made only when its batch is formed, in journal order, and taken back (undo) if that batch
 * fails: a new ticket's number is given this way, so the numbers on disk follow each other without a
 * gap, whatever fails.
 */
export interface LateRecord {
  make(): JournalRecord;
  undo(): void;
}
/** The latest state of each ticket a journal file holds: the ticket, or null once removed. */
export type Latest = Map<string, Ticket | null>;

const NAME = /^journal-(\d{12})\.jsonl$/;
const fileName = (seq: number) => `journal-${String(seq).padStart(12, '0')}.jsonl`;

function apply(latest: Latest, record: JournalRecord) {
  if ('ticket' in record) latest.set(record.ticket.id, record.ticket);
  else latest.set(record.removed, null);
}

/**
 * A write-ahead journal for ticket writes, for group commit: writes that arrive while one batch is
 * on its way to the disk wait and go together in the next batch, one append and one fdatasync for
 * all of them, where each would otherwise pay a file fsync and a directory fsync of its own. A write
 * resolves only once its batch is on disk: nothing is acknowledged before it is durable.
 *
 * The journal also answers for what it holds until the ticket files are written: `lookup` finds the
 * latest acknowledged state of a ticket whose file may be older. The files are written in
 * checkpoints (FileTicketStore): `rotate` starts a new journal file and hands over what the old one
 * holds; once those files are durable, `retire` deletes the old journal file. A journal a crash left
 * behind is read back by `open`, and the store writes its tickets before it reads the files.
 */
export class Journal {
  private waiting: {
    record: JournalRecord | LateRecord;
    done: () => void;
    fail: (err: unknown) => void;
  }[] = [];
  private flushing: Promise<void> | undefined;
  private rotating = false;
  /** What the current file holds. */
  private current: Latest = new Map();
  /** Rotated-out files whose tickets are not yet all written as files, oldest first. */
  private retiring: { path: string; latest: Latest }[] = [];
  /** Where the file must be cut back to, when a failed batch could not be taken back yet. */
  private cutTo: number | undefined;

  private constructor(
    private readonly dir: string,
    private seq: number,
    private handle: FileHandle,
    /** Bytes in the current file: where a failed batch is cut back to. */
    private size: number,
  ) {}

  /**
   * Reads the journal files in `dir` (oldest first): what they hold is handed over as retiring, for
   * the store to write and retire; a line cut by a crash (a batch never acknowledged) is skipped.
   * Writes go to a new, empty file.
   */
  static async open(dir: string): Promise<Journal> {
    const names = (await readdir(dir)).filter((n) => NAME.test(n)).sort();
    const retiring: Journal['retiring'] = [];
    for (const name of names) {
      const latest: Latest = new Map();
      for (const line of (await readFile(join(dir, name), 'utf8')).split('\n')) {
        if (!line) continue;
        try {
          apply(latest, JSON.parse(line) as JournalRecord);
        } catch {
          /* the torn end of a batch a crash interrupted: never acknowledged */
        }
      }
      retiring.push({ path: join(dir, name), latest });
    }
    const last = names.length ? Number(NAME.exec(names[names.length - 1]!)![1]) : 0;
    const journal = await Journal.create(dir, last + 1);
    journal.retiring = retiring;
    return journal;
  }

  private static async create(dir: string, seq: number): Promise<Journal> {
    const path = join(dir, fileName(seq));
    faultPoint('open', path);
    const handle = await open(path, 'a', 0o600);
    try {
      await syncDir(dir); // the new file's name is durable before any write in it is acknowledged
    } catch (err) {
      await handle.close().catch(() => {});
      throw err;
    }
    return new Journal(dir, seq, handle, 0);
  }

  private get path() {
    return join(this.dir, fileName(this.seq));
  }

  /** Bytes in the current journal file. */
  get bytes() {
    return this.size;
  }

  /** The latest acknowledged state of a ticket the journal holds (null: removed), if it holds it. */
  lookup(id: string): Ticket | null | undefined {
    const now = this.current.get(id);
    if (now !== undefined) return now;
    for (let i = this.retiring.length - 1; i >= 0; i--) {
      const then = this.retiring[i]!.latest.get(id);
      if (then !== undefined) return then;
    }
    return undefined;
  }

  /**
   * Appends the record; resolves once it is on disk (with the rest of its batch). The caller holds a
   * pass of the write gate until then, so a backup's cut (taken with the gate closed and drained)
   * never falls inside a batch: the journal's length at the cut holds whole, acknowledged batches.
   * The batch write itself does not pass the gate: a closing gate waits for these very callers.
   */
  append(record: JournalRecord | LateRecord): Promise<void> {
    return gatedTogether(
      this.dir,
      () =>
        new Promise<void>((done, fail) => {
          this.waiting.push({ record, done, fail });
          if (!this.rotating) this.flushing ??= this.flush();
        }),
    );
  }

  private async flush() {
    // Yield once first: a batch that fails before its first await would otherwise finish this call
    // (and clear `flushing`) before the caller has stored the promise in `flushing`.
    await Promise.resolve();
    while (this.waiting.length && !this.rotating) {
      const batch = this.waiting.splice(0);
      const late = batch.filter((b) => 'make' in b.record).map((b) => b.record as LateRecord);
      const records = batch.map((b) => ('make' in b.record ? b.record.make() : b.record));
      const text = records.map((r) => `${JSON.stringify(r)}\n`).join('');
      const before = this.size;
      let touched = false;
      try {
        if (this.cutTo !== undefined) await this.takeBack();
        faultPoint('write', this.path);
        touched = true;
        await this.handle.write(text);
        this.size += Buffer.byteLength(text);
        faultPoint('fsync', this.path);
        await this.handle.datasync();
      } catch (err) {
        if (touched) {
          this.cutTo = before;
          await this.takeBack().catch(() => {}); // tried again before the next batch if it fails now
        }
        for (const l of late.reverse()) l.undo(); // before the next batch makes its records
        for (const b of batch) b.fail(err);
        continue;
      }
      // Recorded before anyone hears of it, so a rotation always hands over every acknowledged write.
      for (const r of records) apply(this.current, r);
      for (const b of batch) b.done();
    }
    this.flushing = undefined;
  }

  /**
   * Cuts a failed batch off the file, so a restart does not replay writes that were answered as
   * failed. Until that succeeds no later batch is written after it.
   */
  private async takeBack() {
    faultPoint('truncate', this.path);
    await this.handle.truncate(this.cutTo);
    await this.handle.datasync();
    this.size = this.cutTo!;
    this.cutTo = undefined;
  }

  /**
   * Starts a new journal file. Returns everything the journal holds that is not yet retired, merged
   * oldest first: the tickets to write (or remove) before `retire`.
   */
  async rotate(): Promise<Latest> {
    this.rotating = true;
    try {
      while (this.flushing) await this.flushing;
      const next = await Journal.create(this.dir, this.seq + 1);
      this.retiring.push({ path: this.path, latest: this.current });
      await this.handle.close();
      this.current = new Map();
      this.seq = next.seq;
      this.handle = next.handle;
      this.size = 0;
    } finally {
      this.rotating = false;
      if (this.waiting.length) this.flushing ??= this.flush();
    }
    return this.pendingFiles();
  }

  /** What the retiring files hold, merged oldest first. */
  pendingFiles(): Latest {
    const merged: Latest = new Map();
    for (const r of this.retiring) for (const [id, t] of r.latest) merged.set(id, t);
    return merged;
  }

  /** Deletes the journal files whose tickets are now written (all that were retiring when `upTo` was taken). */
  async retire(upTo: number) {
    const done = this.retiring.slice(0, upTo);
    for (const r of done) await unlinkDurable(r.path);
    this.retiring = this.retiring.slice(done.length);
  }

  /** How many files are retiring (for `retire`). */
  get retiringCount() {
    return this.retiring.length;
  }

  /** Waits for the batch on its way (shutdown, tests). */
  async idle() {
    while (this.flushing) await this.flushing;
  }

  /** Closes the current file, and deletes it when it holds nothing (after a final checkpoint). */
  async close() {
    await this.idle();
    await this.handle.close();
    if (this.size === 0 && this.current.size === 0) await unlinkDurable(this.path);
  }
}
