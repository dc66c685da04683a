import { z } from 'zod';
import { formBool } from '../http/coerce.js';
import { notFound } from '../http/errors.js';
import { routeFor } from '../http/route.js';
import type { ConfigStore } from '../store/config-store.js';
import type { FeedbackStore } from './feedback-store.js';

/** What the help centre and its vote route need from the app (the app's Deps provides it). */
export interface HelpCentreDeps {
  configStore: ConfigStore;
  kbFeedback: FeedbackStore;
  clock: () => Date;
  /** The server's public address (TICKETING_PUBLIC_URL, else the address it listens on). */
  publicUrl: () => string;
  logger: { warn(obj: object, msg: string): void };
}

const route = routeFor<HelpCentreDeps>();

const FeedbackInput = z.object({
  article_id: z.string().max(100).describe('the article (art_…)'),
  helpful: formBool.describe('true: “Yes”, false: “No”'),
});

const feedback = route({
  method: 'post',
  path: '/kb/feedback',
  access: 'customer',
  module: 'kb',
  summary: 'Answer “Was this helpful?” under a published article',
  description:
    'One vote, counted in GET /reports (`kb_feedback`) for the period it was given in, in the key’s mode. ' +
    'The help centre’s pages (/help) take the same vote by a form, without a key.',
  body: { schema: FeedbackInput, encodings: ['json', 'form', 'multipart'] },
  stores: 'text',
  responses: {
    200: {
      description: 'The vote is stored',
      schema: z.strictObject({ article_id: z.string(), helpful: z.boolean() }),
    },
  },
  errors: { 404: ['article_not_found'] },
  async handler({ actor, body }, deps) {
    const article = deps.configStore.get().kb.find((a) => a.id === body.article_id && a.published);
    if (!article) throw notFound('article');
    await deps.kbFeedback.record({
      at: deps.clock().toISOString(),
      article_id: article.id,
      helpful: body.helpful,
      mode: actor.mode,
      source: 'widget',
    });
    return { body: { article_id: article.id, helpful: body.helpful } };
  },
});

export const helpCentreRoutes = [feedback];
