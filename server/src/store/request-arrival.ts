import { AsyncLocalStorage } from 'node:async_hooks';

const arrivals = new AsyncLocalStorage<number>();

/**
 * Runs a request's handling with the moment it arrived (performance.now()) at hand for the stores:
 * PostgreSQL's change feed (postgres/change-feed.ts) serves a held ticket without a statement of its
 * own when a barrier sent after that moment has answered.
 */
export const withArrival = <T>(at: number, handle: () => Promise<T>) => arrivals.run(at, handle);

/** When the request being served arrived, or undefined outside a request. */
export const arrivedAt = () => arrivals.getStore();
