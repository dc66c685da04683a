import { z } from 'zod';
import { emailAddress } from '../model/index.js';

// Form and multipart bodies carry strings; JSON carries real types. These accept both, as API.md says.

const TRUE = new Set(['true', '1', 'on', 'yes']);
const FALSE = new Set(['false', '0', 'off', 'no']);

export const formBool = z.union([
  z.boolean(),
  z
    .string()
    .refine((s) => TRUE.has(s.toLowerCase()) || FALSE.has(s.toLowerCase()), 'must be true or false')
    .transform((s) => TRUE.has(s.toLowerCase())),
]);

export const formInt = z.union([
  z.number().int('must be a whole number'),
  z
    .string()
    .regex(/^-?\d{1,15}$/, 'must be a whole number')
    .transform(Number),
]);

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const LINE_BREAK = /[\r\n\u2028\u2029]/;

/** A one-line text: no line breaks, so it can never inject a mail header. */
export const singleLine = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'is required')
    .max(max, `must be at most ${max} characters`)
    .refine((s) => !LINE_BREAK.test(s), 'must be on one line')
    .refine((s) => !CONTROL.test(s), 'must not contain control characters');

/** A multi-line text; blank is refused. */
export const longText = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max.toLocaleString('en')} characters`)
    .refine((s) => s.trim().length > 0, 'is required')
    .refine((s) => !CONTROL.test(s), 'must not contain control characters');

export const email = z
  .string()
  .trim()
  .max(254, 'must be at most 254 characters')
  .pipe(emailAddress('must be a valid email address'));

export const id = z.string().trim().min(1, 'is required').max(100);

/** "" and null mean "not given", as browsers send empty form fields. */
export const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' || v === null ? undefined : v), schema.optional());
