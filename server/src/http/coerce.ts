import { z } from 'zod';
import { EMAIL_PATTERN, emailAddress } from '../model/index.js';

// Form and multipart bodies (and queries) carry strings; JSON carries real types. These accept both,
// as docs/api.md says. Where zod's JSON Schema of an input would lose a rule (a pipe documents only
// its input side, a refinement not at all), `.meta` states the rule in the document as well.

const TRUE = ['true', '1', 'on', 'yes'];
const FALSE = ['false', '0', 'off', 'no'];
/** `true` in any case: [Tt][Rr][Uu][Ee] (JSON Schema patterns have no case-insensitive flag). */
const caseless = (word: string) => [...word].map((c) => (/[a-z]/.test(c) ? `[${c.toUpperCase()}${c}]` : c)).join('');

export const formBool = z.union([
  z.boolean(),
  z
    .string()
    .refine((s) => [...TRUE, ...FALSE].includes(s.toLowerCase()), 'must be true or false')
    .transform((s) => TRUE.includes(s.toLowerCase()))
    .meta({ pattern: `^(${[...TRUE, ...FALSE].map(caseless).join('|')})$` }),
]);

/**
 * A whole number from `min` (to `max`), as a JSON number or as its digits in a string. `digits` is
 * the same range as a pattern over the string form, for the document; the checks that give the
 * messages are the numeric ones.
 */
export function formInt(range: { min: number; max?: number; digits: string; message?: string }) {
  let n = z
    .number()
    .int('must be a whole number')
    .min(range.min, range.message ?? `must be at least ${range.min}`);
  if (range.max !== undefined) n = n.max(range.max, range.message ?? `must be at most ${range.max}`);
  return z.union([
    n,
    z
      .string()
      .regex(/^-?\d{1,15}$/, 'must be a whole number')
      .meta({ pattern: range.digits })
      .transform(Number)
      .pipe(n),
  ]);
}

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const LINE_BREAK = /[\r\n\u2028\u2029]/;
// The same rules as patterns, for the document (a refinement is not in JSON Schema): not blank (a
// lookahead, linear on a long text), and none of the refused characters.
const NOT_BLANK = '(?=[\\s\\S]*\\S)';
const ONE_LINE_PATTERN = `^${NOT_BLANK}[^\\x00-\\x08\\x0a-\\x1f\\x7f\\u2028\\u2029]*$`;
const TEXT_PATTERN = `^${NOT_BLANK}[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f]*$`;

/** A one-line text: no line breaks, so it can never inject a mail header. */
export const singleLine = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'is required')
    .max(max, `must be at most ${max} characters`)
    .refine((s) => !LINE_BREAK.test(s), 'must be on one line')
    .refine((s) => !CONTROL.test(s), 'must not contain control characters')
    .meta({ pattern: ONE_LINE_PATTERN })
    .describe(`one line, 1-${max} characters (surrounding spaces are dropped), no control characters`);

/** A multi-line text; blank is refused. */
export const longText = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max.toLocaleString('en')} characters`)
    .refine((s) => s.trim().length > 0, 'is required')
    .refine((s) => !CONTROL.test(s), 'must not contain control characters')
    .meta({ pattern: TEXT_PATTERN })
    .describe(`1-${max} characters, not blank, no control characters but tab and line breaks`);

export const email = z
  .string()
  .trim()
  .max(254, 'must be at most 254 characters')
  .meta({ format: 'email', pattern: EMAIL_PATTERN.source })
  .pipe(emailAddress('must be a valid email address'));

export const id = z.string().trim().min(1, 'is required').max(100);

/** "" and null mean "not given", as browsers send empty form fields. */
export const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' || v === null ? undefined : v), schema.optional());
