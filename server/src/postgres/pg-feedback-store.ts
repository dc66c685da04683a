import type { FeedbackStore, KbVote, VoteTally } from '../helpcentre/feedback-store.js';
import type { ArticleView } from '../kb/popular.js';
import type { Database } from './database.js';
import { PgLog } from './pg-log.js';

/** The help centre's votes (and the articles' views) as rows of the logs table (log 'kb_feedback'), counted in SQL for a report. */
export class PgFeedbackStore implements FeedbackStore {
  private readonly log: PgLog<KbVote | ArticleView>;

  constructor(private readonly db: Database) {
    this.log = new PgLog<KbVote | ArticleView>(db, 'kb_feedback');
  }

  /** Votes through this instance; one through another shows in the others' rankings within their cache's minute. */
  votesRecorded = 0;

  async record(vote: KbVote) {
    await this.log.append(vote);
    this.votesRecorded++;
  }

  recordView(view: ArticleView) {
    return this.log.append(view);
  }

  async tally(mode: KbVote['mode'], start: number, end: number): Promise<VoteTally> {
    const sql = await this.db.q();
    // `at` is an ISO 8601 UTC string of fixed width: its order is the order of the instants.
    // A view's entry has `"view": true` and no `helpful`.
    const rows = await sql<{ article: string; helpful: number; not_helpful: number; views: number }[]>`
      SELECT entry->>'article_id' AS article,
             count(*) FILTER (WHERE (entry->>'helpful')::boolean)::int AS helpful,
             count(*) FILTER (WHERE NOT (entry->>'helpful')::boolean)::int AS not_helpful,
             count(*) FILTER (WHERE entry->>'view' = 'true')::int AS views
      FROM logs
      WHERE log = 'kb_feedback' AND entry->>'mode' = ${mode}
        AND entry->>'at' >= ${new Date(start).toISOString()} AND entry->>'at' < ${new Date(end).toISOString()}
      GROUP BY 1`;
    return new Map(rows.map((r) => [r.article, { helpful: r.helpful, not_helpful: r.not_helpful, views: r.views }]));
  }

  async pruneViews(before: string): Promise<number> {
    const sql = await this.db.q();
    const { count } = await sql`
      DELETE FROM logs WHERE log = 'kb_feedback' AND entry->>'view' = 'true' AND entry->>'at' < ${before}`;
    return count;
  }

  close() {
    return Promise.resolve();
  }
}
