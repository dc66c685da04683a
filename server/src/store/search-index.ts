import type { TicketListItem } from '../model/index.js';
import type { ListPage, StoredTicket } from './ticket-store.js';

/** Words: runs of letters and digits in any script; everything else separates them. */
const WORD = /[\p{L}\p{N}]+/gu;
/** At most this much of a ticket's message text is indexed (a 50,000-character paste needs no more). */
const TEXT_MAX = 20_000;

/** How much a word counts where it is found: the subject most, then who and the tags, then the texts. */
const WEIGHT = { subject: 4, who: 3, text: 1 } as const;

/** The words of a text, lower-cased (the same for what is indexed and what is searched). */
function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** A ticket's words by weight, each group as one text of words (PostgreSQL's full-text document). */
export function searchParts(t: StoredTicket): { subject: string; who: string; text: string } {
  const by: Record<number, string[]> = { [WEIGHT.subject]: [], [WEIGHT.who]: [], [WEIGHT.text]: [] };
  for (const [w, weight] of weightedWords(t)) if (/^[\p{L}\p{N}]+$/u.test(w)) by[weight]!.push(w);
  return { subject: by[WEIGHT.subject]!.join(' '), who: by[WEIGHT.who]!.join(' '), text: by[WEIGHT.text]!.join(' ') };
}

/** A ticket's words with their weight (the highest where a word occurs in several places). */
function weightedWords(t: StoredTicket): Map<string, number> {
  const found = new Map<string, number>();
  const add = (text: string, weight: number) => {
    for (const w of words(text)) if ((found.get(w) ?? 0) < weight) found.set(w, weight);
  };
  add(t.subject, WEIGHT.subject);
  add(`${t.name} ${t.email} ${t.tags.join(' ')} ${t.id}`, WEIGHT.who);
  found.set(t.email.toLowerCase(), WEIGHT.who);
  found.set(t.id.toLowerCase(), WEIGHT.who);
  let budget = TEXT_MAX;
  for (const text of [t.message, ...t.replies.map((r) => r.message)]) {
    if (budget <= 0) break;
    add(text.slice(0, budget), WEIGHT.text);
    budget -= text.length;
  }
  return found;
}

/** How many entries these postings hold (dead ones included): a word's cost. */
const postingsOf = (terms: Postings[]) => terms.reduce((n, p) => n + p.docs.length, 0);

/** A word's postings: the documents that hold it, and its weight in each. */
interface Postings {
  docs: number[];
  weights: number[];
}

interface SearchHit {
  id: string;
  score: number;
}

/**
 * An inverted index of every ticket's words, kept in memory beside the list index and updated on
 * every write, so a search reads the postings of the words asked for instead of every ticket's text
 * (at 100k tickets a pass over the texts is tens of milliseconds; a word's postings are a few
 * thousand entries at most). A word of the query matches the words it begins (prefix search), so
 * part of an id, an email or a word finds its tickets.
 *
 * A changed ticket gets a new document number; the old one is left dead in the postings and skipped,
 * and the postings are rebuilt once dead entries outnumber live ones.
 */
export class SearchIndex {
  private terms = new Map<string, Postings>();
  /** Document number -> ticket id, undefined once dead. */
  private docs: (string | undefined)[] = [];
  /** Document number -> its words, to rebuild the postings without the tickets. */
  private docWords: (Map<string, number> | undefined)[] = [];
  private byId = new Map<string, number>();
  private dead = 0;

  put(t: StoredTicket) {
    this.drop(t.id);
    this.insert(t.id, weightedWords(t));
  }

  remove(id: string) {
    this.drop(id);
  }

  private insert(id: string, found: Map<string, number>) {
    const doc = this.docs.length;
    this.docs.push(id);
    this.docWords.push(found);
    this.byId.set(id, doc);
    for (const [w, weight] of found) {
      let p = this.terms.get(w);
      if (!p) this.terms.set(w, (p = { docs: [], weights: [] }));
      p.docs.push(doc);
      p.weights.push(weight);
    }
  }

  private drop(id: string) {
    const doc = this.byId.get(id);
    if (doc === undefined) return;
    this.byId.delete(id);
    this.docs[doc] = undefined;
    this.docWords[doc] = undefined;
    if (++this.dead > 1000 && this.dead > this.byId.size) this.compact();
  }

  /** Rebuilds the postings from the live documents (renumbered), dropping words nobody holds now. */
  private compact() {
    const live: [string, Map<string, number>][] = [];
    for (let d = 0; d < this.docs.length; d++)
      if (this.docs[d] !== undefined) live.push([this.docs[d]!, this.docWords[d]!]);
    this.terms.clear();
    this.docs = [];
    this.docWords = [];
    this.byId.clear();
    this.dead = 0;
    for (const [id, found] of live) this.insert(id, found);
  }

  /**
   * The tickets holding every word of `query` (each as a word's beginning), with a score: per word,
   * the best weight among the words it begins, summed. Unordered.
   */
  search(query: string[]): SearchHit[] {
    if (!query.length) return [];
    // The word with the fewest postings sets the candidates; each other word is checked in the
    // candidates' own words (a few dozen each), not by reading its postings, which for a word most
    // tickets hold ("com" of every email) would be the whole index.
    const sized = query.map((q) => ({ q, terms: this.termsStarting(q) }));
    sized.sort((a, b) => postingsOf(a.terms) - postingsOf(b.terms));
    const scores = this.matching(sized[0]!.terms);
    const rest = sized.slice(1).map((w) => w.q);
    const hits: SearchHit[] = [];
    for (const [doc, first] of scores) {
      const own = this.docWords[doc]!;
      let score = first;
      for (const q of rest) {
        let best = 0;
        for (const [w, weight] of own) if (weight > best && w.startsWith(q)) best = weight;
        if (!best) {
          score = 0;
          break;
        }
        score += best;
      }
      if (score) hits.push({ id: this.docs[doc]!, score });
    }
    return hits;
  }

  /** The postings of every word that begins with `prefix`. */
  private termsStarting(prefix: string): Postings[] {
    const found: Postings[] = [];
    const exact = this.terms.get(prefix);
    if (exact) found.push(exact);
    for (const [term, p] of this.terms) if (term !== prefix && term.startsWith(prefix)) found.push(p);
    return found;
  }

  /** The live documents of these postings, with the best weight of each. */
  private matching(postings: Postings[]): Map<number, number> {
    const best = new Map<number, number>();
    const take = (p: Postings) => {
      for (let i = 0; i < p.docs.length; i++) {
        const doc = p.docs[i]!;
        if (this.docs[doc] === undefined) continue;
        const w = p.weights[i]!;
        if ((best.get(doc) ?? 0) < w) best.set(doc, w);
      }
    };
    for (const p of postings) take(p);
    return best;
  }
}

/** The score of the ticket a query names exactly by its number or id: above any words' score. */
export const EXACT = 1000;
/** At most this many words of a query are searched. */
const QUERY_WORDS = 8;

/** What a query asks for: its words, and a number (`1042`, `#1042`) or an id it may name exactly. */
export function searchQuery(query: string): { words: string[]; number?: number; id?: string } {
  const q = query.trim();
  const n = /^#?(\d{1,10})$/.exec(q);
  const number = n && Number(n[1]) <= 2_147_483_647 ? Number(n[1]) : undefined;
  const id = /^tkt_[A-Za-z0-9]{16,}$/.test(q) ? q : undefined;
  return {
    words: [...new Set(words(q))].slice(0, QUERY_WORDS),
    ...(number !== undefined ? { number } : {}),
    ...(id ? { id } : {}),
  };
}

export interface Ranked {
  item: TicketListItem;
  score: number;
}

/** Best first, then newest first (the id last, as in SQL). */
const order = (a: Ranked, b: Ranked) =>
  b.score - a.score ||
  (a.item.created_at > b.item.created_at ? -1 : a.item.created_at < b.item.created_at ? 1 : 0) ||
  (a.item.id > b.item.id ? -1 : a.item.id < b.item.id ? 1 : 0);

/** A page of the ranked tickets, and how many there are: only the best `offset + limit` are kept in order. */
export function bestFirst(ranked: Ranked[], limit: number, offset: number): ListPage {
  const keep = offset + limit;
  const top: Ranked[] = [];
  for (const r of ranked) {
    if (top.length >= keep && order(r, top[top.length - 1]!) >= 0) continue;
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (order(top[mid]!, r) <= 0) lo = mid + 1;
      else hi = mid;
    }
    top.splice(lo, 0, r);
    if (top.length > keep) top.pop();
  }
  return { items: top.slice(offset).map((r) => r.item), total: ranked.length };
}
