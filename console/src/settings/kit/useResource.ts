import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../api/client.js';
import { useStore, useStrings } from '../../state/context.js';
import { detailText, errorText } from './errorText.js';
import { settingsStrings } from './strings.js';

/** The value at an API `param` path (`tags.0.color` as ['tags', '0', 'color']) of a draft. */
const at = (value: unknown, path: string[]): unknown =>
  path.reduce<unknown>(
    (v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined),
    value,
  );

/** Drafts with unsaved edits on the screen now, and the question a link away from them asks (in the console's language). */
const leaving = { drafts: 0, question: '' };

/**
 * A click on a link to another page (another settings section, the inbox) while a draft is unsaved asks
 * first; "Cancel" keeps the page and its edits. Capturing on window runs before the router's own click
 * listener, so a refused click never navigates.
 */
function askBeforeLeaving(e: MouseEvent) {
  if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
  const link = (e.target as Element | null)?.closest?.<HTMLAnchorElement>('a[href]');
  if (!link || link.origin !== location.origin || link.target || link.download) return;
  if (link.pathname === location.pathname && link.search === location.search) return;
  if (confirm(leaving.question)) return;
  e.preventDefault();
  e.stopPropagation();
}

/** Counts one unsaved draft while it lasts; the returned function ends it (a screen may hold several). */
function guardLinks() {
  if (leaving.drafts++ === 0) addEventListener('click', askBeforeLeaving, true);
  return () => {
    if (--leaving.drafts === 0) removeEventListener('click', askBeforeLeaving, true);
  };
}

export type SaveState = 'loading' | 'ready' | 'saving' | 'saved' | 'failed';

export interface Resource<T> {
  /** The value as stored (null while loading or when it could not be read). */
  saved: T | null;
  /** The form's value; edits change only this until `save`. */
  draft: T | null;
  setDraft: (next: T) => void;
  /** Field errors of the last save by `param` path as the API names them (`tags.0.color`, `title`). */
  errors: Record<string, string>;
  /** An error that belongs to no field (network, permission, conflict). */
  formError: string | null;
  state: SaveState;
  /** The last save's refusal as the API answered it (code and every detail), for screens that explain it. */
  failure: ApiError | null;
  dirty: boolean;
  /**
   * The last successful save: what was sent and the whole answer, whose other keys carry what the server
   * shows once (`webhook_secrets_created`).
   */
  lastSave: { sent: T; answer: Record<string, unknown> } | null;
  /** Sends the draft (or `value`); on success the stored answer becomes both `saved` and `draft`. */
  save: (value?: T) => Promise<boolean>;
  discard: () => void;
}

/**
 * One `/admin` resource in a settings screen: loads it, keeps an edited draft beside the stored value,
 * saves it whole and maps the API's `details` to fields. `list` resources are sent as `{ [r]: [...] }`,
 * single objects as themselves (docs/api.md "/admin"). Closing the page with unsaved edits asks first,
 * so a draft is not lost by a slip.
 */
export function useResource<T>(r: string, options: { list?: boolean } = {}): Resource<T> {
  const s = useStore();
  const t = useStrings(settingsStrings);
  const [saved, setSaved] = useState<T | null>(null);
  const [draft, setDraft] = useState<T | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [state, setState] = useState<SaveState>('loading');
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [lastSave, setLastSave] = useState<Resource<T>['lastSave']>(null);

  useEffect(() => {
    let live = true;
    s.api.adminGet<T>(r).then(
      (v) => {
        if (!live) return;
        setSaved(v);
        setDraft(v);
        setState('ready');
      },
      (e: unknown) => {
        if (!live) return;
        setFormError(errorText(t, e, s.t.value.networkError));
        setState('failed');
      },
    );
    return () => void (live = false);
  }, [r]);

  const dirty = draft !== null && JSON.stringify(draft) !== JSON.stringify(saved);
  leaving.question = t.leaveUnsaved;
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    addEventListener('beforeunload', warn);
    const unguard = guardLinks();
    return () => {
      removeEventListener('beforeunload', warn);
      unguard();
    };
  }, [dirty]);

  async function save(value: T | null = draft) {
    if (value === null) return false;
    setState('saving');
    setErrors({});
    setFormError(null);
    setFailure(null);
    try {
      const answer = await s.api.adminPost<Record<string, T>>(r, options.list ? { [r]: value } : value);
      const stored = answer[r] ?? value;
      setLastSave({ sent: value, answer });
      setSaved(stored);
      setDraft(stored);
      setState('saved');
      return true;
    } catch (e) {
      if (e instanceof ApiError) setFailure(e);
      if (e instanceof ApiError && e.details.length) {
        setErrors(Object.fromEntries(e.details.map((d) => [d.param, detailText(t, d, e.code)])));
      } else setFormError(errorText(t, e, s.t.value.networkError));
      setState('failed');
      return false;
    }
  }

  return {
    saved,
    draft,
    setDraft: (next) => {
      setDraft(next);
      if (state === 'saved') setState('ready');
      // A refused value the agent changed loses its error at once: the red text was about the old value.
      const kept = Object.fromEntries(
        Object.entries(errors).filter(([param]) => {
          const path = (options.list && param.startsWith(`${r}.`) ? param.slice(r.length + 1) : param).split('.');
          return JSON.stringify(at(draft, path)) === JSON.stringify(at(next, path));
        }),
      );
      if (Object.keys(kept).length === Object.keys(errors).length) return;
      setErrors(kept);
      if (state === 'failed' && !Object.keys(kept).length && !formError) setState('ready');
    },
    errors,
    formError,
    state,
    failure,
    dirty,
    lastSave,
    save,
    discard: () => {
      setDraft(saved);
      setErrors({});
      setFormError(null);
    },
  };
}
