import type { ArticleActivity, ArticleTally, ArticleView } from '../kb/popular.js';
import { AppendLog } from '../store/append-log.js';
import { readLines } from '../store/read-lines.js';

/** One answer to "Was this helpful?" under an article (the help centre's form or the widget's buttons). */
export interface KbVote {
  at: string;
  article_id: string;
  helpful: boolean;
  /** The key's mode: the help centre is live; the widget votes in its key's mode, as its tickets. */
  mode: 'live' | 'test';
  source: 'help' | 'widget';
}

/** Votes per article: how many said yes and no, and how often it was read. */
export type VoteTally = ArticleTally;

/**
 * Where the votes are kept: kb_feedback.jsonl in the data directory (FileFeedbackStore), or rows of
 * the logs table with PostgreSQL (postgres/pg-feedback-store.ts). Votes are written by anonymous
 * visitors, so they stay out of the configuration (written whole on every change).
 */
export interface FeedbackStore extends ArticleActivity {
  /** Resolves once the vote is durable. */
  record(vote: KbVote): Promise<void>;
  /** The votes and views of `mode` given in [start, end) (epoch milliseconds), per article. */
  tally(mode: KbVote['mode'], start: number, end: number): Promise<VoteTally>;
  /**
   * Removes the views from before `before` (an ISO time; the file store from the start of its quarter
   * hour), keeping every vote (reports count them over any period); resolves to how many went.
   */
  pruneViews(before: string): Promise<number>;
  close(): Promise<void>;
}

// Counts are kept per quarter of an hour: every time zone's midnight falls on one (UTC+5:45 included),
// so a report's days, in the portal's time zone, are exact sums of buckets.
const BUCKET_MS = 15 * 60_000;

/**
 * kb_feedback.jsonl: each vote, and each view (`"view": true`), one fsynced line (AppendLog). The counts live in memory, per article
 * and quarter hour, read from the whole file at start, line by line: a report never reads the file.
 */
export class FileFeedbackStore implements FeedbackStore {
  private readonly buckets = new Map<string, Map<number, { helpful: number; not_helpful: number; views: number }>>();

  private constructor(private readonly log: AppendLog<KbVote | ArticleView>) {}

  static async open(path: string): Promise<FileFeedbackStore> {
    const store = new FileFeedbackStore(await AppendLog.open<KbVote | ArticleView>(path));
    for await (const line of readLines(path)) {
      if (!line) continue;
      try {
        store.count(JSON.parse(line) as KbVote | ArticleView);
      } catch {
        /* a line cut by a crash */
      }
    }
    return store;
  }

  private count(vote: KbVote | ArticleView) {
    const key = `${vote.mode} ${vote.article_id}`;
    let byBucket = this.buckets.get(key);
    if (!byBucket) this.buckets.set(key, (byBucket = new Map()));
    const bucket = Math.floor(Date.parse(vote.at) / BUCKET_MS);
    const counts = byBucket.get(bucket) ?? { helpful: 0, not_helpful: 0, views: 0 };
    if ('view' in vote) counts.views++;
    else if (vote.helpful) counts.helpful++;
    else counts.not_helpful++;
    byBucket.set(bucket, counts);
  }

  votesRecorded = 0;

  async record(vote: KbVote) {
    await this.log.append(vote);
    this.count(vote);
    this.votesRecorded++;
  }

  async recordView(view: ArticleView) {
    await this.log.append(view);
    this.count(view);
  }

  tally(mode: KbVote['mode'], start: number, end: number): Promise<VoteTally> {
    const tally: VoteTally = new Map();
    const [first, last] = [Math.floor(start / BUCKET_MS), Math.ceil(end / BUCKET_MS)];
    for (const [key, byBucket] of this.buckets) {
      const [m, article] = key.split(' ') as [string, string];
      if (m !== mode) continue;
      for (const [bucket, counts] of byBucket) {
        if (bucket < first || bucket >= last) continue;
        const sum = tally.get(article) ?? { helpful: 0, not_helpful: 0, views: 0 };
        sum.helpful += counts.helpful;
        sum.not_helpful += counts.not_helpful;
        sum.views += counts.views;
        tally.set(article, sum);
      }
    }
    return Promise.resolve(tally);
  }

  async pruneViews(before: string): Promise<number> {
    // Cut at a quarter hour, so that the counts in memory and the file drop the same views.
    const first = Math.floor(Date.parse(before) / BUCKET_MS);
    const cut = new Date(first * BUCKET_MS).toISOString();
    const dropped = await this.log.retain((e) => !('view' in e) || e.at >= cut);
    for (const [key, byBucket] of this.buckets) {
      for (const [bucket, counts] of byBucket) {
        if (bucket >= first) continue;
        counts.views = 0;
        if (!counts.helpful && !counts.not_helpful) byBucket.delete(bucket);
      }
      if (!byBucket.size) this.buckets.delete(key);
    }
    return dropped;
  }

  close() {
    return this.log.close();
  }
}
