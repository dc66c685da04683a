import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { CliError, withDataDir } from './data-dir-access.js';
import { loadConfig } from '../config/config.js';
import { FileJobStore } from '../store/file-job-store.js';
import { FileTicketStore } from '../store/file-ticket-store.js';
import { IDEMPOTENCY_MS, type KeyMode, type StoredTicket } from '../store/ticket-store.js';
import { Database, redactedUrl, type Sql } from '../postgres/database.js';
import { migrate, VIEW_COUNTS_FROM_ROWS } from '../postgres/migrations.js';
import { configRow } from '../postgres/pg-config-store.js';
import { PgJobStore } from '../postgres/pg-job-store.js';
import { PgKeyStore } from '../postgres/pg-key-store.js';
import { PgTicketStore } from '../postgres/pg-ticket-store.js';
import { markMoved } from '../datadir/moved.js';

export const MIGRATE_USAGE = `  ticketing migrate --to postgres://user:password@host:5432/database
                                                    copy the data directory into an empty PostgreSQL database`;

const MODES: KeyMode[] = ['live', 'test'];
/** The append-only logs: their file in the data directory, their name in the logs table. */
const LOGS = [
  { file: 'audit.jsonl', log: 'audit' },
  { file: 'webhook_log.jsonl', log: 'webhook' },
  { file: 'outbox_log.jsonl', log: 'outbox' },
  { file: 'kb_feedback.jsonl', log: 'kb_feedback' },
] as const;
const PROGRESS_EVERY = 1000;

/** Log lines inserted by one statement. */
const LOG_BATCH = 1000;

/**
 * Every whole line of a JSON-lines log, oldest first, a batch at a time (a line cut by a crash is left
 * out, as the server does): read as a stream, so a log of gigabytes is never in memory whole.
 */
async function* logBatches(path: string): AsyncGenerator<string[]> {
  if (!existsSync(path)) return;
  const batch: string[] = [];
  for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    if (!line) continue;
    try {
      JSON.parse(line);
    } catch {
      continue; // a line cut by a crash
    }
    batch.push(line);
    if (batch.length === LOG_BATCH) yield batch.splice(0);
  }
  if (batch.length) yield batch;
}

type Counts = Record<string, number>;

/**
 * ticketing migrate --to URL: copies a stopped server's data directory (TICKETING_DATA_DIR) into an
 * empty PostgreSQL database, in one transaction: the configuration, the keys, every ticket of both
 * modes with its attachments and Idempotency-Keys of the last day, the logs and the waiting
 * deliveries. Before it commits, it counts what the database holds against what it read; any
 * difference rolls everything back. The data directory is only read. A database that holds anything
 * is refused, so running it twice copies nothing twice.
 */
export async function migrateCommand(args: string[], dataDir: string): Promise<number> {
  const { values } = parseArgs({ args, options: { to: { type: 'string' } } });
  if (!values.to) throw new CliError(`Name the database to copy into:\n${MIGRATE_USAGE}`);
  const config = loadConfig({ ...process.env, TICKETING_DATABASE_URL: values.to }).database!;
  const where = redactedUrl(config.url);
  const say = (line: string) => process.stderr.write(`${line}\n`);

  return withDataDir(
    dataDir,
    { create: false },
    {
      running: () => {
        throw new CliError(
          'A server runs on this data directory: stop it first, so that nothing changes during the copy.',
        );
      },
      stopped: async ({ dataDir: dir, configStore }) => {
        const db = await Database.connect({ ...config, pool: 2, waitSeconds: 0 }, { waiting: say });
        try {
          await migrate(db.sql);
          const stores = Object.fromEntries(MODES.map((m) => [m, new PgTicketStore(db, m)])) as Record<
            KeyMode,
            PgTicketStore
          >;
          // Read a batch at a time, never all at once: memory stays that of a batch, whatever the store's size.
          const source = Object.fromEntries(
            await Promise.all(MODES.map(async (m) => [m, await FileTicketStore.openUnindexed(dir, m)] as const)),
          ) as Record<KeyMode, FileTicketStore>;
          const logger = pino({ level: 'silent' });
          const jobs = await (await FileJobStore.open(dir, logger)).pending();
          const data = configStore.get();
          const expected: Counts = { configuration: 1, keys: data.keys.length, jobs: jobs.length, files: 0 };
          const now = Date.now();

          try {
            await db.unit(async () => {
              const sql = await db.q();
              const held = await countRows(sql);
              const holding = Object.entries(held).filter(([, n]) => n > 0);
              if (holding.length)
                throw new CliError(
                  `The database at ${where} is not empty (${holding.map(([k, n]) => `${n} ${k}`).join(', ')}): the copy goes only into an empty one. Nothing was changed.`,
                );
              await sql`INSERT INTO config (id, data, version) VALUES (1, ${sql.json(configRow(data))}, 1)`;
              await new PgKeyStore(db).add(...data.keys);
              // The views' numbers (schema 12) are made once from the copied rows, not by their trigger
              // row by row: rows appended for each ticket copied, and (before schema 13) one counter
              // row rewritten by every ticket of the transaction, whose versions each next update walked
              // again (100k tickets: still copying after 15 minutes).
              await sql`ALTER TABLE tickets DISABLE TRIGGER tickets_view_counted`;
              let copied = 0;
              for (const mode of MODES) {
                expected[`tickets:${mode}`] = 0;
                for await (const batch of source[mode].batches()) {
                  expected.files! += await copyBatch(sql, stores[mode], source[mode], batch, now);
                  expected[`tickets:${mode}`]! += batch.length;
                  const before = copied;
                  copied += batch.length;
                  if (Math.floor(copied / PROGRESS_EVERY) > Math.floor(before / PROGRESS_EVERY))
                    say(`copied ${copied} tickets`);
                }
                // Deleted tickets' numbers included: the database never gives one again.
                await stores[mode].setLastNumber(sql, source[mode].lastGiven);
              }
              await sql.unsafe(VIEW_COUNTS_FROM_ROWS);
              await sql`ALTER TABLE tickets ENABLE TRIGGER tickets_view_counted`;
              for (const l of LOGS) {
                expected[`log:${l.log}`] = 0;
                for await (const lines of logBatches(join(dir, l.file))) {
                  await sql`INSERT INTO logs (log, entry) SELECT ${l.log}, e::jsonb FROM unnest(${lines}::text[]) WITH ORDINALITY AS x (e, n) ORDER BY n`;
                  expected[`log:${l.log}`]! += lines.length;
                }
              }
              const jobStore = new PgJobStore(db);
              for (const job of jobs) await jobStore.add(job);

              // Counted in the transaction, before it commits: a difference keeps nothing. (Asked through
              // q(), which first sends the log and job rows the stores queued to go out with the commit.)
              const stored = await countRows(await db.q());
              const wrong = Object.keys(expected).filter((k) => stored[k] !== expected[k]);
              if (wrong.length)
                throw new CliError(
                  `The copy does not add up (${wrong.map((k) => `${k}: read ${expected[k]}, stored ${stored[k]}`).join('; ')}). Nothing was kept.`,
                );
            });
          } finally {
            await Promise.all(MODES.map((m) => source[m].close()));
          }
          await markMoved(dir, where, new Date());
          const lines = Object.entries(expected).map(([k, n]) => `  ${k.padEnd(16)} ${n}`);
          console.log(`copied ${dir} into ${where}, counts checked:\n${lines.join('\n')}`);
          console.log(
            'Start the server with TICKETING_DATABASE_URL set to this database. The data directory is unchanged, and marked as moved: a server or command started on it without TICKETING_DATABASE_URL refuses to run.',
          );
          return 0;
        } finally {
          await db.close();
        }
      },
    },
  );
}

/** What the database holds, by the names the copy counts. */
async function countRows(sql: Awaited<ReturnType<Database['q']>>): Promise<Counts> {
  const [row] = await sql<Record<string, number>[]>`
    SELECT
      (SELECT count(*)::int FROM tickets WHERE mode = 'live') AS "tickets:live",
      (SELECT count(*)::int FROM tickets WHERE mode = 'test') AS "tickets:test",
      (SELECT count(*)::int FROM ticket_files) AS files,
      (SELECT count(*)::int FROM api_keys) AS keys,
      (SELECT count(*)::int FROM outbox_jobs) AS jobs,
      (SELECT count(*)::int FROM config) AS configuration,
      (SELECT count(*)::int FROM logs WHERE log = 'audit') AS "log:audit",
      (SELECT count(*)::int FROM logs WHERE log = 'webhook') AS "log:webhook",
      (SELECT count(*)::int FROM logs WHERE log = 'outbox') AS "log:outbox",
      (SELECT count(*)::int FROM logs WHERE log = 'kb_feedback') AS "log:kb_feedback"`;
  return row!;
}

/** Attachment bytes sent in one statement at most (a batch's files are read and sent in parts of this size). */
const FILE_BYTES = 16 << 20;

/**
 * A batch of tickets into the copy's transaction: their rows in one statement, their attachments'
 * bytes a few megabytes a statement, their Idempotency-Keys of the last day in one: a handful of round
 * trips for hundreds of tickets. Answers how many files it copied.
 */
async function copyBatch(sql: Sql, into: PgTicketStore, from: FileTicketStore, batch: StoredTicket[], now: number) {
  await into.insertRows(sql, batch);
  let files: { ticketId: string; id: string; data: Uint8Array }[] = [];
  let bytes = 0;
  let copied = 0;
  for (const ticket of batch)
    for (const a of [...ticket.attachments, ...ticket.replies.flatMap((r) => r.attachments)]) {
      const data = await from.read(ticket.id, a.id);
      if (!data) continue;
      files.push({ ticketId: ticket.id, id: a.id, data });
      copied++;
      bytes += data.byteLength;
      if (bytes >= FILE_BYTES) {
        await into.insertManyFiles(sql, files);
        files = [];
        bytes = 0;
      }
    }
  await into.insertManyFiles(sql, files);
  await into.insertKeys(
    sql,
    batch.flatMap((t) =>
      (t.idempotency ?? [])
        .filter((k) => Date.parse(k.at) + IDEMPOTENCY_MS > now)
        .map((record) => ({ record, ticketId: t.id })),
    ),
  );
  return copied;
}
