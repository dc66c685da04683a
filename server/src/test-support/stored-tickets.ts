import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openTestDatabase } from './test-database.js';

/** A test server's store: its data directory, and its database when the tests run on PostgreSQL. */
export interface StoreOf {
  dataDir: string;
  databaseUrl?: string | undefined;
}

async function query<T>(store: StoreOf, run: (sql: ReturnType<typeof openTestDatabase>) => Promise<T>): Promise<T> {
  const sql = openTestDatabase(store.databaseUrl!);
  try {
    return await run(sql);
  } finally {
    await sql.end();
  }
}

/**
 * What a restart would find stored for one mode, read independently of the server: the ticket files
 * with the journal files (oldest first) applied over them, or the database's rows. Id -> the ticket's
 * JSON text. Tests use it to check that a refused request stored nothing, whether or not a checkpoint ran.
 */
export async function storedTickets(
  store: StoreOf | string,
  mode: 'live' | 'test' = 'live',
): Promise<Map<string, string>> {
  if (typeof store === 'string') store = { dataDir: store };
  if (store.databaseUrl) {
    const rows = await query(
      store,
      (sql) => sql<{ id: string; data: string }[]>`
      SELECT id, data::text AS data FROM tickets WHERE mode = ${mode}`,
    );
    return new Map(rows.map((r) => [r.id, r.data]));
  }
  const root = join(store.dataDir, mode);
  const stored = new Map<string, string>();
  for (const name of await readdir(join(root, 'tickets')))
    if (name.endsWith('.json')) stored.set(name.slice(0, -5), await readFile(join(root, 'tickets', name), 'utf8'));
  const journals = (await readdir(root)).filter((n) => /^journal-\d+\.jsonl$/.test(n)).sort();
  for (const name of journals)
    for (const line of (await readFile(join(root, name), 'utf8')).split('\n')) {
      if (!line) continue;
      const record = JSON.parse(line) as { ticket?: { id: string }; removed?: string };
      if (record.ticket) stored.set(record.ticket.id, JSON.stringify(record.ticket));
      else if (record.removed) stored.delete(record.removed);
    }
  return stored;
}

/** The ids of the attachment bytes stored for one ticket (files in its folder, or rows). */
export async function storedFileIds(store: StoreOf, ticketId: string, mode: 'live' | 'test' = 'live') {
  if (store.databaseUrl) {
    const rows = await query(
      store,
      (sql) => sql<{ id: string }[]>`
      SELECT id FROM ticket_files WHERE mode = ${mode} AND ticket_id = ${ticketId} ORDER BY id`,
    );
    return rows.map((r) => r.id);
  }
  return (await readdir(join(store.dataDir, mode, 'files', ticketId)).catch(() => [] as string[])).sort();
}

/** The stored bytes of one attachment. */
export async function storedFile(store: StoreOf, ticketId: string, fileId: string, mode: 'live' | 'test' = 'live') {
  if (store.databaseUrl) {
    const [row] = await query(
      store,
      (sql) => sql<{ data: Buffer }[]>`
      SELECT data FROM ticket_files WHERE mode = ${mode} AND ticket_id = ${ticketId} AND id = ${fileId}`,
    );
    return row!.data;
  }
  return readFile(join(store.dataDir, mode, 'files', ticketId, fileId));
}

/** The stored configuration as text (config.json, or the configuration row). */
export async function storedConfigText(store: StoreOf): Promise<string> {
  if (store.databaseUrl) {
    const [row] = await query(
      store,
      (sql) => sql<{ data: string }[]>`SELECT data::text AS data FROM config WHERE id = 1`,
    );
    return row!.data;
  }
  return readFile(join(store.dataDir, 'config.json'), 'utf8');
}

/** The deliveries waiting in the outbox as stored (the files in data/outbox, or rows), by id. */
export async function queuedJobs(
  store: StoreOf,
): Promise<{ id: string; attempts: number; last_error: string | null }[]> {
  if (store.databaseUrl) {
    const rows = await query(
      store,
      (sql) => sql<{ job: string }[]>`SELECT job::text AS job FROM outbox_jobs ORDER BY id`,
    );
    return rows.map((r) => JSON.parse(r.job));
  }
  const dir = join(store.dataDir, 'outbox');
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  // A job sent between the listing and the reading is gone: it is no longer waiting.
  const jobs = await Promise.all(names.map((n) => readFile(join(dir, n), 'utf8').catch(() => undefined)));
  return jobs.filter((text) => text !== undefined).map((text) => JSON.parse(text));
}

/** The ids of the deliveries waiting in the outbox. */
export async function queuedJobIds(store: StoreOf): Promise<string[]> {
  if (store.databaseUrl) return (await queuedJobs(store)).map((j) => j.id);
  return (await readdir(join(store.dataDir, 'outbox'))).filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5));
}

/** Replaces the stored configuration (a test writing a configuration of an older shape). */
export async function writeStoredConfigText(store: StoreOf, text: string) {
  if (store.databaseUrl) {
    await query(store, (sql) => sql`UPDATE config SET data = (${text}::text)::jsonb WHERE id = 1`);
    return;
  }
  await writeFile(join(store.dataDir, 'config.json'), text);
}

/** The stored audit entries as text (audit.jsonl, or the audit rows). */
export async function storedAuditText(store: StoreOf): Promise<string> {
  if (store.databaseUrl) {
    const rows = await query(
      store,
      (sql) => sql<{ entry: string }[]>`
      SELECT entry::text AS entry FROM logs WHERE log = 'audit' ORDER BY seq`,
    );
    return rows.map((r) => `${r.entry}\n`).join('');
  }
  return readFile(join(store.dataDir, 'audit.jsonl'), 'utf8');
}
