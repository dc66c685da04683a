import { z } from 'zod';
import { CUSTOMER_LOCALES } from '../i18n/locales.js';
import { isoTime } from './common.js';

// An article's category (the help centre's sections) and its text in other languages (the help centre
// at /help/<lang>/ shows a translation where there is one, else the article as written).
const articleCategory = z
  .string()
  .trim()
  .max(100)
  .nullable()
  .default(null)
  .describe('the help centre section it is listed under; null: “General”');
const articleTranslations = z
  .partialRecord(
    z.enum(CUSTOMER_LOCALES),
    z.object({
      title: z.string().trim().min(1).max(300),
      body: z.string().max(100_000).default(''),
      category: z
        .string()
        .trim()
        .min(1)
        .max(100)
        .optional()
        .describe('the category’s name there (default: as written)'),
    }),
  )
  .default({})
  .describe('the title, body and category in other languages, by language (en, de, fr, es, ar)');

export const ArticleInputSchema = z.object({
  id: z.string().max(100).optional(),
  title: z.string().trim().min(1).max(300),
  body: z.string().max(100_000).default(''),
  published: z.boolean().default(false),
  category: articleCategory,
  translations: articleTranslations,
});

export const ArticleSchema = z
  .object({
    id: z.string().describe('art_…'),
    title: z.string(),
    body: z.string().describe('Markdown'),
    published: z.boolean(),
    category: articleCategory,
    translations: articleTranslations,
    created_at: isoTime,
    updated_at: isoTime,
  })
  .meta({ id: 'Article' });
export type Article = z.infer<typeof ArticleSchema>;

const textLang = z
  .enum(CUSTOMER_LOCALES)
  .describe('the language title, body and category are in (a translation’s, or the portal’s own)');

/** /kb?id=: the article as the reader's language shows it (its translation there, else as written). */
export const KbArticleSchema = ArticleSchema.extend({ lang: textLang }).meta({ id: 'KbArticle' });

export const KbListItemSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    excerpt: z.string().describe('the first words of the body as plain text'),
    category: articleCategory,
    lang: textLang,
    published: z.boolean(),
    updated_at: isoTime,
    highlight: z
      .object({
        title: z.array(z.tuple([z.number(), z.number()])),
        excerpt: z.array(z.tuple([z.number(), z.number()])),
      })
      .optional()
      .describe(
        'with q: the matched words in title and excerpt, as [start, end) offsets in UTF-16 code units (JavaScript string indices)',
      ),
  })
  .meta({ id: 'KbListItem' });
export type KbListItem = z.infer<typeof KbListItemSchema>;

/** /kb without an id: the overview, or the articles ranked for `q`. */
export const KbListSchema = z.object({ data: z.array(KbListItemSchema) });
