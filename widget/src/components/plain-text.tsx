import type { ComponentChildren } from 'preact';

// A customer's message (from the widget or by mail) is their words as written: nothing in it is
// interpreted except web and mail addresses, which become links. Line breaks and spaces are kept by
// the `white-space: pre-wrap` of the message around it.
//
// Each whitespace-separated word is looked at once, left to right, with no pattern that can scan ahead
// and fail (a 100,000-character word without an `@` or `://` costs one pass): linear in the text.
const START = /https?:\/\/|mailto:|www\./gi;
const LOCAL = /[\w.+-]/;
const DOMAIN = /[\w.-]/;
// Punctuation that ends a sentence rather than the address ("see https://x.example/a."), as in GFM.
const TRAILING = '?!.,:;*_~\'"';

function anchor(href: string, text: string) {
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {text}
    </a>
  );
}

/** The length of the URL at the start of `rest`, less trailing punctuation and unbalanced `)`. */
function urlLength(rest: string): number {
  const cut = rest.search(/[<>]/);
  let end = cut < 0 ? rest.length : cut;
  let open = 0;
  let close = 0;
  for (let i = 0; i < end; i++) {
    if (rest[i] === '(') open++;
    else if (rest[i] === ')') close++;
  }
  for (;;) {
    const c = rest[end - 1];
    if (c && TRAILING.includes(c)) end--;
    else if (c === ')' && close > open) {
      close--;
      end--;
    } else return end;
  }
}

/** One word: its addresses as links, the rest as text. `done` is where the text not yet pushed starts. */
function word(w: string, out: ComponentChildren[]) {
  let done = 0;
  let next: RegExpExecArray | null = null;
  let at = -1;
  const emit = (to: number) => to > done && out.push(w.slice(done, to));
  for (let i = 0; i < w.length;) {
    // The next scheme and the next `@` from i; each is searched again only once i has passed it.
    if (!next || next.index < i) {
      START.lastIndex = i;
      next = START.exec(w);
      if (!next) next = { index: Infinity } as RegExpExecArray;
    }
    if (at < i) at = w.indexOf('@', i);
    if (at < 0) at = Infinity;
    if (next.index === Infinity && at === Infinity) break;
    if (next.index <= at) {
      const s = next.index;
      const prefix = next[0]!;
      // A scheme alone ("http://") or a bare "www." is not an address (and its end is not looked for).
      if (/[\w-]/.test(w[s + prefix.length] ?? '')) {
        const len = urlLength(w.slice(s));
        emit(s);
        const text = w.slice(s, s + len);
        out.push(anchor(prefix.toLowerCase() === 'www.' ? `http://${text}` : text, text));
        done = i = s + len;
      } else i = s + prefix.length;
      continue;
    }
    let from = at;
    while (from > Math.max(done, i) && LOCAL.test(w[from - 1]!)) from--;
    let to = at + 1;
    while (to < w.length && DOMAIN.test(w[to]!)) to++;
    while (to > at + 1 && /[.-]/.test(w[to - 1]!)) to--;
    if (from < at && /^[\w-]+(\.[\w-]+)+$/.test(w.slice(at + 1, to))) {
      emit(from);
      const address = w.slice(from, to);
      out.push(anchor(`mailto:${address}`, address));
      done = i = to;
    } else i = at + 1;
  }
  emit(w.length);
}

/** `text` with its web and mail addresses as links (http(s) and mailto only); also used by markdown.tsx. */
export function linkify(text: string): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  for (const part of text.split(/(\s+)/)) {
    if (/^\s*$/.test(part)) out.push(part);
    else word(part, out);
  }
  // One text node for each run of text between links, not one per word and space.
  const joined: ComponentChildren[] = [];
  for (const c of out) {
    const last = joined.length - 1;
    if (typeof c === 'string' && typeof joined[last] === 'string') joined[last] = `${joined[last]}${c}`;
    else joined.push(c);
  }
  return joined;
}

/** `source` as written, its web and mail addresses as links. (A form sends its line breaks as CRLF.) */
export function PlainText({ source }: { source: string }) {
  return <>{linkify(source.replace(/\r\n?/g, '\n'))}</>;
}
