import type { ConfigData } from '../model/index.js';

/**
 * The configuration (config.json with lowdb today; a database table later). It is small and read on
 * every request, so every implementation keeps the current snapshot in memory and `get()` stays
 * synchronous: a database implementation refreshes its snapshot when another instance changes it.
 * Writes are asynchronous and durable before they resolve.
 */
export interface ConfigStore {
  /** The current configuration. Treat as read-only; change it through update(). */
  get(): ConfigData;
  /** Applies `change` to a copy, checks it whole, writes it durably, and only then makes it current. */
  update(change: (draft: ConfigData) => void): Promise<ConfigData>;
  /** Called after every successful update. */
  onChange(listener: (data: ConfigData) => void): void;
  /** True when there was no configuration before this start (the first start of a data directory). */
  readonly created: boolean;
}
