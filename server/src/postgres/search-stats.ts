import type { KeyMode } from '../model/index.js';
import type { Sql } from './database.js';

/** About this many tickets' words are counted (a few thousand words' counts: a few MB in memory). */
const SAMPLE = 5000;

/**
 * How common each word of the tickets is, counted on a sample of them: /v1/search on PostgreSQL
 * chooses its plan from these counts (issue 32). Before, each search first read the newest 500
 * tickets' documents to count its words there: 4-40 ms a search, and sixteen at once queued in the
 * database (p50 211 ms on a quiet machine). A sample taken every few minutes costs that once.
 *
 * The counts only choose between two plans that are each correct for any count (see
 * PgTicketStore.search), so a word the sample never saw (new since, or rare) is safe to call rare.
 */
export class SearchWordStats {
  private constructor(
    /** The sample's words in code-unit order, so the words a prefix begins are one run of them. */
    private readonly words: string[],
    /** counts[i]: how many sampled tickets hold words[0..i-1], summed (counts[0] is 0). */
    private readonly counts: Float64Array,
    /** Tickets of the mode per sampled ticket. */
    private readonly scale: number,
    /** Tickets of the mode when sampled. */
    readonly tickets: number,
    /** When it was taken (ms). */
    readonly at: number,
  ) {}

  /**
   * Counts the words of about SAMPLE tickets of the mode: every ticket when there are no more; else,
   * when the mode holds most of the table, whole table pages at random (TABLESAMPLE SYSTEM: at a
   * million tickets about 1,000 pages); else (a small mode beside a large one, whose share of random
   * pages would mean reading most of the table) its newest SAMPLE, by the newest-first index.
   * PostgreSQL's ts_stat counts them (180 ms at a million tickets; unnest with GROUP BY took 1.0 s for
   * the same 57,000 words). ts_stat runs the query it is given as text: the mode goes in through
   * format's %L. The count of tickets read beside it reads the same rows: the same pages (REPEATABLE)
   * in the same snapshot (a REPEATABLE READ transaction).
   */
  static async sample(sql: Sql, mode: KeyMode): Promise<SearchWordStats> {
    const at = Date.now();
    const { tickets, rows, docs } = await sql.begin('isolation level repeatable read read only', async (tx) => {
      const [count] = await tx<{ n: number; all: number }[]>`
        SELECT coalesce(sum(n) FILTER (WHERE mode = ${mode}), 0)::float8 AS n, coalesce(sum(n), 0)::float8 AS all
        FROM ticket_view_counts WHERE waiting IS NOT NULL`;
      const tickets = count?.n ?? 0;
      // The rows read, with `mode` where the mode goes (a literal for ts_stat, a parameter for the count).
      const from = (mode: string) =>
        tickets <= SAMPLE
          ? `FROM tickets WHERE mode = ${mode} AND search_doc IS NOT NULL`
          : tickets >= count!.all / 2
            ? `FROM tickets TABLESAMPLE SYSTEM (${(100 * SAMPLE) / count!.all}) REPEATABLE (${at % 1e9})
                WHERE mode = ${mode} AND search_doc IS NOT NULL`
            : `FROM (SELECT search_doc FROM tickets WHERE mode = ${mode}
                ORDER BY created_at DESC, id DESC LIMIT ${SAMPLE}) newest WHERE search_doc IS NOT NULL`;
      const rows = await tx<{ word: string; n: number }[]>`
        SELECT word, ndoc AS n FROM ts_stat(format(${`SELECT search_doc ${from('%L')}`}, ${mode}::text))`;
      const [read] = await tx.unsafe<{ n: number }[]>(`SELECT count(*)::int AS n ${from('$1')}`, [mode]);
      return { tickets, rows, docs: read?.n ?? 0 };
    });
    rows.sort((a, b) => (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
    const counts = new Float64Array(rows.length + 1);
    rows.forEach((r, i) => (counts[i + 1] = counts[i]! + r.n));
    return new SearchWordStats(
      rows.map((r) => r.word),
      counts,
      docs ? Math.max(1, tickets / docs) : 1,
      tickets,
      at,
    );
  }

  /**
   * About how many tickets of the mode hold a word that `prefix` begins (as `prefix:*` matches): the
   * sampled tickets' counts of each such word, summed and scaled. A ticket holding two such words
   * counts twice, so this errs towards "common".
   */
  matches(prefix: string): number {
    const first = this.firstAtLeast(prefix);
    const end = this.firstAtLeast(`${prefix}\uffff`);
    return (this.counts[end]! - this.counts[first]!) * this.scale;
  }

  /** The index of the first word not before `key` in code-unit order. */
  private firstAtLeast(key: string): number {
    let lo = 0;
    let hi = this.words.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.words[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
