import { describe, expect, it } from 'vitest';
import { replyText } from './reply-text.js';

// The classes of issue 29, each as the customer wrote it: what stays in the ticket, what is set aside.

describe('replyText', () => {
  it('keeps an answer written below the quote', () => {
    const r = replyText(
      'Hi,\n\nOn Tue, 3 Mar 2026 at 10:00, Shop <help@shop.example> wrote:\n> question\n\nMy answer is here.',
    );
    expect(r.text).toBe('Hi,\n\nMy answer is here.');
    expect(r.quoted).toBe('On Tue, 3 Mar 2026 at 10:00, Shop <help@shop.example> wrote:\n> question');
  });

  it('keeps interleaved answers with their questions', () => {
    const mail = 'See below.\n\nOn 3 Mar 2026, Shop wrote:\n> q1\nanswer 1\n> q2\nanswer 2';
    expect(replyText(mail)).toEqual({ text: mail, quoted: '' });
  });

  it('keeps a P.S. after a sign-off, and cuts a signature only at "-- "', () => {
    const mail = 'Where is it?\n\nBest regards,\nAnna\n\nP.S. the parcel number is 123';
    expect(replyText(mail).text).toBe(mail);
    const signed = replyText('Where is it?\n\n-- \nAnna Example\nExample Ltd, Harbour Road 7');
    expect(signed).toEqual({ text: 'Where is it?', quoted: '-- \nAnna Example\nExample Ltd, Harbour Road 7' });
  });

  it('cuts a client footer only as its own line', () => {
    expect(replyText('It arrived, thanks.\n\nSent from my iPhone')).toEqual({
      text: 'It arrived, thanks.',
      quoted: 'Sent from my iPhone',
    });
    const sentence = 'Sent from my office yesterday, the parcel came back to me today.';
    expect(replyText(sentence).text).toBe(sentence);
  });

  it.each([
    ['Russian', '12 марта 2026 г., в 10:00, Иван <ivan@example.ru> написал:'],
    ['Italian', 'Il giorno mar 3 mar 2026 alle ore 10:00 Shop <help@shop.example> ha scritto:'],
    ['Dutch', 'Op di 3 mrt 2026 om 10:00 schreef Shop <help@shop.example>:'],
    ['Polish', 'W dniu 3.03.2026 o 10:00, Shop <help@shop.example> pisze:'],
    ['Spanish', 'El mar, 3 mar 2026 a las 10:00, Shop (<help@shop.example>) escribió:'],
    ['Portuguese', 'Em ter., 3 de mar. de 2026 às 10:00, Shop <help@shop.example> escreveu:'],
    ['Japanese', '2026年3月3日(火) 10:00 Shop <help@shop.example>:'],
    ['Chinese', '在 2026年3月3日 10:00，Shop <help@shop.example> 写道：'],
    ['German', 'Am 03.03.2026 um 10:00 schrieb Shop <help@shop.example>:'],
    ['French', 'Le mar. 3 mars 2026 à 10:00, Shop <help@shop.example> a écrit :'],
  ])('takes a quote header in %s with its quote', (_, header) => {
    const r = replyText(`Danke, es ist da.\n\n${header}\n> Your parcel is on its way.\n> Shop`);
    expect(r.text).toBe('Danke, es ist da.');
    expect(r.quoted).toBe(`${header}\n> Your parcel is on its way.\n> Shop`);
  });

  it.each([
    [
      'bold',
      '*From:* Shop <help@shop.example>\n*Sent:* Tuesday, March 3, 2026 10:00 AM\n*To:* Anna\n*Subject:* Your order',
    ],
    [
      'German',
      'Von: Shop <help@shop.example>\nGesendet: Dienstag, 3. März 2026 10:00\nAn: Anna\nBetreff: Ihre Bestellung',
    ],
    ['French', 'De : Shop <help@shop.example>\nEnvoyé : mardi 3 mars 2026 10:00\nÀ : Anna\nObjet : Votre commande'],
    ['Italian', 'Da: Shop <help@shop.example>\nInviato: martedì 3 marzo 2026 10:00\nA: Anna\nOggetto: Il tuo ordine'],
  ])("takes Outlook's %s header block and the unmarked mail below it", (_, block) => {
    const r = replyText(
      `The box was empty.\n\n________________________________\n${block}\n\nYour parcel is on its way.`,
    );
    expect(r.text).toBe('The box was empty.');
    expect(r.quoted).toBe(`${block}\n\nYour parcel is on its way.`);
  });

  it.each([
    ['Yandex', '30.09.2017, 18.30, "Shop" <help@shop.example>:'],
    ['Gmail without a verb', '2017-11-24 16:32 GMT+01:00 Shop <help@shop.example>:'],
    ['Dutch, wrapped', 'Op 12 december 2016 19:05 schreef Shop <\nhelp@shop.example>:'],
    ['Finnish, wrapped', 'pe 20. lokakuuta 2017 klo 17.50 Shop\n<help@shop.example> kirjoitti:'],
    ['Polish', 'Dnia 27 grudnia 2016 12:08 Shop <help@shop.example> napisał(a):'],
  ])('takes a %s header and the unmarked mail below it', (_, header) => {
    const r = replyText(`The box was empty.\n\n${header}\n\nYour parcel is on its way.`);
    expect(r.text).toBe('The box was empty.');
    expect(r.quoted).toBe(`${header}\n\nYour parcel is on its way.`);
  });

  it('reads a long quoted line wrapped without ">" as quoted, and a short answer under a quote as an answer', () => {
    const wrapped =
      'Thanks.\n\nOn Tue, 3 Mar 2026 at 10:00, Shop <help@shop.example> wrote:\n' +
      '> Your parcel left our warehouse this morning and should reach you within two d\nays.\n> Shop';
    expect(replyText(wrapped).text).toBe('Thanks.');
    const answers = 'On 3 Mar 2026, Shop <help@shop.example> wrote:\n> Blue or red?\nred\n> Monday?\nyes';
    expect(replyText(answers).text).toBe(answers);
  });

  it('keeps a header-like sentence without a date or address', () => {
    const mail = 'My colleague wrote:\n> the box was empty\nand she is right.';
    expect(replyText(mail).text).toBe(mail);
  });

  it('keeps a forwarded mail whole, and cuts a forward inside a quote', () => {
    const fwd =
      'What does this mean?\n\n---------- Forwarded message ---------\nFrom: Parcels <p@example.com>\n\nWe tried.';
    expect(replyText(fwd)).toEqual({ text: fwd, quoted: '' });
    const quotedFwd =
      'Thanks\n\n-----Original Message-----\n\nFYI\n\n---------- Forwarded message ----------\nFrom: a@b.c';
    expect(replyText(quotedFwd).text).toBe('Thanks');
  });

  it('keeps a text that would be cut to nothing whole', () => {
    const mail = 'On Tue, 3 Mar 2026 at 10:00, Shop <help@shop.example> wrote:\n> question';
    expect(replyText(mail)).toEqual({ text: mail, quoted: '' });
  });

  it('sets our own quoted mail aside from the marker on', () => {
    const r = replyText(
      'Thanks!\n\nOn Mon, 2 Mar 2026, Shop <help@shop.example> wrote:\n> -- reply above this line --\n> Hi Ada',
    );
    expect(r.text).toBe('Thanks!');
    expect(r.quoted).toContain('-- reply above this line --');
  });

  it('takes linear time on a long mail of many quotes', () => {
    // 5,000 quotes, each with its header (200 KB): seconds only if each quote scanned the rest.
    const mail = `Hi\n${Array.from({ length: 5000 }, (_, i) => `> q ${i}\n\nOn 1 Jan 2026 a@b.c wrote:\n> x`).join('\n')}`;
    const start = performance.now();
    expect(replyText(mail).text.startsWith('Hi')).toBe(true);
    expect(performance.now() - start).toBeLessThan(5000);
  }, 30_000);

  it('takes linear time on a quote header followed by a long line of spaces (a hostile mail)', () => {
    // The line after a header is tried as an elision mark ("[snip]"): a pattern with spaces on both
    // sides of an optional bracket took quadratic time here (60,000 spaces: about 10 s).
    const mail = `Thanks\n-----Original Message-----\n${' '.repeat(60_000)}x\n> question`;
    const start = performance.now();
    expect(replyText(mail).text).toBe('Thanks');
    expect(performance.now() - start).toBeLessThan(3000);
  }, 60_000);
});
