import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELDS, FieldScore, sameWords, shownOn, without, words, type Field } from '../test-support/corpus-fields.js';
import { deliver, startMailServer, SUPPORT } from '../test-support/mail-in.js';

// A corpus we did not write: the test suite of Crisp's email-reply-parser, shipped in its npm package
// up to version 1.4.2 (a devDependency pinned there, read here where it is installed; later versions
// ship no tests). Replies collected by a chat-support company from Gmail, Outlook, Hotmail, Mail.ru,
// Yandex, Zoho, iOS and Android clients, with quote headers in Italian ("Il … ha scritto:", "Da:/
// Inviato:"), Portuguese ("Em … escreveu:"), Finnish ("… kirjoitti:"), Dutch, Polish, French, German,
// Norwegian and English, each with its expected reply. Each text goes out as a mail over SMTP to the
// built-in receiver, and the ticket's text is compared with the expected reply word for word.
//
// The expectations read from its test.js: the reply given whole (COMMON_FIRST_FRAGMENT, a string
// equal to the first fragment or to the visible text), or the reply's first words (a /^…/ tested on
// the first fragment). Expectations on later fragments (how the parser cuts the quote in pieces) say
// nothing about the reply and are not read.

const PACKAGE = dirname(createRequire(import.meta.url).resolve('email-reply-parser/package.json'));
const SUITE = readFileSync(join(PACKAGE, 'test', 'test.js'), 'utf8');

interface Case {
  name: string;
  fixture: string;
  expected: { text: string } | { starts: RegExp };
}

/** A JavaScript string literal's value ("…" or '…', with \n and line continuations). */
function jsString(literal: string): string {
  return literal
    .slice(1, -1)
    .replace(/\\\r?\n/g, '')
    .replace(/\\(n|t|\\|"|')/g, (_, e: string) => (e === 'n' ? '\n' : e === 't' ? '\t' : e));
}

const STRING = String.raw`"(?:[^"\\]|\\[\s\S])*"|'(?:[^'\\]|\\[\s\S])*'`;

function suiteCases(): Case[] {
  const common = new RegExp(String.raw`const COMMON_FIRST_FRAGMENT = (${STRING});`).exec(SUITE);
  if (!common) throw new Error('COMMON_FIRST_FRAGMENT not found');
  const commonText = jsString(common[1]!);
  const cases: Case[] = [];
  for (const block of SUITE.split(/^exports\./m).slice(1)) {
    const name = /^\w+/.exec(block)![0];
    const read = /(\w+) = get_email\("(\w+)"\)/.exec(block);
    if (!read) continue;
    const [, variable, fixture] = read as unknown as [string, string, string];
    const first = String.raw`(?:${variable}\.fragments|fragments)\[0\](?:\.toString\(\)(?:\.trim\(\))?)?`;
    const equal = new RegExp(
      String.raw`test\.equal\((?:COMMON_FIRST_FRAGMENT, ${first}|(${STRING}), ${first}|${variable}\.getVisibleText\(\), (${STRING}))\)`,
    ).exec(block);
    if (equal) {
      const literal = equal[1] ?? equal[2];
      cases.push({ name, fixture, expected: { text: literal ? jsString(literal) : commonText } });
      continue;
    }
    const starts = new RegExp(String.raw`test\.equal\(true, ?\/(\^[^/]+)\/m?\.test\(${first}\)\)`).exec(block);
    if (starts) cases.push({ name, fixture, expected: { starts: new RegExp(starts[1]!) } });
  }
  return cases;
}

// Cases where the ticket shows otherwise than the corpus expects, by field, each judged: a case or a
// field that starts to pass must leave the list.
const JUDGED: Record<string, Field[]> = {
  // The corpus asks for the first fragment only ("Hi,"), but the answer is written below the quote
  // ("You can list the keys for the bucket…", issue 29's first class): the answer stays. A quoted
  // signature follows it, so the whole mail stays (answers between quotes keep their questions).
  test_reads_bottom_post: ['text', 'quoted'],
  // Under "Sent from my Wiko RIDGE FAB 4G" comes the mail answered, without a ">" or a header: text
  // no mark says is quoted stays (a phone's footer ends a reply, it does not say what follows it).
  test_email_sent_from_my: ['text', 'quoted'],
  // The corpus cuts "Regards,\n\nJohn Doe\nCEO @ Acme !" as a signature: a sign-off without "-- " is
  // the customer's words and stays (issue 29: cut a signature only on a delimiter or a client footer).
  text_email_regards: ['text', 'quoted'],
};

const CASES = suiteCases();
let server: Awaited<ReturnType<typeof startMailServer>>;

beforeAll(async () => {
  server = await startMailServer();
});
afterAll(() => server.close());

describe("Crisp's email-reply-parser corpus, over SMTP", () => {
  it('reads the corpus', () => {
    // Every expectation on the reply in test.js was found (none lost to a change of its layout).
    expect(CASES.length).toBe(35);
  });

  it('turns each mail into a ticket showing the reply, the quote kept aside, the subject and sender sent', async () => {
    const { s, port } = server;
    const score = new FieldScore("Crisp's email-reply-parser corpus");
    for (const [i, c] of CASES.entries()) {
      const body = readFileSync(join(PACKAGE, 'test', 'fixtures', `${c.fixture}.txt`), 'utf8');
      // The corpus holds bodies only: the subject and sender are ours, in more than one script.
      const sent = {
        subject: `Corpus case ${i}: ${c.name} – ответ`,
        name: `Client ${i} Ålesund`,
        email: `customer${i}@example.net`,
      };
      const outcome = await deliver(s, port, {
        from: { name: sent.name, address: sent.email },
        to: SUPPORT,
        subject: sent.subject,
        text: body,
      });
      if (outcome.kind !== 'created') {
        score.add(c.name, Object.fromEntries(FIELDS.map((f) => [f, false])));
        continue;
      }
      const t = await shownOn(s, outcome.ticket);
      const text =
        'text' in c.expected
          ? words(t.text).join(' ') === words(c.expected.text).join(' ')
          : c.expected.starts.test(t.text);
      // The quoted part holds every word of the mail the reply does not: nothing lost, nothing twice.
      const quoted =
        'text' in c.expected
          ? sameWords(words(t.quoted), without(words(body), words(c.expected.text)))
          : sameWords([...words(t.text), ...words(t.quoted)], words(body));
      score.add(c.name, {
        subject: t.subject === sent.subject,
        name: t.name === sent.name,
        email: t.email === sent.email,
        text,
        quoted,
        files: t.files.length === 0,
      });
      if ((!text || !quoted) && !JUDGED[c.name])
        console.log(
          `${c.name} (${c.fixture})\n--- expected:\n${String('text' in c.expected ? c.expected.text : c.expected.starts)}\n--- got:\n${t.text}\n--- quoted:\n${t.quoted}`,
        );
    }
    console.log(score.summary());
    expect(score.failures()).toEqual(JUDGED);
  }, 120_000);
});
