import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A request's writes as one unit: the ticket, the deliveries it queues and its audit entry are stored
 * together or not at all, before the answer goes out. The JSON-file stores order their durable writes
 * instead (ticket, then jobs, then the answer) and run the work as it is; the PostgreSQL stores run it
 * in one transaction (postgres/database.ts), which the stores find through `currentUnit()`.
 */
export type UnitOfWork = <T>(work: () => Promise<T>) => Promise<T>;

/** The JSON-file stores' unit: each write is durable on its own, in the order the work makes them. */
export const orderedWrites: UnitOfWork = (work) => work();

/** What one running unit holds: the implementation's transaction, and what to do once it ends. */
export interface Unit {
  /** Opened by the implementation on the first write or read that needs it. */
  tx: unknown;
  committed: (() => void)[];
  rolledBack: (() => void)[];
}

const units = new AsyncLocalStorage<Unit>();

export const currentUnit = () => units.getStore();

/** Runs `work` inside `unit` (for implementations of UnitOfWork). */
export const insideUnit = <T>(unit: Unit, work: () => Promise<T>) => units.run(unit, work);

/**
 * Runs `fn` once what the caller wrote is visible to everyone: after the unit commits, or at once when
 * there is no unit (the JSON-file stores, whose writes are visible when they resolve). The outbox
 * starts sending this way: a job is not sent before the ticket it belongs to is stored.
 */
export function afterCommit(fn: () => void) {
  const unit = units.getStore();
  if (unit) unit.committed.push(fn);
  else fn();
}

/** Runs `fn` when the unit is rolled back (an in-memory copy goes back to what is stored). */
export function onRollback(fn: () => void) {
  units.getStore()?.rolledBack.push(fn);
}

/**
 * Runs `fn` outside any unit: work a request starts but does not wait for (a mail it must not be seen
 * to queue or not) uses the stores on its own, not the request's transaction, which ends before it.
 */
export const outsideUnit = (fn: () => void) => units.exit(fn);
