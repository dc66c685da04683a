/** The server's length limits (server/src/tickets/schema.ts): the form's maxlength and validate.ts. */
export const LIMITS = { name: 200, email: 254, subject: 300, message: 50_000, field: 5000 } as const;
