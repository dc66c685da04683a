import type { ComponentChildren } from 'preact';

// A safe Markdown subset rendered to VNodes (never innerHTML): paragraphs, headings, lists, code
// blocks, inline code, **strong**, *emphasis* and links. Links open in a new tab without opener,
// and only http(s) and mailto addresses become links.

// Every token ends at the next mark of its own kind, so a try that fails never scans past it and the
// whole text is tokenised in linear time. A link's label stops at any bracket and its address at any
// parenthesis: with `[^\]]` and `[^)]` an article of `[a](` repeated made every `[` scan to the end,
// which took the square of the length and froze the host page.
const INLINE = /(`[^`]+`)|(\*\*[^*]+\*\*)|(\*[^*]+\*|_[^_]+_)|(\[[^[\]]+\]\([^()\s]+\))/;
const LINK = /^\[([^[\]]+)\]\(([^()\s]+)\)$/;

function inline(text: string): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let rest = text;
  let m: RegExpExecArray | null;
  while ((m = INLINE.exec(rest))) {
    if (m.index) out.push(rest.slice(0, m.index));
    const token = m[0];
    if (m[1]) out.push(<code>{token.slice(1, -1)}</code>);
    else if (m[2]) out.push(<strong>{inline(token.slice(2, -2))}</strong>);
    else if (m[3]) out.push(<em>{inline(token.slice(1, -1))}</em>);
    else {
      const [, label, href] = LINK.exec(token)!;
      out.push(
        /^(https?:|mailto:)/i.test(href!) ? (
          <a href={href} target="_blank" rel="noopener noreferrer">
            {label}
          </a>
        ) : (
          label
        ),
      );
    }
    rest = rest.slice(m.index + token.length);
  }
  if (rest) out.push(rest);
  return out;
}

export function Markdown({ source }: { source: string }) {
  const blocks: ComponentChildren[] = [];
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  for (let i = 0; i < lines.length;) {
    const line = lines[i]!;
    if (line.startsWith('```')) {
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) code.push(lines[i]!);
      i++;
      blocks.push(
        <pre>
          <code>{code.join('\n')}</code>
        </pre>,
      );
    } else if (/^#{1,3} /.test(line)) {
      const level = line.indexOf(' ');
      const Tag = (level === 1 ? 'h3' : 'h4') as 'h3';
      blocks.push(<Tag>{inline(line.slice(level + 1))}</Tag>);
      i++;
    } else if (/^\s*([-*]|\d+\.) /.test(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const items: ComponentChildren[] = [];
      for (; i < lines.length && /^\s*([-*]|\d+\.) /.test(lines[i]!); i++) {
        items.push(<li>{inline(lines[i]!.replace(/^\s*([-*]|\d+\.) /, ''))}</li>);
      }
      blocks.push(ordered ? <ol>{items}</ol> : <ul>{items}</ul>);
    } else if (line.trim() === '') {
      i++;
    } else {
      const para: string[] = [];
      for (; i < lines.length && lines[i]!.trim() !== '' && !/^(```|#{1,3} |\s*([-*]|\d+\.) )/.test(lines[i]!); i++)
        para.push(lines[i]!);
      blocks.push(<p>{inline(para.join(' '))}</p>);
    }
  }
  return <div class="article">{blocks}</div>;
}
