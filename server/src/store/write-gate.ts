import { AsyncLocalStorage } from 'node:async_hooks';
import { resolve, sep } from 'node:path';

/** The pass the running code is inside, if any: a write inside it belongs to it (see `pass`). */
const inside = new AsyncLocalStorage<{ gate: WriteGate; live: boolean }>();

/**
 * Every change to the files of a data directory passes that directory's gate (durable-write.ts,
 * append-log.ts, and the store's removal of a ticket's files call gated()). A backup uses it twice:
 * it journals which paths change while it links the directory's files, then closes the gate for the
 * moment it takes to link those again. Writes already on their way finish first; new ones wait, they
 * are never refused.
 *
 * A pass never waits on another pass, so a write inside the gate cannot deadlock a closing gate.
 * Passes nest: several writes that must reach a backup together or not at all (a ticket's
 * attachment files and its journal entry) run inside one outer pass, and the writes inside it go
 * through even while the gate is closing (the gate cannot close before the outer pass ends anyway).
 */
export class WriteGate {
  private active = 0;
  private closed: Promise<void> | undefined;
  private drained: (() => void) | undefined;
  private journal: Set<string> | undefined;
  private held = 0;

  /** How many writes wait at the closed gate (a test sees a write arrive there instead of sleeping). */
  get waiting() {
    return this.held;
  }

  /** Runs `write` with the gate open; `path` (a file, or a folder removed whole) is what it changes, if anything. */
  async pass<T>(path: string | undefined, write: () => Promise<T>): Promise<T> {
    const outer = inside.getStore();
    if (outer?.gate === this && outer.live) {
      // Inside a pass of this gate: counted too (it may outlive its outer pass), but never held.
      if (path !== undefined) this.journal?.add(path);
      this.active++;
      try {
        return await write();
      } finally {
        this.leave();
      }
    }
    if (this.closed !== undefined) {
      this.held++;
      try {
        while (this.closed !== undefined) await this.closed;
      } finally {
        this.held--;
      }
    }
    if (path !== undefined) this.journal?.add(path);
    this.active++;
    const mine = { gate: this, live: true };
    try {
      return await inside.run(mine, write);
    } finally {
      mine.live = false;
      this.leave();
    }
  }

  private leave() {
    this.active--;
    if (this.active === 0) this.drained?.();
  }

  /** Runs `work` with no write in progress and none starting until it ends. */
  async closeWhile<T>(work: () => Promise<T>): Promise<T> {
    while (this.closed !== undefined) await this.closed;
    let open!: () => void;
    this.closed = new Promise<void>((ok) => (open = ok));
    try {
      if (this.active > 0) await new Promise<void>((ok) => (this.drained = ok));
      this.drained = undefined;
      return await work();
    } finally {
      this.closed = undefined;
      open();
    }
  }

  /** Notes a change made with the gate closed (exclusively()), for a backup journalling meanwhile. */
  noteChange(path: string) {
    this.journal?.add(path);
  }

  /** Starts noting every path a write passes with (call it with the gate closed, so none is missed). */
  startJournal() {
    this.journal = new Set();
  }

  /** The paths written or removed since startJournal(), and the journal off again. */
  stopJournal(): string[] {
    const paths = [...(this.journal ?? [])];
    this.journal = undefined;
    return paths;
  }
}

const gates = new Map<string, WriteGate>();

/** The gate of a data directory, made on first use; the server and the CLI open it with the lock held. */
export function openGate(dataDir: string): WriteGate {
  const dir = resolve(dataDir);
  let gate = gates.get(dir);
  if (!gate) gates.set(dir, (gate = new WriteGate()));
  return gate;
}

export function closeGate(dataDir: string) {
  gates.delete(resolve(dataDir));
}

/** The gate of the data directory that holds `path`, if one is open (one per process, a few in tests). */
function gateFor(path: string): WriteGate | undefined {
  for (const [dir, gate] of gates) if (path.startsWith(dir + sep)) return gate;
  return undefined;
}

/** Runs a change to `path` (a file, or a folder removed whole) through its directory's gate, if one is open. */
export function gated<T>(path: string, write: () => Promise<T>): Promise<T> {
  const gate = gateFor(path);
  return gate ? gate.pass(path, write) : write();
}

/**
 * Runs several writes under `dir` as one pass of its directory's gate: a backup's cut falls before
 * or after all of them, never between (the writes inside still pass `gated` with their own paths).
 */
export function gatedTogether<T>(dir: string, writes: () => Promise<T>): Promise<T> {
  const gate = gateFor(dir);
  return gate ? gate.pass(undefined, writes) : writes();
}

/**
 * Runs `work` with the gate of `path`'s directory closed: no gated write runs meanwhile (a log rewritten
 * whole, store/append-log.ts prune). `work` must not pass the gate itself. A backup journalling
 * meanwhile links `path` again.
 */
export function exclusively<T>(path: string, work: () => Promise<T>): Promise<T> {
  const gate = gateFor(path);
  return gate
    ? gate.closeWhile(() => {
        gate.noteChange(path);
        return work();
      })
    : work();
}
