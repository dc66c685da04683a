import type { z } from 'zod';
import { fromZod } from './errors.js';

/**
 * Parses with zod; a failure becomes 400 validation_failed naming every bad field (below `at`, when the
 * input is one field of a larger body).
 */
export function validate<T extends z.ZodType>(schema: T, input: unknown, at?: string): z.infer<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw fromZod(result.error, at);
  return result.data;
}
