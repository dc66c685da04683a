import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { CliError, withDataDir } from './data-dir-access.js';
import { loadConfig } from '../config/config.js';
import { FileJobStore } from '../store/file-job-store.js';
import { FileTicketStore } from '../store/file-ticket-store.js';
import { IDEMPOTENCY_MS, type KeyMode, type StoredTicket } from '../store/ticket-store.js';
import { Database, redactedUrl } from '../postgres/database.js';
import { migrate } from '../postgres/migrations.js';
import { configRow } from '../postgres/pg-config-store.js';
import { PgJobStore } from '../postgres/pg-job-store.js';
import { PgKeyStore } from '../postgres/pg-key-store.js';
import { PgLog } from '../postgres/pg-log.js';
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

/** Every whole line of a JSON-lines log, oldest first (a line cut by a crash is left out, as the server does). */
async function readLog(path: string): Promise<unknown[]> {
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  const entries: unknown[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      entries.push(JSON.parse(line));
    } catch {
      /* a line cut by a crash */
    }
  }
  return entries;
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
          const source = Object.fromEntries(
            await Promise.all(MODES.map(async (m) => [m, await FileTicketStore.open(dir, m)] as const)),
          ) as Record<KeyMode, FileTicketStore>;
          const logger = pino({ level: 'silent' });
          const jobs = await (await FileJobStore.open(dir, logger)).pending();
          const logs = await Promise.all(LOGS.map(async (l) => ({ ...l, entries: await readLog(join(dir, l.file)) })));
          const data = configStore.get();
          const expected: Counts = { configuration: 1, keys: data.keys.length, jobs: jobs.length, files: 0 };
          for (const l of logs) expected[`log:${l.log}`] = l.entries.length;
          const total = (await source.live.count({})) + (await source.test.count({}));
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
              let copied = 0;
              for (const mode of MODES) {
                expected[`tickets:${mode}`] = 0;
                for await (const facts of source[mode].scan()) {
                  // The file store's record whole, with its internal fields (escalations, Idempotency-Keys).
                  const ticket = (await source[mode].get(facts.item.id)) as StoredTicket | undefined;
                  if (!ticket) continue;
                  await stores[mode].insertRow(sql, ticket);
                  const ids = [...ticket.attachments, ...ticket.replies.flatMap((r) => r.attachments)].map((a) => a.id);
                  const files = [];
                  for (const id of ids) {
                    const bytes = await source[mode].read(ticket.id, id);
                    if (bytes) files.push({ id, data: bytes });
                  }
                  await stores[mode].insertFiles(sql, ticket.id, files);
                  expected.files! += files.length;
                  for (const k of ticket.idempotency ?? [])
                    if (Date.parse(k.at) + IDEMPOTENCY_MS > now) await stores[mode].claimKey(sql, k, ticket.id);
                  expected[`tickets:${mode}`]!++;
                  if (++copied % PROGRESS_EVERY === 0) say(`copied ${copied} of ${total} tickets`);
                }
                // Deleted tickets' numbers included: the database never gives one again.
                await stores[mode].setLastNumber(sql, source[mode].lastGiven);
              }
              for (const l of logs) {
                const log = new PgLog(db, l.log);
                for (const entry of l.entries) await log.append(entry);
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
