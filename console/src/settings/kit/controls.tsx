import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useStrings } from '../../state/context.js';
import { settingsStrings } from './strings.js';
import type { Resource } from './useResource.js';

interface Base {
  /** Unique in the page: ties the label, the hint and the error to the control. */
  id: string;
  label: string;
  hint?: string | undefined;
  error?: string | undefined;
}

const describedBy = ({ id, hint, error }: Base) =>
  [hint && `${id}-hint`, error && `${id}-err`].filter(Boolean).join(' ') || undefined;

/** Label above, hint and error below, read out with the control. */
function Wrap(props: Base & { children: ComponentChildren; inline?: boolean }) {
  return (
    <div class={props.inline ? 'field check' : 'field'}>
      {props.inline ? (
        <label for={props.id}>
          {props.children}
          <span>{props.label}</span>
        </label>
      ) : (
        <>
          <label for={props.id}>{props.label}</label>
          {props.children}
        </>
      )}
      {props.hint && (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      )}
      {props.error && (
        <p class="err" id={`${props.id}-err`}>
          {props.error}
        </p>
      )}
    </div>
  );
}

export function TextInput(
  props: Base & {
    value: string | null | undefined;
    onChange: (v: string) => void;
    type?: 'text' | 'email' | 'url' | 'password';
    placeholder?: string | undefined;
    required?: boolean;
    autocomplete?: string;
  },
) {
  return (
    <Wrap {...props}>
      <input
        id={props.id}
        type={(props.type ?? 'text') as 'text'}
        value={props.value ?? ''}
        placeholder={props.placeholder}
        required={props.required}
        autocomplete={props.autocomplete ?? 'off'}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={describedBy(props)}
        onInput={(e) => props.onChange(e.currentTarget.value)}
      />
    </Wrap>
  );
}

export function TextArea(
  props: Base & { value: string | null | undefined; onChange: (v: string) => void; rows?: number },
) {
  return (
    <Wrap {...props}>
      <textarea
        id={props.id}
        rows={props.rows ?? 4}
        value={props.value ?? ''}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={describedBy(props)}
        onInput={(e) => props.onChange(e.currentTarget.value)}
      />
    </Wrap>
  );
}

/** A whole number; an emptied box gives `null` (the caller decides whether that is allowed). */
export function NumberInput(
  props: Base & { value: number | null | undefined; onChange: (v: number | null) => void; min?: number; max?: number },
) {
  return (
    <Wrap {...props}>
      <input
        id={props.id}
        type="number"
        inputMode="numeric"
        min={props.min}
        max={props.max}
        value={props.value ?? ''}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={describedBy(props)}
        onInput={(e) => {
          const v = e.currentTarget.value;
          props.onChange(v === '' ? null : Math.trunc(Number(v)));
        }}
      />
    </Wrap>
  );
}

export function Toggle(props: Base & { checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <Wrap {...props} inline>
      <input
        id={props.id}
        type="checkbox"
        checked={props.checked}
        aria-describedby={describedBy(props)}
        onChange={(e) => props.onChange(e.currentTarget.checked)}
      />
    </Wrap>
  );
}

export function Choice<V extends string>(
  props: Base & { value: V; options: readonly { value: V; label: string }[]; onChange: (v: V) => void },
) {
  return (
    <Wrap {...props}>
      <select
        id={props.id}
        value={props.value}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={describedBy(props)}
        onChange={(e) => props.onChange(e.currentTarget.value as V)}
      >
        {props.options.map((o) => (
          <option value={o.value}>{o.label}</option>
        ))}
      </select>
    </Wrap>
  );
}

/** A colour as `#rrggbb`: the picker and the text beside it (for pasting a brand colour). */
export function ColorInput(props: Base & { value: string; onChange: (v: string) => void }) {
  const full = /^#[0-9a-f]{6}$/i.test(props.value)
    ? props.value
    : /^#[0-9a-f]{3}$/i.test(props.value)
      ? `#${[...props.value.slice(1)].map((c) => c + c).join('')}`
      : '#000000';
  return (
    <Wrap {...props}>
      <span class="color-input">
        <input
          type="color"
          value={full}
          aria-label={props.label}
          tabIndex={-1}
          onInput={(e) => props.onChange(e.currentTarget.value)}
        />
        <input
          id={props.id}
          value={props.value}
          size={8}
          spellcheck={false}
          aria-invalid={props.error ? 'true' : undefined}
          aria-describedby={describedBy(props)}
          onInput={(e) => props.onChange(e.currentTarget.value.trim())}
        />
      </span>
    </Wrap>
  );
}

/**
 * Rows of a list setting, each with move up/down and remove; `render` draws one row's fields and
 * `update` replaces that row. Order matters where the API applies entries in order (rules).
 */
export function ListRows<T>(props: {
  items: T[];
  onChange: (items: T[]) => void;
  render: (item: T, index: number, update: (next: T) => void) => ComponentChildren;
  /** The row "Add" appends; without it there is no Add button. */
  newItem?: () => T;
  addLabel?: string;
  /** Names the row in the buttons' accessible names ("Remove Billing"). */
  name: (item: T, index: number) => string;
}) {
  const t = useStrings(settingsStrings);
  const { items, onChange } = props;
  const move = (from: number, to: number) => {
    const next = [...items];
    const [it] = next.splice(from, 1);
    next.splice(to, 0, it!);
    onChange(next);
  };
  return (
    <div class="list-rows">
      <ol>
        {items.map((item, i) => (
          <li class="list-row">
            <div class="list-row-body">
              {props.render(item, i, (nextItem) => onChange(items.map((x, j) => (j === i ? nextItem : x))))}
            </div>
            <div class="list-row-tools">
              <button
                type="button"
                class="btn small ghost"
                disabled={i === 0}
                aria-label={`${t.moveUp}: ${props.name(item, i)}`}
                onClick={() => move(i, i - 1)}
              >
                ↑
              </button>
              <button
                type="button"
                class="btn small ghost"
                disabled={i === items.length - 1}
                aria-label={`${t.moveDown}: ${props.name(item, i)}`}
                onClick={() => move(i, i + 1)}
              >
                ↓
              </button>
              <button
                type="button"
                class="btn small ghost danger"
                aria-label={`${t.remove}: ${props.name(item, i)}`}
                onClick={() => onChange(items.filter((_, j) => j !== i))}
              >
                {t.remove}
              </button>
            </div>
          </li>
        ))}
      </ol>
      {props.newItem && (
        <button type="button" class="btn small" onClick={() => onChange([...items, props.newItem!()])}>
          {props.addLabel ?? t.add}
        </button>
      )}
    </div>
  );
}

/** Copies `text` and says so for a moment (and to screen readers). */
export function CopyButton({ text, label }: { text: string; label?: string }) {
  const t = useStrings(settingsStrings);
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="btn small"
      onClick={() =>
        void navigator.clipboard.writeText(text).then(() => {
          setDone(true);
          setTimeout(() => setDone(false), 2000);
        })
      }
    >
      <span aria-live="polite">{done ? t.copied : (label ?? t.copy)}</span>
    </button>
  );
}

/**
 * A settings screen around one `/admin` resource: title, what it does, the form, and a bar with Save
 * and Discard that says whether anything is unsaved, saving, saved or wrong.
 */
export function SettingsForm<T>(props: {
  title: string;
  intro?: ComponentChildren;
  resource: Resource<T>;
  children: (draft: T, set: (next: T) => void) => ComponentChildren;
  /** Shown beside the form (a preview), when given. */
  aside?: (draft: T) => ComponentChildren;
  /**
   * A second resource on the same screen (saved separately): its heading is an h2 with this id, and
   * `saveLabel` names its Save button apart from the first one's.
   */
  headingId?: string;
  saveLabel?: string;
  /** The section's class: `settings-sub` for a further resource below the page's title. */
  sectionClass?: string;
}) {
  const t = useStrings(settingsStrings);
  const { resource: res } = props;
  const status =
    res.state === 'saving'
      ? t.saving
      : res.state === 'failed' && Object.keys(res.errors).length
        ? t.fixErrors
        : res.dirty
          ? t.unsaved
          : res.state === 'saved'
            ? t.saved
            : '';
  return (
    <section class={props.sectionClass ?? 'settings-page'} aria-labelledby={props.headingId ?? 'settings-title'}>
      {props.headingId ? <h2 id={props.headingId}>{props.title}</h2> : <h1 id="settings-title">{props.title}</h1>}
      {props.intro && <div class="intro">{props.intro}</div>}
      {res.formError && (
        <p class="err banner" role="alert">
          {res.formError}
        </p>
      )}
      {res.draft === null ? (
        res.state === 'loading' && <p class="hint">{t.loading}</p>
      ) : (
        <div class={props.aside ? 'settings-split' : undefined}>
          <form
            class="settings-form stack"
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              void res.save().then((ok) => {
                // Move to the first field the server refused, so the fix starts there.
                if (!ok)
                  requestAnimationFrame(() => document.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
              });
            }}
          >
            {props.children(res.draft, res.setDraft)}
            <div class="save-bar">
              <button type="submit" class="btn primary" disabled={res.state === 'saving' || !res.dirty}>
                {props.saveLabel ?? t.save}
              </button>
              <button type="button" class="btn ghost" disabled={!res.dirty} onClick={res.discard}>
                {t.discard}
              </button>
              <span class={res.state === 'failed' ? 'status err' : 'status'} role="status">
                {status}
              </span>
            </div>
          </form>
          {props.aside && <aside class="settings-aside">{props.aside(res.draft)}</aside>}
        </div>
      )}
    </section>
  );
}

/**
 * A further resource on a screen that SettingsForm opens (Turnstile beside the blocklists): its own
 * heading, form and save bar, one level below the page's title.
 */
export function SubForm<T>(props: {
  id: string;
  title: string;
  intro?: ComponentChildren;
  resource: Resource<T>;
  children: (draft: T, set: (next: T) => void) => ComponentChildren;
}) {
  return <SettingsForm {...props} headingId={`${props.id}-title`} sectionClass="settings-sub" />;
}

/**
 * A write-only secret (SMTP password, Turnstile secret, webhook secret): the server never sends it
 * back, only whether one is set. Set: says so, with "Replace" opening an empty box; `value` undefined
 * means "keep the stored one" (the API keeps an omitted secret). `extra` sits beside the box (Generate).
 */
export function SecretInput(
  props: Base & {
    isSet: boolean;
    value: string | null | undefined;
    onChange: (v: string | undefined) => void;
    setText: string;
    replaceText: string;
    keepText: string;
    extra?: ComponentChildren;
  },
) {
  const [open, setOpen] = useState(false);
  const editing = !props.isSet || open || typeof props.value === 'string';
  return (
    <Wrap {...props}>
      {editing ? (
        <span class="secret-input">
          <input
            id={props.id}
            type="password"
            value={props.value ?? ''}
            autocomplete="new-password"
            aria-invalid={props.error ? 'true' : undefined}
            aria-describedby={describedBy(props)}
            onInput={(e) => props.onChange(e.currentTarget.value || undefined)}
          />
          {props.extra}
          {props.isSet && (
            <button
              type="button"
              class="btn small ghost"
              aria-label={`${props.keepText}: ${props.label}`}
              onClick={() => {
                setOpen(false);
                props.onChange(undefined);
              }}
            >
              {props.keepText}
            </button>
          )}
        </span>
      ) : (
        <span class="secret-input">
          <span class="secret-set" id={props.id} tabIndex={-1}>
            {props.setText}
          </span>
          <button
            type="button"
            class="btn small"
            aria-label={`${props.replaceText}: ${props.label}`}
            onClick={() => {
              setOpen(true);
              requestAnimationFrame(() => document.getElementById(props.id)?.focus());
            }}
          >
            {props.replaceText}
          </button>
          {props.extra}
        </span>
      )}
    </Wrap>
  );
}

/** An id the API accepts (`^[a-z0-9][a-z0-9_-]{0,31}$`) made from a name, for a new row (categories, statuses, macros). */
export const slugOf = (name: string) =>
  name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 32);

const lineEntries = (text: string) => text.split('\n').map((l) => l.trim());

/**
 * A list setting typed one entry a line (blocklists, addresses). The text stays as typed (blank lines
 * too) while the draft holds its non-blank lines; a refused entry (`<param>.3` in the API's details) is
 * named by its line, "Line 5: …", under the box.
 */
export function LinesInput(
  props: Omit<Base, 'error'> & {
    list: string[];
    onChange: (list: string[]) => void;
    /** The list's path in the API's details (`emails`, `email_notify.agent_emails`). */
    param: string;
    errors: Record<string, string>;
    /** "Line" in the screen's language. */
    lineText: string;
    rows?: number;
  },
) {
  const [text, setText] = useState(props.list.join('\n'));
  // The draft changed from outside (loaded, discarded, the stored answer): show it.
  const same = JSON.stringify(lineEntries(text).filter(Boolean)) === JSON.stringify(props.list);
  const shown = same ? text : props.list.join('\n');
  const lines = lineEntries(shown).flatMap((l, i) => (l ? [i + 1] : []));
  const prefix = `${props.param}.`;
  const problems = Object.entries(props.errors)
    .filter(([param]) => param === props.param || param.startsWith(prefix))
    .map(([param, message]) => {
      const line = param === props.param ? undefined : lines[Number(param.slice(prefix.length).split('.')[0])];
      return line ? `${props.lineText} ${line}: ${message}` : message;
    });
  return (
    <TextArea
      id={props.id}
      label={props.label}
      hint={props.hint}
      error={problems.length ? problems.join(' · ') : undefined}
      rows={props.rows ?? 4}
      value={shown}
      onChange={(v) => {
        setText(v);
        props.onChange(lineEntries(v).filter(Boolean));
      }}
    />
  );
}

/** A secret the server answers only once (an invited agent's password, a new API key): copy it now. */
export function ShownOnce(props: {
  title: string;
  value: string;
  hint: string;
  doneLabel: string;
  onDone: () => void;
}) {
  return (
    <div class="once banner" role="status">
      <p>
        <strong>{props.title}</strong>
      </p>
      <p class="once-value">
        <code>{props.value}</code> <CopyButton text={props.value} />
      </p>
      <p class="hint">{props.hint}</p>
      <button type="button" class="btn small" onClick={props.onDone}>
        {props.doneLabel}
      </button>
    </div>
  );
}
