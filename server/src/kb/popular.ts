import type { RateLimiter } from '../http/rate-limit.js';
import type { Article } from '../model/index.js';

/** What readers did with the articles in a period: per article id, its votes and its views. */
export type ArticleTally = Map<string, { helpful: number; not_helpful: number; views: number }>;

/** A reader opening a published article: the widget's article view (GET /kb?id= with a public key), or its help centre page. */
export interface ArticleView {
  at: string;
  article_id: string;
  view: true;
  mode: 'live' | 'test';
  source: 'help' | 'widget';
}

/** Where views are counted beside the votes (the help centre's feedback store). */
export interface ArticleActivity {
  /** Resolves once the view is durable. */
  recordView(view: ArticleView): Promise<void>;
  tally(mode: ArticleView['mode'], start: number, end: number): Promise<ArticleTally>;
  /** How many votes this process has recorded: a cached ranking made before the last one is stale. */
  readonly votesRecorded: number;
}

/** One address reading one article counts once in this time (a reload, or a script, adds nothing). */
const VIEW_WINDOW_MS = 10 * 60_000;
/** Views counted per address in VIEW_WINDOW_MS, over all articles: beyond them a page is served but not counted. */
const VIEWS_PER_ADDRESS = 60;

/**
 * A customer reading an article (the widget's article view or its help centre page) counts towards its
 * popularity: once per address and article in VIEW_WINDOW_MS, and at most VIEWS_PER_ADDRESS per
 * address (issue 31/33: every request used to add a stored view, a file that only grew). A view that
 * cannot be stored costs the reader nothing: the article is answered all the same.
 */
export async function countView(
  deps: {
    kbFeedback: ArticleActivity;
    rateLimiter: RateLimiter;
    logger: { warn(obj: object, msg: string): void };
  },
  address: string,
  view: ArticleView,
): Promise<void> {
  // The once-per-article window is asked first, so reloading one page does not use up the address's views.
  if (await deps.rateLimiter.hit(`kb-view:${view.mode}:${address}:${view.article_id}`, 1, VIEW_WINDOW_MS)) return;
  if (await deps.rateLimiter.hit(`kb-views:${address}`, VIEWS_PER_ADDRESS, VIEW_WINDOW_MS)) return;
  await deps.kbFeedback
    .recordView(view)
    .catch((err: unknown) => deps.logger.warn({ err }, 'an article view was not counted'));
}

/** The period popularity is counted over: recent enough to follow what customers ask now. */
export const POPULAR_DAYS = 90;
/** One "Yes" weighs as much as this many views, one "No" takes as much away. */
const VOTE_WEIGHT = 10;

/** How long a ranking's tally is reused: the knowledge base's and the help centre's homes are asked by every visitor. */
const CACHE_MS = 60_000;

/** Per store and mode: the tally over the window, when it was made, and the votes recorded then. */
const cached = new WeakMap<
  ArticleActivity,
  Map<ArticleView['mode'], { at: number; votes: number; tally: Promise<ArticleTally> }>
>();

/**
 * The tally of the POPULAR_DAYS before `now`, counted at most once a minute per store and mode (issue
 * 31/33: with PostgreSQL each anonymous home page counted every view row), and again at once after a
 * vote in this process, so a reader's "Yes" shows; a new view waits for the minute.
 */
function recentTally(activity: ArticleActivity, mode: ArticleView['mode'], now: number): Promise<ArticleTally> {
  let byMode = cached.get(activity);
  if (!byMode) cached.set(activity, (byMode = new Map()));
  const hit = byMode.get(mode);
  if (hit && hit.votes === activity.votesRecorded && now >= hit.at && now - hit.at < CACHE_MS) return hit.tally;
  const tally = activity.tally(mode, now - POPULAR_DAYS * 86_400_000, now + 1);
  const entry = { at: now, votes: activity.votesRecorded, tally };
  byMode.set(mode, entry);
  // A failed count is not kept: the next request asks again.
  tally.catch(() => byMode.get(mode) === entry && byMode.delete(mode));
  return tally;
}

/**
 * The articles, most popular first (issue 31: the knowledge base's home lists the most helpful): an
 * article's score is its views in the last POPULAR_DAYS days plus VOTE_WEIGHT for each "Yes" and minus
 * VOTE_WEIGHT for each "No" to "Was this helpful?" in them; equal scores go newest first (updated_at).
 */
export async function byPopularity<A extends Article>(
  articles: A[],
  activity: ArticleActivity,
  mode: ArticleView['mode'],
  now: Date,
): Promise<{ article: A; score: number }[]> {
  const tally = await recentTally(activity, mode, now.getTime());
  const score = (a: A) => {
    const t = tally.get(a.id);
    return t ? t.views + VOTE_WEIGHT * (t.helpful - t.not_helpful) : 0;
  };
  return articles
    .map((article) => ({ article, score: score(article) }))
    .sort((a, b) => b.score - a.score || b.article.updated_at.localeCompare(a.article.updated_at));
}
