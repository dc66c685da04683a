import type { TeamAgent } from '../api/types.js';

/** An `@` being typed: where it stands in the text and what follows it up to the caret. */
export interface MentionDraft {
  at: number;
  query: string;
  /** The highlighted suggestion. */
  active: number;
}

/**
 * The `@name` being typed just before the caret, if any: an `@` at the start or after white space
 * (not an email address), followed by at most 40 characters without a line break or another `@`
 * (names have spaces: "Grace Ho" still narrows to Grace Hopper).
 */
export function mentionAt(text: string, caret: number): Omit<MentionDraft, 'active'> | null {
  const match = /(^|\s)@([^@\n]{0,40})$/.exec(text.slice(0, caret));
  if (!match) return null;
  return { at: match.index + match[1]!.length, query: match[2]! };
}

/** Active colleagues whose name (or a word of it) starts with the query, at most six. */
export function mentionCandidates(agents: readonly TeamAgent[], query: string): TeamAgent[] {
  const q = query.toLowerCase();
  return agents
    .filter((a) => {
      const name = a.name.toLowerCase();
      return name.startsWith(q) || name.split(/\s+/).some((w) => w.startsWith(q));
    })
    .slice(0, 6);
}

/** The text with the `@query` at `draft.at` replaced by `@Name `, and where the caret goes after it. */
export function insertMention(text: string, caret: number, draft: MentionDraft, name: string) {
  const head = `${text.slice(0, draft.at)}@${name} `;
  return { text: head + text.slice(caret).replace(/^ /, ''), caret: head.length };
}

/**
 * The suggestions under the note box while an `@name` is typed: a listbox the textarea points at
 * (aria-activedescendant), so arrows move, Enter or Tab take one and Escape closes it without
 * leaving the textarea. A click takes one too (mousedown: the textarea keeps its focus).
 */
export function MentionList({
  id,
  label,
  candidates,
  active,
  onPick,
}: {
  id: string;
  label: string;
  candidates: TeamAgent[];
  active: number;
  onPick: (agent: TeamAgent) => void;
}) {
  return (
    <ul class="mention-list" id={id} role="listbox" aria-label={label}>
      {candidates.map((a, i) => (
        <li
          key={a.id}
          id={`${id}-${i}`}
          role="option"
          aria-selected={i === active}
          onMouseDown={(e) => {
            e.preventDefault();
            onPick(a);
          }}
        >
          {a.name}
        </li>
      ))}
    </ul>
  );
}
