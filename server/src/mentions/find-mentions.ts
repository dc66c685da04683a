/** An agent a note may name: their id and their name as it is now. */
interface Named {
  id: string;
  name: string;
}

// What may stand right before an `@` (so `grace@shop.example` names nobody) and right after a name
// (so `@Gracefully` is not Grace): anything but a letter, a digit or one of the address characters.
const WORD = /[\p{L}\p{N}_.+-]/u;

/**
 * The agents a note names with `@Name` (the console completes these from /v1/team), each once, in
 * the order first named. Names are matched whole and case-insensitively, the longest first, so
 * `@Grace Hopper` is Grace Hopper and not a Grace beside her. Kept by id: a renamed agent still finds
 * the notes that named them.
 */
export function findMentions(text: string, agents: readonly Named[]): string[] {
  if (!text.includes('@')) return [];
  const byLength = agents.filter((a) => a.name.trim() !== '').sort((a, b) => b.name.length - a.name.length);
  const lower = text.toLowerCase();
  const found: string[] = [];
  for (let at = lower.indexOf('@'); at >= 0; at = lower.indexOf('@', at + 1)) {
    if (at > 0 && WORD.test(text[at - 1]!)) continue;
    for (const a of byLength) {
      const name = a.name.toLowerCase();
      if (!lower.startsWith(name, at + 1)) continue;
      const next = text[at + 1 + name.length];
      if (next !== undefined && WORD.test(next) && next !== '.') continue;
      if (!found.includes(a.id)) found.push(a.id);
      break;
    }
  }
  return found;
}
