/** The server's placeholders (server/src/mail/templates.ts fillPlaceholders), spaces inside allowed. */
const PLACEHOLDER = /\{\{\s*(name|subject|ticket_id|number)\s*\}\}/g;

export interface SampleTicket {
  name: string;
  subject: string;
  ticket_id: string;
  /** #1042 */
  number: string;
}

/** A macro's text as the customer reads it, filled in as the server fills it. */
export const fillPlaceholders = (text: string, ticket: SampleTicket) =>
  text.replace(PLACEHOLDER, (_, k: keyof SampleTicket) => ticket[k]);

/** Braces that look like a placeholder but are none: they reach the customer as typed. */
export const unknownPlaceholders = (text: string) => [
  ...new Set([...text.replace(PLACEHOLDER, '').matchAll(/\{\{[^{}]*\}\}/g)].map((m) => m[0])),
];
