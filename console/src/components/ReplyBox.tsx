import { useSignal } from '@preact/signals';
import { Markdown, PlainText } from '@ticketing/widget/text';
import type { ConsoleReply, ConsoleTicket } from '../api/types.js';
import { fill } from '../i18n/t.js';
import { useStore } from '../state/context.js';
import { Icon } from './icons.js';
import { insertMention, mentionAt, mentionCandidates, MentionList, type MentionDraft } from './MentionList.js';
import { bytes, dateTime, fillPlaceholders } from './format.js';

/**
 * The reply box: a reply to the customer or an internal note, Markdown with a preview, files by
 * picker, drag and drop or paste, macros, "send and set status". Its text is a draft per ticket that
 * survives reloads; sending waits a few seconds for Undo.
 */
export function ReplyBox({ ticket }: { ticket: ConsoleTicket }) {
  const s = useStore();
  const t = s.t.value;
  const id = ticket.id;
  const state = s.ticket;
  const draft = state.draftFor(id);
  const files = state.filesFor(id);
  const error = state.sendError.value[id];
  const typing = state.typing.value[id];
  const viewers = Object.values(state.viewers.value[id] ?? {}).filter((v) => v.name !== typing?.name);
  const conflict = state.conflicts.value[id];
  const replyStatus = s.replyStatus.value;
  const preview = useSignal(false);
  const dragging = useSignal(false);
  const macros = s.macros.value;
  const macro = draft.macro ? macros.find((m) => m.id === draft.macro) : undefined;
  const statuses = s.meta.value?.statuses ?? [];
  const note = draft.internal;
  // `@name` typed in a note: colleagues from /team to complete it with (kept by the server by id).
  const mention = useSignal<MentionDraft | null>(null);
  const candidates = note && mention.value ? mentionCandidates(s.agents.value, mention.value.query) : [];
  const suggesting = candidates.length > 0;
  const active = suggesting ? Math.min(mention.value!.active, candidates.length - 1) : 0;
  const pickMention = (area: HTMLTextAreaElement, name: string) => {
    const next = insertMention(area.value, area.selectionStart, mention.value!, name);
    mention.value = null;
    state.setDraft(id, { text: next.text });
    area.value = next.text;
    area.setSelectionRange(next.caret, next.caret);
  };

  const addFiles = (list: FileList | File[] | null | undefined) => {
    const picked = [...(list ?? [])];
    if (picked.length) state.setFiles(id, [...state.filesFor(id), ...picked]);
  };
  const useMacro = (macroId: string) => {
    const m = macros.find((x) => x.id === macroId);
    if (!m) return;
    const text = fillPlaceholders(m.message, ticket);
    state.setDraft(id, { text: draft.text.trim() ? `${draft.text.trimEnd()}\n\n${text}` : text, macro: m.id });
    document.getElementById('reply-text')?.focus();
  };
  const macroEffects = macro
    ? [
        macro.status && `${t.status}: ${s.statusName(macro.status)}`,
        macro.priority && `${t.priority}: ${t[`prio_${macro.priority}`]}`,
      ].filter(Boolean)
    : [];
  const sendLabel = note
    ? t.addNote
    : draft.status
      ? fill(t.sendAndSet, { status: s.statusName(draft.status) })
      : t.send;

  return (
    <section
      class={`compose${note ? ' note' : ''}${dragging.value ? ' dragging' : ''}`}
      aria-labelledby="compose-title"
      onDragOver={(e) => {
        if (e.dataTransfer?.types.includes('Files')) {
          e.preventDefault();
          dragging.value = true;
        }
      }}
      onDragLeave={() => (dragging.value = false)}
      onDrop={(e) => {
        if (!e.dataTransfer?.files.length) return;
        e.preventDefault();
        dragging.value = false;
        addFiles(e.dataTransfer.files);
      }}
    >
      <h2 id="compose-title" class="sr">
        {note ? t.noteTab : t.replyTab}
      </h2>
      {typing && (
        <p class="typing" role="status">
          {fill(t.replying, { name: typing.name })}
        </p>
      )}
      {viewers.length > 0 && (
        <p class="viewing" role="status">
          {viewers.map((v) => fill(t.viewing, { name: v.name })).join(' · ')}
        </p>
      )}
      {conflict && <Changed messages={conflict} onForce={() => state.send(id, { force: true })} />}
      <fieldset class="mode">
        <legend class="sr">{t.composeMode}</legend>
        <label class={!note ? 'on' : ''}>
          <input
            type="radio"
            name="compose-mode"
            checked={!note}
            onChange={() => state.setDraft(id, { internal: false })}
          />
          {t.replyTab}
        </label>
        <label class={note ? 'on' : ''}>
          <input
            type="radio"
            name="compose-mode"
            checked={note}
            onChange={() => state.setDraft(id, { internal: true })}
          />
          {t.noteTab}
        </label>
      </fieldset>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          state.send(id);
        }}
        noValidate
      >
        {!note && macros.length > 0 && (
          <div class="macro">
            <label for="reply-macro" class="sr">
              {t.macro}
            </label>
            <select
              id="reply-macro"
              value=""
              onChange={(e) => {
                useMacro(e.currentTarget.value);
                e.currentTarget.value = '';
              }}
            >
              <option value="">{t.chooseMacro}</option>
              {macros.map((m) => (
                <option value={m.id}>{m.name}</option>
              ))}
            </select>
            {macroEffects.length > 0 && (
              <span class="hint">{fill(t.macroApplies, { what: macroEffects.join(', ') })}</span>
            )}
          </div>
        )}
        <label for="reply-text">{note ? t.noteLabel : t.replyLabel}</label>
        {preview.value ? (
          <div class="preview-box" id="reply-preview">
            <Markdown source={draft.text} />
          </div>
        ) : (
          <textarea
            id="reply-text"
            rows={6}
            value={draft.text}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={`reply-hint${error ? ' reply-err' : ''}`}
            aria-autocomplete={note ? 'list' : undefined}
            aria-controls={suggesting ? 'mention-list' : undefined}
            aria-activedescendant={suggesting ? `mention-list-${active}` : undefined}
            onInput={(e) => {
              const area = e.currentTarget;
              const text = area.value;
              state.setDraft(id, { text, ...(text.trim() ? {} : { macro: null }) });
              if (text) state.typed(id);
              const found = note ? mentionAt(text, area.selectionStart) : null;
              mention.value = found && { ...found, active: 0 };
            }}
            onBlur={() => (mention.value = null)}
            onPaste={(e) => {
              if (e.clipboardData?.files.length) {
                e.preventDefault();
                addFiles(e.clipboardData.files);
              }
            }}
            onKeyDown={(e) => {
              if (suggesting) {
                const area = e.currentTarget;
                const move = e.key === 'ArrowDown' ? 1 : e.key === 'ArrowUp' ? -1 : 0;
                if (move) {
                  e.preventDefault();
                  const n = candidates.length;
                  mention.value = { ...mention.value!, active: (active + move + n) % n };
                  return;
                }
                if ((e.key === 'Enter' && !e.ctrlKey && !e.metaKey) || e.key === 'Tab') {
                  e.preventDefault();
                  pickMention(area, candidates[active]!.name);
                  return;
                }
                if (e.key === 'Escape') {
                  // Closes the suggestions only: the note box keeps the focus.
                  e.preventDefault();
                  e.stopPropagation();
                  mention.value = null;
                  return;
                }
              }
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                state.send(id);
              }
              if (e.key === 'Escape') e.currentTarget.blur();
            }}
          />
        )}
        {suggesting && (
          <MentionList
            id="mention-list"
            label={t.mentionList}
            candidates={candidates}
            active={active}
            onPick={(a) => {
              const area = document.getElementById('reply-text') as HTMLTextAreaElement | null;
              if (area) pickMention(area, a.name);
            }}
          />
        )}
        <p class="hint" id="reply-hint">
          {t.markdownHint}
        </p>
        {files.length > 0 && (
          <ul class="chosen" aria-label={t.attachments}>
            {files.map((f, i) => (
              <li key={`${f.name}-${i}`}>
                <span>{f.name}</span> <span class="file-meta">{bytes(f.size, s.locale.value)}</span>
                <button
                  type="button"
                  class="icon-btn small"
                  aria-label={`${t.remove} ${f.name}`}
                  onClick={() =>
                    state.setFiles(
                      id,
                      files.filter((_, j) => j !== i),
                    )
                  }
                >
                  <Icon name="close" />
                </button>
              </li>
            ))}
          </ul>
        )}
        {error && (
          <p class="err" id="reply-err" role="alert">
            {error}
          </p>
        )}
        <div class="compose-actions">
          <label class="btn ghost file-pick">
            {t.attachFiles}
            <input
              type="file"
              multiple
              class="sr"
              onChange={(e) => {
                addFiles(e.currentTarget.files);
                e.currentTarget.value = '';
              }}
            />
          </label>
          <span class="hint drop">{t.dropHint}</span>
          <button
            type="button"
            class="btn ghost"
            aria-pressed={preview.value}
            onClick={() => (preview.value = !preview.value)}
          >
            {preview.value ? t.edit : t.preview}
          </button>
          <span class="spacer" />
          {!note && (
            <>
              <label for="reply-status" class="sr">
                {t.statusAfter}
              </label>
              <select
                id="reply-status"
                value={draft.status}
                onChange={(e) => state.setDraft(id, { status: e.currentTarget.value })}
              >
                <option value="">
                  {fill(t.keepStatus, { status: replyStatus ? s.statusName(replyStatus) : t.status })}
                </option>
                {statuses.map((st) => (
                  <option value={st.id}>{s.statusName(st.id)}</option>
                ))}
              </select>
            </>
          )}
          <button type="submit" class="btn primary" disabled={state.pending.value[id]}>
            {sendLabel}
          </button>
        </div>
      </form>
    </section>
  );
}

/**
 * The reply was refused (409 ticket_changed): what came in while the agent wrote, above the draft
 * they still have, and "Send anyway" for a reply that stands regardless.
 */
function Changed({ messages, onForce }: { messages: ConsoleReply[]; onForce: () => void }) {
  const s = useStore();
  const t = s.t.value;
  return (
    <section class="banner changed" role="alert" aria-labelledby="changed-title">
      <h3 id="changed-title">{t.changedTitle}</h3>
      <ol class="changed-list">
        {messages.map((m) => (
          <li key={m.id} class={m.internal ? 'note' : m.from_customer ? 'customer' : 'support'}>
            <p class="changed-meta">
              <strong>{m.author ?? (m.from_customer ? t.customer : t.support)}</strong>{' '}
              <time dateTime={m.created_at}>{dateTime(m.created_at, s.locale.value)}</time>
            </p>
            {m.from_customer ? <PlainText source={m.message} /> : <Markdown source={m.message} />}
          </li>
        ))}
      </ol>
      <p class="hint">{t.changedHint}</p>
      <button type="button" class="btn" onClick={onForce}>
        {t.sendAnyway}
      </button>
    </section>
  );
}
