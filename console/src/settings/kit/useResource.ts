import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../api/client.js';
import { useStore } from '../../state/context.js';

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
  const [saved, setSaved] = useState<T | null>(null);
  const [draft, setDraft] = useState<T | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [state, setState] = useState<SaveState>('loading');
  const [failure, setFailure] = useState<ApiError | null>(null);

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
        setFormError(e instanceof ApiError ? e.message : String(e));
        setState('failed');
      },
    );
    return () => void (live = false);
  }, [r]);

  const dirty = draft !== null && JSON.stringify(draft) !== JSON.stringify(saved);
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    addEventListener('beforeunload', warn);
    return () => removeEventListener('beforeunload', warn);
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
      setSaved(stored);
      setDraft(stored);
      setState('saved');
      return true;
    } catch (e) {
      if (e instanceof ApiError) setFailure(e);
      if (e instanceof ApiError && e.details.length) {
        setErrors(Object.fromEntries(e.details.map((d) => [d.param, d.message])));
      } else setFormError(e instanceof ApiError ? e.message : String(e));
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
    },
    errors,
    formError,
    state,
    failure,
    dirty,
    save,
    discard: () => {
      setDraft(saved);
      setErrors({});
      setFormError(null);
    },
  };
}
