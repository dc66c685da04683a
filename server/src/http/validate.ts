import type { z } from 'zod';
import { fromZod, validationError } from './errors.js';

/**
 * Hand-written parses of schemas on a hot path (GET /ticket's query): each answers exactly what the
 * schema's parse would for the inputs it takes, and undefined for every other input, which zod then
 * parses (with its messages). A test compares each with zod on good and bad inputs.
 */
const fastPaths = new WeakMap<z.ZodType, (input: unknown) => unknown>();

/** Registers `fast` as `schema`'s fast path (see fastPaths) and returns the schema. */
export function withFastPath<T extends z.ZodType>(schema: T, fast: (input: unknown) => z.output<T> | undefined): T {
  fastPaths.set(schema, fast);
  return schema;
}

/**
 * Refuses a query or body holding a NUL character in any string (or key), with 400 validation_failed
 * naming the field. PostgreSQL cannot store one in text or jsonb (it answered 500), and no field of
 * this API has a use for it: both stores refuse it alike. Iterative: a deeply nested body must not
 * overflow the stack.
 */
export function refuseNul(input: unknown) {
  const stack: [unknown, string][] = [[input, '']];
  while (stack.length) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\0')) throw validationError(path || 'body', 'must not contain a NUL character');
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const at = path ? `${path}.${key}` : key;
        if (key.includes('\0')) throw validationError(at, 'must not contain a NUL character');
        stack.push([item, at]);
      }
    }
  }
}

/**
 * Parses with zod; a failure becomes 400 validation_failed naming every bad field (below `at`, when the
 * input is one field of a larger body).
 */
export function validate<T extends z.ZodType>(schema: T, input: unknown, at?: string): z.infer<T> {
  const fast = fastPaths.get(schema)?.(input);
  if (fast !== undefined) return fast as z.infer<T>;
  const result = schema.safeParse(input);
  if (!result.success) throw fromZod(result.error, at);
  return result.data;
}
