import { numberTickets } from './number-tickets.js';

/** One step from a data format to the next; it may be run again on a half-migrated directory. */
export interface Migration {
  from: number;
  /** What it changes, for the start-up message. */
  what: string;
  run(dataDir: string): Promise<void>;
}

/** Every step from format 0 to store/data-format.ts's DATA_FORMAT, in order. */
export const MIGRATIONS: Migration[] = [
  {
    from: 0,
    what: 'records the format in data/FORMAT (the layout is unchanged)',
    run: async () => {},
  },
  {
    from: 1,
    what: 'gives every ticket its number (#1001 on, per mode), oldest first',
    run: async (dataDir) => {
      await numberTickets(dataDir, 'live');
      await numberTickets(dataDir, 'test');
    },
  },
];
