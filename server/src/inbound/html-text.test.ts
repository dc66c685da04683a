import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver, startMailServer, SUPPORT } from '../test-support/mail-in.js';

// Issue 29: text made from an HTML-only mail keeps the spacing its HTML renders with, across inline,
// block and table-cell boundaries: a space only where a browser shows one ("Präsenz</FONT></A><FONT>
// posten" is one word; with a line break between the tags, two), block ends and table cells kept
// apart, a <br> one line break, a <br> ending a block no second one. Each mail goes over SMTP to the
// built-in receiver and the ticket's message is compared whole.

const CASES: { name: string; html: string; message: string }[] = [
  {
    name: 'words split by tags across a line break keep their space; glued ones stay one word',
    // Outlook/Word HTML: upper-case tags, a link over part of a compound word.
    html: `<P><FONT face=Arial>Unsere <A href="https://shop.example/team"><FONT>Präsenz</FONT></A>\r\n<FONT>posten sind besetzt.</FONT></FONT></P><P><A href="https://shop.example/team"><FONT>Präsenz</FONT></A><FONT>posten</FONT> bleibt ein Wort.</P>`,
    message: 'Unsere Präsenz [https://shop.example/team] posten sind besetzt.\n\nPräsenzposten bleibt ein Wort.',
  },
  {
    name: 'table cells stay apart, each row on its line',
    html: `<table border="0"><tr><td><b>Bestellung</b></td><td>4711</td></tr><tr><td>Farbe</td><td>Blau</td></tr></table><div>Danke</div>`,
    message: 'Bestellung 4711\nFarbe Blau\nDanke',
  },
  {
    name: 'Gmail lines: a <br> ending a block draws no second line, an empty <div><br></div> one',
    html: `<div dir="ltr"><div>Hallo,</div><div><br></div><div>Zeile eins<br></div><div>Zeile zwei<br>Zeile drei</div><div><span>x</span><span>y</span> <b>fett</b>,<i> kursiv</i></div></div>`,
    message: 'Hallo,\n\nZeile eins\nZeile zwei\nZeile drei\nxy fett, kursiv',
  },
  {
    name: 'Outlook’s margin-less paragraphs are lines, not paragraphs',
    html: `<div class=WordSection1><p class=MsoNormal>Guten Tag,<o:p></o:p></p><p class=MsoNormal><o:p>&nbsp;</o:p></p><p class=MsoNormal>die Lieferung fehlt.<o:p></o:p></p><p class=MsoNormal>Bitte prüfen.<img width=20 height=20 src="cid:image001.png@01DB3C2A.5E1F0A40"><o:p></o:p></p></div>`,
    message: 'Guten Tag,\n\ndie Lieferung fehlt.\nBitte prüfen.',
  },
];

let server: Awaited<ReturnType<typeof startMailServer>>;
beforeAll(async () => {
  server = await startMailServer();
});
afterAll(() => server.close());

describe('text made from an HTML-only mail', () => {
  it.each(CASES)('$name', async ({ name, html, message }) => {
    const outcome = await deliver(server.s, server.port, {
      from: 'Kundin <kundin@example.de>',
      to: SUPPORT,
      subject: name.slice(0, 60),
      html,
    });
    expect(outcome.kind).toBe('created');
    const t = (await server.s.call('GET', `/ticket?id=${(outcome as { ticket: string }).ticket}`)).body;
    expect(t.message).toBe(message);
  });
});
