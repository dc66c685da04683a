// Characters that must never reach a stored name or a Content-Disposition header: control characters
// (CR/LF would split headers) and the bidirectional controls that make "gnp.exe" look like "exe.png".
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const MAX_BYTES = 255;
// A raw name is cut to this many characters before it is cleaned: every later step then works on a
// bounded string, whatever the client sent (part headers may carry names of 16,000 characters). It is
// more than 255 bytes can hold, so only hostile names lose anything here.
const MAX_RAW_CHARS = 1024;
// Characters kept from the end of a long raw name, so its extension survives the cut.
const RAW_TAIL_CHARS = 16;
const EXT_MAX_CHARS = 10;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * The longest start of `text` that fits in `maxBytes` of UTF-8, cut between grapheme clusters (so a
 * surrogate pair, an accent and its letter or an emoji sequence are never split), or between code
 * points when not even the first cluster fits (a letter under thousands of combining marks). One
 * pass: linear in the length of `text`.
 */
export function cutToBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const fit = (units: Iterable<string>) => {
    let bytes = 0;
    let out = '';
    for (const unit of units) {
      bytes += Buffer.byteLength(unit);
      if (bytes > maxBytes) break;
      out += unit;
    }
    return out;
  };
  return fit(clusters(text)) || fit(text);
}

function* clusters(text: string) {
  for (const { segment } of graphemes.segment(text)) yield segment;
}

/** The customer's file name made safe to show and to send back: no path, no control characters, ≤255 bytes. */
export function sanitizeFileName(raw: string): string {
  let base = raw.slice(Math.max(raw.lastIndexOf('/'), raw.lastIndexOf('\\')) + 1);
  if (base.length > MAX_RAW_CHARS) {
    // Cut on UTF-16 units: half a surrogate pair left at either cut is removed just below.
    base = base.slice(0, MAX_RAW_CHARS - RAW_TAIL_CHARS) + base.slice(-RAW_TAIL_CHARS);
  }
  const name = base
    .replace(UNSAFE, '')
    .replace(/\p{Cs}/gu, '') // lone surrogates: not text, and not encodable in a header
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '');
  if (Buffer.byteLength(name) <= MAX_BYTES) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 && name.length - dot <= EXT_MAX_CHARS ? name.slice(dot) : '';
  return cutToBytes(name.slice(0, name.length - ext.length), MAX_BYTES - Buffer.byteLength(ext)) + ext;
}

export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}
