import { convert } from 'html-to-text';

/**
 * HTML characters handed to html-to-text and the quote finder, and the nesting they are given
 * (parse-mail.ts leaves deeper tags out): html-to-text's time grows faster than the depth (200 KB of
 * nested <div> took 1.9 s, even with its own maxDepth), and both recurse.
 */
export const HTML_MAX = 256 * 1024;
export const HTML_MAX_DEPTH = 64;

/** An HTML mail's text as a reader sees it rendered. */
export function htmlText(html: string): string {
  return convert(html, {
    wordwrap: false,
    limits: { maxInputLength: HTML_MAX, maxDepth: HTML_MAX_DEPTH },
  });
}
