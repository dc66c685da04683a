import type { StoredTicket } from './ticket-store.js';

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

/** Between a ticket's message and replies in `texts` (the list index's searchText uses the same). */
export const TEXT_SEPARATOR = '\u0001';

/**
 * What a ticket's words are read from: its list item's fields, and its message and replies as one
 * text (joined by TEXT_SEPARATOR). At start the texts come from the list index, which holds them
 * lower-cased already: the ticket's body is not parsed for its words a second time.
 */
export interface SearchSource {
  id: string;
  subject: string;
  name: string;
  email: string;
  tags: readonly string[];
  texts: string;
}

/** A stored ticket as a SearchSource. */
const sourceOf = (t: StoredTicket): SearchSource => ({
  id: t.id,
  subject: t.subject,
  name: t.name,
  email: t.email,
  tags: t.tags,
  texts: [t.message, ...t.replies.map((r) => r.message)].join(TEXT_SEPARATOR),
});

/** A ticket's words by weight, each group as one text of words (PostgreSQL's full-text document). */
export function searchParts(t: StoredTicket): { subject: string; who: string; text: string } {
  const by: Record<number, string[]> = { [WEIGHT.subject]: [], [WEIGHT.who]: [], [WEIGHT.text]: [] };
  for (const [w, weight] of weightedWords(sourceOf(t))) if (/^[\p{L}\p{N}]+$/u.test(w)) by[weight]!.push(w);
  return { subject: by[WEIGHT.subject]!.join(' '), who: by[WEIGHT.who]!.join(' '), text: by[WEIGHT.text]!.join(' ') };
}

/** A ticket's words with their weight (the highest where a word occurs in several places). */
function weightedWords(t: SearchSource): Map<string, number> {
  const found = new Map<string, number>();
  const add = (text: string, weight: number) => {
    for (const w of words(text)) if ((found.get(w) ?? 0) < weight) found.set(w, weight);
  };
  add(t.subject, WEIGHT.subject);
  add(`${t.name} ${t.email} ${t.tags.join(' ')} ${t.id}`, WEIGHT.who);
  // Not the whole email or id as one word besides its parts: a query's words never hold "@", "." or
  // "_", so whatever begins the whole also begins its first part, and the whole would only add 100k
  // words beginning "tkt" to read for every search of an id.
  // At most TEXT_MAX characters of the texts (lower-cased first: the list index's are, and a cut
  // at the same place gives the same words on both paths).
  add(t.texts.toLowerCase().slice(0, TEXT_MAX), WEIGHT.text);
  return found;
}

/** A posting is one number: the document number times 8 plus the word's weight there (3 bits). */
const WEIGHT_BITS = 3;
const WEIGHT_MASK = (1 << WEIGHT_BITS) - 1;
/** Words are grouped by their first characters, so a prefix's words are looked for in one group. */
const BUCKET = 3;

/** The score of the ticket a query names exactly by its number or id: above any words' score. */
const EXACT = 1000;

/**
 * A word's postings, in document order, as compact as their number allows: one posting is a number
 * (most words at 100k tickets are one ticket's id or number), a few an array of exactly their size,
 * more a Uint32Array with spare room whose slot 0 holds the count (a growing JS array of numbers
 * keeps 17 slots of 8 bytes for two postings, and half again as many as it holds after that).
 */
type Postings = number | number[] | Uint32Array;
/** From this many postings on, a word's postings are a Uint32Array. */
const TYPED_FROM = 8;

/** The number of postings. */
const sizeOf = (p: Postings) => (typeof p === 'number' ? 1 : p instanceof Uint32Array ? p[0]! : p.length);

/** Postings as something to index, with where they begin and end (reading a number through `one`). */
const one = [0];
function span(p: Postings): { list: ArrayLike<number>; from: number; to: number } {
  if (typeof p === 'number') {
    one[0] = p;
    return { list: one, from: 0, to: 1 };
  }
  return p instanceof Uint32Array ? { list: p, from: 1, to: p[0]! + 1 } : { list: p, from: 0, to: p.length };
}

/** The postings with `posting` (a later document than any in them) added at the end. */
function appended(p: Postings, posting: number): Postings {
  if (typeof p === 'number') return [p, posting];
  if (!(p instanceof Uint32Array)) {
    if (p.length + 1 < TYPED_FROM) return [...p, posting];
    const typed = new Uint32Array(TYPED_FROM * 2);
    typed.set(p, 1);
    typed[0] = p.length + 1;
    typed[p.length + 1] = posting;
    return typed;
  }
  const n = p[0]! + 1;
  if (n < p.length) {
    p[n] = posting;
    p[0] = n;
    return p;
  }
  const grown = new Uint32Array(p.length * 2);
  grown.set(p);
  grown[n] = posting;
  grown[0] = n;
  return grown;
}

/** The words beginning with the same characters, each beside its postings. */
interface Bucket {
  terms: string[];
  postings: Postings[];
  /**
   * Word -> its slot, once the bucket holds more than SCAN_UP_TO words (a few words are found
   * faster by a scan, and most buckets at 100k tickets hold an id's word or two: one Map of every
   * word took some 15 MB).
   */
  slots?: Map<string, number>;
}

/** Up to this many words, a bucket's words are scanned for the one a posting goes to. */
const SCAN_UP_TO = 16;
/** V8 keeps a substring of this many characters or more as a slice of its whole string. */
const FLAT_FROM = 13;

/** What a search found: the ids of one page, best first, and how many tickets match in all. */
export interface SearchPage {
  ids: string[];
  total: number;
}

/** How long the build at start indexes tickets in one turn of the event loop before it lets requests in. */
const SLICE_MS = 8;
/**
 * A pause between slices, 0 (the next turn of the event loop) but in the test of the build
 * (store/search-index.test.ts): there it makes the build last long enough, on any machine, for the
 * test to write and read while it is under way.
 */
const slicePauseMs = () => Number(process.env.TICKETING_TEST_SEARCH_INDEX_PAUSE_MS) || 0;

/**
 * An inverted index of every ticket's words, kept in memory beside the list index and updated on
 * every write, so a search reads the postings of the words asked for instead of every ticket's text.
 * A word of the query matches the words it begins (prefix search), so part of an id, an email or a
 * word finds its tickets.
 *
 * Where the time goes at 100k tickets (about 300k distinct words, most of them ids and numbers) and
 * what keeps each part small:
 * - finding the words a prefix begins: the words are grouped by their first three characters, so a
 *   prefix reads one group (a few thousand words at most), not every word (tens of milliseconds);
 * - the matching documents: postings are plain numbers (document and weight in one), scored into
 *   an array indexed by document that is reused by every search, not into a Map per search;
 * - a word nearly every ticket holds ("teapot" in every message): every posting still counts for
 *   `total`, but only the best `offset + limit` are kept (a heap on score, then created_at as a
 *   number), and only they become list items, not all 100k.
 *
 * A changed ticket gets a new document number; the old one is left dead in the postings and skipped,
 * and the postings are renumbered once dead entries outnumber live ones.
 */
export class SearchIndex {
  /** The words by their first BUCKET characters (shorter words by themselves), each beside its postings. */
  private buckets = new Map<string, Bucket>();
  /** The buckets by each shorter beginning of their key ("a", "ab" for "abc"): a prefix of one or two characters. */
  private shorter = new Map<string, Bucket[]>();
  /** Document number -> ticket id, undefined once dead. */
  private docs: (string | undefined)[] = [];
  /** Document number -> its ticket's created_at in milliseconds: newest first among equal scores. */
  private created: number[] = [];
  private byId = new Map<string, number>();
  private dead = 0;
  /** Per document, reused by every search and left zeroed: its score so far (0: not a candidate). */
  private score = new Uint16Array(0);
  /** Per document, reused and left zeroed: the best weight of the word being matched. */
  private best = new Uint8Array(0);
  /** Settled once every ticket given to build() is in (at once when there was nothing to build). */
  private building: Promise<void> = Promise.resolve();
  private built = true;

  /** Whether a ticket is in the index (a write put it, or the build reached it). */
  has(id: string) {
    return this.byId.has(id);
  }

  /** Whether the build started at start-up has finished. */
  get ready() {
    return this.built;
  }

  /** Settles when the build is done (searches wait for it: until then some tickets are missing). */
  whenReady(): Promise<void> {
    return this.building;
  }

  /**
   * Indexes the tickets of `ids` after the port opens, in slices of SLICE_MS that yield to the event
   * loop between them, so requests are answered meanwhile. `source` reads a ticket's words as they are
   * now (undefined: it was deleted); a ticket a write put in the index meanwhile is skipped (the write
   * indexed its newer version).
   */
  build(ids: readonly string[], source: (id: string) => SearchSource | undefined, created: (id: string) => number) {
    this.built = false;
    this.building = (async () => {
      let i = 0;
      while (i < ids.length) {
        const until = performance.now() + SLICE_MS;
        for (; i < ids.length && (i % 64 !== 0 || performance.now() < until); i++) {
          const id = ids[i]!;
          if (this.byId.has(id)) continue;
          const s = source(id);
          if (s) this.insert(id, created(id), weightedWords(s));
        }
        const pause = slicePauseMs();
        if (i < ids.length) await new Promise((ok) => (pause ? setTimeout(ok, pause) : setImmediate(ok)));
      }
      this.trim();
      this.built = true;
    })();
    return this.building;
  }

  /**
   * Cuts every typed postings list to its size: growing by doubling leaves up to half of each spare
   * (at 100k tickets some 6 MB in the few words every ticket holds). A write that adds to one later
   * doubles it once again.
   */
  private trim() {
    for (const bucket of this.buckets.values())
      for (let t = 0; t < bucket.postings.length; t++) {
        const p = bucket.postings[t]!;
        if (p instanceof Uint32Array && p[0]! + 1 < p.length) bucket.postings[t] = p.slice(0, p[0]! + 1);
      }
  }

  put(t: StoredTicket) {
    this.drop(t.id);
    this.insert(t.id, Date.parse(t.created_at), weightedWords(sourceOf(t)));
  }

  remove(id: string) {
    this.drop(id);
  }

  private insert(id: string, created: number, found: Map<string, number>) {
    const doc = this.docs.length;
    this.docs.push(id);
    this.created.push(created);
    this.byId.set(id, doc);
    for (const [w, weight] of found) {
      const posting = doc * (WEIGHT_MASK + 1) + weight;
      const bucket = this.buckets.get(w.slice(0, BUCKET));
      const slot = bucket === undefined ? -1 : bucket.slots ? (bucket.slots.get(w) ?? -1) : bucket.terms.indexOf(w);
      if (slot < 0) this.file(w, posting, bucket);
      else bucket!.postings[slot] = appended(bucket!.postings[slot]!, posting);
    }
  }

  /** Puts a new word in its bucket (`bucket`: the one of its beginning, if there is one yet). */
  private file(word: string, postings: Postings, bucket = this.buckets.get(word.slice(0, BUCKET))) {
    // A long word matched in a text is a slice of that text, and would keep all of it in memory.
    const term = word.length >= FLAT_FROM ? (JSON.parse(`"${word}"`) as string) : word;
    if (!bucket) {
      const key = term.slice(0, BUCKET);
      const made: Bucket = { terms: [term], postings: [postings] };
      this.buckets.set(key, made);
      for (let n = 1; n <= key.length; n++) {
        const shorter = this.shorter.get(key.slice(0, n));
        if (shorter) shorter.push(made);
        else this.shorter.set(key.slice(0, n), [made]);
      }
      return;
    }
    if (!bucket.slots && bucket.terms.length === SCAN_UP_TO) bucket.slots = new Map(bucket.terms.map((t, i) => [t, i]));
    bucket.terms.push(term);
    bucket.postings.push(postings);
    bucket.slots?.set(term, bucket.terms.length - 1);
  }

  private drop(id: string) {
    const doc = this.byId.get(id);
    if (doc === undefined) return;
    this.byId.delete(id);
    this.docs[doc] = undefined;
    if (++this.dead > 1000 && this.dead > this.byId.size) this.compact();
  }

  /** Renumbers the live documents and drops the dead ones' postings and the words nobody holds now. */
  private compact() {
    const renumbered = new Int32Array(this.docs.length).fill(-1);
    const docs: string[] = [];
    const created: number[] = [];
    for (let d = 0; d < this.docs.length; d++) {
      const id = this.docs[d];
      if (id === undefined) continue;
      renumbered[d] = docs.length;
      this.byId.set(id, docs.length);
      docs.push(id);
      created.push(this.created[d]!);
    }
    const old = [...this.buckets.values()];
    this.buckets.clear();
    this.shorter.clear();
    for (const bucket of old)
      for (let t = 0; t < bucket.terms.length; t++) {
        const { list, from, to } = span(bucket.postings[t]!);
        let kept: Postings | undefined;
        for (let j = from; j < to; j++) {
          const p = list[j]!;
          const doc = renumbered[p >> WEIGHT_BITS]!;
          if (doc < 0) continue;
          const posting = (doc << WEIGHT_BITS) | (p & WEIGHT_MASK);
          kept = kept === undefined ? posting : appended(kept, posting);
        }
        if (kept !== undefined) this.file(bucket.terms[t]!, kept);
      }
    this.docs = docs;
    this.created = created;
    this.dead = 0;
  }

  /**
   * A page of the tickets holding every word of `query` (each as a word's beginning), best first:
   * per word the best weight among the words it begins, summed; the tickets `exact` names score
   * EXACT. Then newest first, then the id (as PostgreSQL orders them).
   */
  search(query: string[], exact: string[], limit: number, offset: number): SearchPage {
    if (this.score.length < this.docs.length) {
      const size = Math.max(1024, this.docs.length * 2);
      this.score = new Uint16Array(size);
      this.best = new Uint8Array(size);
    }
    // The word with the fewest postings goes first: it sets the candidates, which the others thin out.
    const sized = query.map((q) => this.termsStarting(q)).map((terms) => ({ terms, cost: postingsOf(terms) }));
    sized.sort((a, b) => a.cost - b.cost);
    let candidates = sized.length ? this.firstWord(sized[0]!.terms) : [];
    for (let i = 1; i < sized.length && candidates.length; i++) candidates = this.thinOut(candidates, sized[i]!.terms);
    for (const id of exact) {
      const doc = this.byId.get(id);
      if (doc === undefined) continue;
      if (!this.score[doc]) candidates.push(doc);
      this.score[doc] = EXACT;
    }
    const top = this.topOf(candidates, offset + limit);
    for (const doc of candidates) this.score[doc] = 0;
    return { ids: top.slice(offset).map((doc) => this.docs[doc]!), total: candidates.length };
  }

  /** The live documents of these postings, each scored with its best weight among them. */
  private firstWord(terms: Postings[]): number[] {
    const { score, docs } = this;
    const candidates: number[] = [];
    for (const postings of terms) {
      const { list, from, to } = span(postings);
      for (let j = from; j < to; j++) {
        const p = list[j]!;
        const doc = p >> WEIGHT_BITS;
        if (docs[doc] === undefined) continue;
        const w = p & WEIGHT_MASK;
        const had = score[doc]!;
        if (!had) candidates.push(doc);
        if (had < w) score[doc] = w;
      }
    }
    return candidates;
  }

  /**
   * The candidates that also hold one of these words, their score raised by its best weight; the
   * others are dropped (score 0). A word's postings are read through unless there are few
   * candidates: then each candidate is looked up in them (they are in document order), so a rare
   * word beside "com" of every email reads a few hundred entries, not 100k.
   */
  private thinOut(candidates: number[], terms: Postings[]): number[] {
    const { score, best } = this;
    for (const postings of terms) {
      const { list, from, to } = span(postings);
      if (candidates.length * Math.log2(to - from + 1) < to - from) {
        for (const doc of candidates) {
          const at = firstAtLeast(list, from, to, doc << WEIGHT_BITS);
          const p = at < to ? list[at]! : undefined;
          if (p !== undefined && p >> WEIGHT_BITS === doc && best[doc]! < (p & WEIGHT_MASK))
            best[doc] = p & WEIGHT_MASK;
        }
        continue;
      }
      for (let j = from; j < to; j++) {
        const p = list[j]!;
        const doc = p >> WEIGHT_BITS;
        if (score[doc] && best[doc]! < (p & WEIGHT_MASK)) best[doc] = p & WEIGHT_MASK;
      }
    }
    const kept: number[] = [];
    for (const doc of candidates) {
      if (best[doc]) {
        score[doc]! += best[doc]!;
        best[doc] = 0;
        kept.push(doc);
      } else score[doc] = 0;
    }
    return kept;
  }

  /** Whether document a ranks before b: higher score, then newer, then the higher id. */
  private before(a: number, b: number): boolean {
    const d = this.score[a]! - this.score[b]!;
    if (d) return d > 0;
    const c = this.created[a]! - this.created[b]!;
    if (c) return c > 0;
    return this.docs[a]! > this.docs[b]!;
  }

  /**
   * The best `keep` of the candidates in order: a heap of the best so far with the worst on top, so
   * each of 100k candidates costs one comparison with the worst kept (its score and time held in
   * locals) unless it is better.
   */
  private topOf(candidates: number[], keep: number): number[] {
    const { score, created } = this;
    const heap: number[] = [];
    if (!keep) return heap;
    let worstScore = 0;
    let worstCreated = 0;
    // Newest documents first: tickets are mostly numbered as they come, so the heap soon holds
    // the newest and the rest are cut by the first comparison (oldest first, each would replace one).
    for (let i = candidates.length - 1; i >= 0; i--) {
      const doc = candidates[i]!;
      if (heap.length < keep) {
        heap.push(doc);
        siftUp(heap, heap.length - 1, (a, b) => this.before(b, a));
      } else {
        const s = score[doc]!;
        if (s < worstScore || (s === worstScore && created[doc]! < worstCreated)) continue;
        if (!this.before(doc, heap[0]!)) continue;
        heap[0] = doc;
        siftDown(heap, 0, (a, b) => this.before(b, a));
      }
      worstScore = score[heap[0]!]!;
      worstCreated = created[heap[0]!]!;
    }
    return heap.sort((a, b) => (this.before(a, b) ? -1 : 1));
  }

  /** The postings of every word that begins with `prefix`. */
  private termsStarting(prefix: string): Postings[] {
    const found: Postings[] = [];
    const take = ({ terms, postings }: Bucket, all: boolean) => {
      for (let i = 0; i < terms.length; i++) if (all || terms[i]!.startsWith(prefix)) found.push(postings[i]!);
    };
    if (prefix.length >= BUCKET) {
      const bucket = this.buckets.get(prefix.slice(0, BUCKET));
      if (bucket) take(bucket, prefix.length === BUCKET);
    } else for (const bucket of this.shorter.get(prefix) ?? []) take(bucket, true);
    return found;
  }
}

/** The first position in sorted `values[from..to)` holding `value` or more (`to` if none). */
function firstAtLeast(values: ArrayLike<number>, from: number, to: number, value: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Moves heap[i] up while it comes before its parent (`first` is the heap's order). */
function siftUp(heap: number[], i: number, first: (a: number, b: number) => boolean) {
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!first(heap[i]!, heap[parent]!)) return;
    [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
    i = parent;
  }
}

/** Moves heap[i] down while a child comes before it. */
function siftDown(heap: number[], i: number, first: (a: number, b: number) => boolean) {
  for (;;) {
    const l = 2 * i + 1;
    let m = i;
    if (l < heap.length && first(heap[l]!, heap[m]!)) m = l;
    if (l + 1 < heap.length && first(heap[l + 1]!, heap[m]!)) m = l + 1;
    if (m === i) return;
    [heap[i], heap[m]] = [heap[m]!, heap[i]!];
    i = m;
  }
}

/** How many entries these postings hold (dead ones included): a word's cost. */
const postingsOf = (terms: Postings[]) => terms.reduce<number>((n, p) => n + sizeOf(p), 0);

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
