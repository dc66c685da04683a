import { z } from 'zod';
import { emailAddress, type Category, type CategoryField } from '../model/index.js';
import { ApiError, type ErrorDetail } from '../http/errors.js';
import { formBool } from '../http/coerce.js';

const MAX_VALUE = 5000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

type Value = string | number | boolean;

function checkOne(field: CategoryField, raw: unknown): { value?: Value; error?: string } {
  if (field.type === 'checkbox') {
    const b = formBool.safeParse(raw);
    if (!b.success) return { error: 'must be true or false' };
    if (field.required && !b.data) return { error: 'must be checked' };
    return { value: b.data };
  }
  if (typeof raw === 'number' && field.type === 'number')
    return Number.isFinite(raw) ? { value: raw } : { error: 'must be a number' };
  if (typeof raw !== 'string') return { error: 'must be text' };
  const text = raw.trim();
  if (text.length > MAX_VALUE) return { error: `must be at most ${MAX_VALUE} characters` };
  switch (field.type) {
    case 'number': {
      const n = Number(text);
      return text !== '' && Number.isFinite(n) ? { value: n } : { error: 'must be a number' };
    }
    case 'email':
      return emailAddress().safeParse(text).success ? { value: text } : { error: 'must be a valid email address' };
    case 'url':
      return z.url({ protocol: /^https?$/ }).safeParse(text).success
        ? { value: text }
        : { error: 'must be an http or https URL' };
    case 'date': {
      const d = new Date(`${text}T00:00:00Z`);
      return DATE.test(text) && !Number.isNaN(d.getTime()) && d.toISOString().startsWith(text)
        ? { value: text }
        : { error: 'must be a date as YYYY-MM-DD' };
    }
    case 'select':
      return field.options?.includes(text)
        ? { value: text }
        : { error: `must be one of: ${field.options?.join(', ')}` };
    default:
      return { value: text };
  }
}

/**
 * Checks custom field values against the category's fields: required ones present, each well formed.
 * Values for fields the category does not have are dropped. Errors name `fields.<id>`.
 */
export function checkFields(
  category: Category | undefined,
  input: Record<string, unknown> | undefined,
): Record<string, Value> {
  const out: Record<string, Value> = {};
  if (!category) return out;
  const details: ErrorDetail[] = [];
  for (const field of category.fields) {
    const raw = input && Object.hasOwn(input, field.id) ? input[field.id] : undefined;
    const empty = raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '');
    if (empty) {
      if (field.required && field.type !== 'checkbox')
        details.push({ param: `fields.${field.id}`, message: 'is required' });
      else if (field.required) details.push({ param: `fields.${field.id}`, message: 'must be checked' });
      continue;
    }
    const { value, error } = checkOne(field, raw);
    if (error) details.push({ param: `fields.${field.id}`, message: error });
    else if (value !== undefined) out[field.id] = value;
  }
  if (details.length) {
    const first = details[0]!;
    throw new ApiError(400, 'validation_failed', `${first.param}: ${first.message}`, { param: first.param, details });
  }
  return out;
}
