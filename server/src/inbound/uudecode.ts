/**
 * The file in a uuencoded body ("begin 644 name", lines of 4-character groups, "`", "end"), as old
 * mail clients send a part with Content-Transfer-Encoding x-uuencode (mailparser leaves such a part's
 * body as it came). Undefined when the body holds no "begin" line.
 */
export function uudecode(body: string): { name: string; content: Buffer } | undefined {
  const lines = body.split(/\r?\n/);
  const begin = lines.findIndex((l) => /^begin [0-7]{3,4} /.test(l));
  if (begin < 0) return undefined;
  const name = lines[begin]!.replace(/^begin [0-7]{3,4} /, '').trim();
  const chunks: Buffer[] = [];
  for (const line of lines.slice(begin + 1)) {
    if (line.trim() === 'end') break;
    // The first character says how many bytes the line holds; each 4 characters hold 3 bytes.
    const n = (line.charCodeAt(0) - 32) & 63;
    if (!n) continue;
    const out = Buffer.alloc(Math.ceil(n / 3) * 3);
    const six = (i: number) => ((line.charCodeAt(i) || 32) - 32) & 63;
    for (let i = 1, o = 0; o < out.length; i += 4, o += 3) {
      const [a, b, c, d] = [six(i), six(i + 1), six(i + 2), six(i + 3)];
      out[o] = (a << 2) | (b >> 4);
      out[o + 1] = ((b & 15) << 4) | (c >> 2);
      out[o + 2] = ((c & 3) << 6) | d;
    }
    chunks.push(out.subarray(0, n));
  }
  return { name, content: Buffer.concat(chunks) };
}
