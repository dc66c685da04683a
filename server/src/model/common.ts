import { z } from 'zod';

// Building blocks of the wire and configuration schemas. Declared once; every schema that needs an
// email address, a slug or a time uses these, so the OpenAPI document says what the server checks.

/** Category, status, macro, rule and module ids: chosen by the admin. */
export const slug = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'must be a slug: a-z, 0-9, _ and -, up to 32');

export const hexColor = z.string().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a hex colour like #2563eb');

/** ISO 8601 UTC, as every time on the wire. */
export const isoTime = z.iso.datetime().describe('ISO 8601 UTC time, e.g. 2026-11-22T10:15:00.000Z');

/**
 * zod's own address check, with one rule more: a domain label neither starts nor ends with a hyphen
 * (RFC 1035), so `a@mail-.example` is refused, as the document's `format: email` promises. The local
 * part allows letters, digits and `_ ' + -`, in dot-separated words; the top-level domain is letters.
 */
export const EMAIL_PATTERN =
  /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}$/;

export const emailAddress = (message?: string) =>
  z.email({ pattern: EMAIL_PATTERN, ...(message ? { error: message } : {}) });

/** An absolute http(s) URL: what the document says of one (zod's own JSON Schema leaves the scheme out). */
export const HTTP_URL = { format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' };
export const httpUrl = (message = 'must be an http or https URL') =>
  z.url({ protocol: /^https?$/, error: message }).meta(HTTP_URL);

/** An IANA time zone the runtime knows (Intl). */
export const isTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

/** An IPv4 or IPv6 address, or a CIDR range of either (203.0.113.0/24, 2001:db8::/32). */
export const ipOrCidr = z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()], {
  error: 'must be an IP address or a CIDR range',
});

/**
 * "Ids (or names) unique within a list". Runs even when items have other problems (`when`), so one
 * write lists every problem; items without a usable key are left to their own schema.
 */
export function uniqueBy(field: string, what: string) {
  return [
    (list: unknown, ctx: z.RefinementCtx) => {
      if (!Array.isArray(list)) return;
      const seen = new Set<string>();
      list.forEach((item, index) => {
        const value = (item as Record<string, unknown> | null)?.[field];
        if (typeof value !== 'string') return;
        const k = value.toLowerCase();
        if (seen.has(k))
          ctx.addIssue({
            code: 'custom',
            path: [index, field],
            message: `duplicate ${what} "${value}"`,
            params: { code: 'duplicate', value },
          });
        seen.add(k);
      });
    },
    { when: () => true },
  ] as const;
}

/** `{ id, deleted: true }`: what a DELETE answers. */
export const DeletedSchema = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'Deleted' });
