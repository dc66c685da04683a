import { lazy } from './lazy.js';

// Each is a file of its own, fetched the first time a message needs it (the Markdown parser is most of
// its chunk's size); until it is there, the text shows as typed.
const asTyped = (props: { source: string }) => props.source;

/** Agents' Markdown (see markdown.tsx), loaded on demand. */
export const Markdown = lazy(() => import('./markdown.js').then((m) => m.Markdown), asTyped);

/** A customer's words as written, addresses as links (see plain-text.tsx), loaded on demand. */
export const PlainText = lazy(() => import('./plain-text.js').then((m) => m.PlainText), asTyped);
