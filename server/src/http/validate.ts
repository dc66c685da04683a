import type { z } from 'zod';
import { fromZod } from './errors.js';

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
