import type { TestServer } from './server.js';

/**
 * What a ticket made from a mail shows, field by field, as issue 29's corpus check compares it: the
 * subject, the sender's name and address, the new text, the quoted part kept aside, the files by name
 * and size (the original .eml aside, it is always there).
 */
export const FIELDS = ['subject', 'name', 'email', 'text', 'quoted', 'files'] as const;
export type Field = (typeof FIELDS)[number];

export interface Shown {
  subject: string;
  name: string;
  email: string;
  text: string;
  quoted: string;
  files: [name: string, size: number][];
}

/** The ticket as an agent sees it (sk: the quoted part is staff-only). */
export async function shownOn(s: TestServer, ticket: string): Promise<Shown> {
  const t = (await s.call('GET', `/ticket?id=${ticket}`)).body;
  return {
    subject: t.subject,
    name: t.name,
    email: t.email,
    text: t.message,
    quoted: t.quoted ?? '',
    files: (t.attachments as { name: string; size: number }[])
      .filter((a) => a.name !== 'original-mail.eml')
      .map((a) => [a.name, a.size]),
  };
}

/** The words of a text (letters, digits, emoji), in order: layout and quote marks aside. */
export const words = (s: string) => s.match(/[\p{L}\p{N}\p{Extended_Pictographic}]+/gu) ?? [];

/**
 * The words of `whole` that `part` does not hold (each word counted as often as it occurs): what a
 * mail's quoted part must hold once its reply is taken out.
 */
export function without(whole: string[], part: string[]): string[] {
  const left = new Map<string, number>();
  for (const w of part) left.set(w, (left.get(w) ?? 0) + 1);
  return whole.filter((w) => {
    const n = left.get(w) ?? 0;
    if (n) left.set(w, n - 1);
    return !n;
  });
}

/** The same words the same number of times, in any order. */
export const sameWords = (a: string[], b: string[]) => a.length === b.length && without(a, b).length === 0;

/**
 * A corpus's score, field by field: which cases fail on which field, a pass rate per field and per
 * corpus printed, and the failures compared with those judged in the test (a case that starts to
 * pass must leave the list, so the pass count can only go up).
 */
export class FieldScore {
  private readonly failed = new Map<string, Set<Field>>();
  private cases = 0;

  constructor(private readonly corpus: string) {}

  /** One case's fields: true where the ticket shows what the corpus expects. */
  add(name: string, ok: Partial<Record<Field, boolean>>): void {
    this.cases++;
    for (const field of FIELDS)
      if (ok[field] === false) this.failed.set(name, (this.failed.get(name) ?? new Set()).add(field));
  }

  /** Each failing case with its failing fields, in the field order above. */
  failures(): Record<string, Field[]> {
    return Object.fromEntries(
      [...this.failed]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, f]) => [name, FIELDS.filter((x) => f.has(x))]),
    );
  }

  /** "corpus: N of M mails pass every field (P %); subject N/M, name …". */
  summary(): string {
    const rate = (n: number) => `${n} of ${this.cases} (${((100 * n) / this.cases).toFixed(1)} %)`;
    const perField = FIELDS.map((f) => {
      const bad = [...this.failed.values()].filter((s) => s.has(f)).length;
      return `  ${f}: ${rate(this.cases - bad)}`;
    });
    return [`${this.corpus}: ${rate(this.cases - this.failed.size)} mails pass every field`, ...perField].join('\n');
  }
}
