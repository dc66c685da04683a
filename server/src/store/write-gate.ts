import { resolve, sep } from 'node:path';

/**
 * Every durable write under a data directory passes that directory's gate (durable-write.ts and
 * append-log.ts call gateFor). A backup closes the gate for the moment it takes to hard-link the
 * directory's files: writes already on their way finish first, new ones wait (they are not refused),
 * and the links are a point-in-time copy, because files are only ever replaced by rename, never
 * changed in place, and append-only logs are read up to their length at that moment.
 *
 * A pass never waits on another pass, so a write inside the gate cannot deadlock a closing gate.
 */
export class WriteGate {
  private active = 0;
  private closed: Promise<void> | undefined;
  private drained: (() => void) | undefined;

  async pass<T>(write: () => Promise<T>): Promise<T> {
    while (this.closed) await this.closed;
    this.active++;
    try {
      return await write();
    } finally {
      this.active--;
      if (this.active === 0) this.drained?.();
    }
  }

  /** Runs `work` with no write in progress and none starting until it ends. */
  async closeWhile<T>(work: () => Promise<T>): Promise<T> {
    while (this.closed) await this.closed;
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
export function gateFor(path: string): WriteGate | undefined {
  for (const [dir, gate] of gates) if (path.startsWith(dir + sep)) return gate;
  return undefined;
}

/** Runs a write through the gate of its data directory, or directly when none is open. */
export function gated<T>(path: string, write: () => Promise<T>): Promise<T> {
  const gate = gateFor(path);
  return gate ? gate.pass(write) : write();
}
