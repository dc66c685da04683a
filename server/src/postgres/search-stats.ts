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
   * Counts the words of about SAMPLE tickets of the mode: every ticket when there are no more, else
   * whole table pages at random (TABLESAMPLE SYSTEM: at a million tickets about 1,000 pages).
   * PostgreSQL's ts_stat counts them (180 ms at a million tickets; unnest with GROUP BY took 1.0 s
   * for the same 57,000 words, and the first search after a start waited for it). ts_stat runs the
   * query it is given as text: the mode goes in through format's %L, and REPEATABLE gives the count of
   * sampled tickets beside it the same pages.
   */
  static async sample(sql: Sql, mode: KeyMode): Promise<SearchWordStats> {
    const at = Date.now();
    const [count] = await sql<{ n: number }[]>`
      SELECT coalesce(sum(n), 0)::float8 AS n FROM ticket_view_counts WHERE mode = ${mode} AND waiting IS NOT NULL`;
    const tickets = count?.n ?? 0;
    // (A mode's rows are a share of the table's pages; the percentage is of the mode's tickets, so a
    // small mode beside a large one reads its rows by the index instead.)
    const pages = tickets <= SAMPLE ? '' : `TABLESAMPLE SYSTEM (${(100 * SAMPLE) / tickets}) REPEATABLE (${at % 1e9})`;
    const from = `FROM tickets ${pages} WHERE mode = %L AND search_doc IS NOT NULL`;
    const rows = await sql<{ word: string; n: number; docs: number }[]>`
      SELECT word, ndoc AS n, (SELECT count(*)::int FROM tickets ${sql.unsafe(pages)}
          WHERE mode = ${mode} AND search_doc IS NOT NULL) AS docs
      FROM ts_stat(format(${`SELECT search_doc ${from}`}, ${mode}::text))`;
    const docs = rows[0]?.docs ?? 0;
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
