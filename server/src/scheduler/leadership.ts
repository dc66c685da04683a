/**
 * Who runs the timed work (escalation, autoclose) when several instances share one store: one leader
 * at a time, the next one taking over when it dies. A server on its own data directory is always it.
 */
export interface Leadership {
  /** Whether this instance leads now; takes the lead when no one holds it. */
  lead(): Promise<boolean>;
  /** The leader's chores on shared state (expired rate windows, Idempotency-Keys past their day). */
  housekeeping(): Promise<void>;
  /** Lets go of the lead (a clean stop hands it over at once). */
  close(): Promise<void>;
}

export const soleLeader: Leadership = {
  lead: () => Promise.resolve(true),
  housekeeping: () => Promise.resolve(),
  close: () => Promise.resolve(),
};
