import type { Strings } from '../i18n/en.js';
import { fill } from '../i18n/t.js';
import type { Category } from '../types.js';
import { LIMITS } from './limits.js';

export { LIMITS };

// The server's checks for a new ticket (server/src/tickets/schema.ts, tickets/fields.ts), repeated
// here so that every problem shows at once, in the customer's language, before anything is sent. The
// server stays the judge: what it refuses still lands next to the field its `param` names.

/** zod's email pattern, the one the server checks with. */
const EMAIL = /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

type Field = Category['fields'][number];

const isEmail = (v: string) => v.length <= LIMITS.email && EMAIL.test(v);
function isUrl(v: string) {
  try {
    return /^https?:$/.test(new URL(v).protocol);
  } catch {
    return false;
  }
}
const isDate = (v: string) => DATE.test(v) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);

/** One custom field's problem, or undefined. Checkbox values are "true" / "false". */
function checkField(t: Strings, field: Field, raw: string | undefined): string | undefined {
  const v = (raw ?? '').trim();
  if (field.type === 'checkbox') return field.required && v !== 'true' ? t.mustCheck : undefined;
  if (!v) return field.required ? t.required : undefined;
  if (v.length > LIMITS.field) return fill(t.tooLong, { max: LIMITS.field });
  switch (field.type) {
    case 'number':
      return Number.isFinite(Number(v)) ? undefined : t.badNumber;
    case 'email':
      return isEmail(v) ? undefined : t.badEmail;
    case 'url':
      return isUrl(v) ? undefined : t.badUrl;
    case 'date':
      return isDate(v) ? undefined : t.badDate;
    case 'select':
      return field.options?.includes(v) ? undefined : t.badOption;
    default:
      return undefined;
  }
}

/** Every problem of the new-ticket form, keyed as the server's `param`s are (`fields.<id>` for custom fields). */
export function checkNewTicket(
  t: Strings,
  values: { name: string; email: string; subject: string; message: string; category: string },
  custom: Record<string, string>,
  category: Category | undefined,
  requireCategory: boolean,
): Record<string, string> {
  const errors: Record<string, string> = {};
  // One-line texts are trimmed before the server counts them; the message is counted as it is.
  const text = (key: 'name' | 'subject' | 'message', max: number) => {
    const v = key === 'message' ? values[key] : values[key].trim();
    if (!v.trim()) errors[key] = t.required;
    else if (v.length > max) errors[key] = fill(t.tooLong, { max });
  };
  text('name', LIMITS.name);
  const email = values.email.trim();
  if (!email) errors.email = t.required;
  else if (!isEmail(email)) errors.email = t.badEmail;
  if (requireCategory && !values.category) errors.category = t.required;
  for (const f of category?.fields ?? []) {
    const problem = checkField(t, f, custom[f.id]);
    if (problem) errors[`fields.${f.id}`] = problem;
  }
  text('subject', LIMITS.subject);
  text('message', LIMITS.message);
  return errors;
}
