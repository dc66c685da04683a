import type { Article, Report } from '../model/index.js';
import type { FeedbackStore, KbVote } from './feedback-store.js';

/**
 * "Was this helpful?" in a report: the votes given in the period, in total and per article (the
 * articles with the most votes first; an article deleted since keeps its votes with a null title).
 */
export async function feedbackFigures(
  store: FeedbackStore,
  kb: Article[],
  mode: KbVote['mode'],
  period: { start: number; end: number },
): Promise<Report['kb_feedback']> {
  const tally = await store.tally(mode, period.start, period.end);
  const titles = new Map(kb.map((a) => [a.id, a.title]));
  // Views are counted in the same store (for popularity): an article only read has no votes to report.
  const articles = [...tally]
    .filter(([, t]) => t.helpful + t.not_helpful > 0)
    .map(([id, t]) => ({
      article_id: id,
      title: titles.get(id) ?? null,
      helpful: t.helpful,
      not_helpful: t.not_helpful,
    }))
    .sort(
      (a, b) =>
        b.helpful + b.not_helpful - (a.helpful + a.not_helpful) ||
        b.not_helpful - a.not_helpful ||
        a.article_id.localeCompare(b.article_id),
    );
  return {
    helpful: articles.reduce((n, a) => n + a.helpful, 0),
    not_helpful: articles.reduce((n, a) => n + a.not_helpful, 0),
    articles,
  };
}
