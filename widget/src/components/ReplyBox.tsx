import { useSignal } from '@preact/signals';
import { useRef } from 'preact/hooks';
import { useStore } from '../state/context.js';
import { Attachments } from './Attachments.js';
import { RequiredMark } from './Field.js';

/**
 * The customer's reply, with files. What is typed is kept as a draft on this device until it is sent;
 * a failed send keeps the text and offers a retry.
 */
export function ReplyBox({ ticketId, label }: { ticketId: string; label: string }) {
  const s = useStore();
  const { t, config } = s;
  const text = useSignal(s.loadReplyDraft(ticketId));
  const files = useSignal<File[]>([]);
  const error = useSignal('');
  const busy = useSignal(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const idem = useRef(s.uuid());
  async function send(e: Event) {
    e.preventDefault();
    if (busy.value) return;
    if (!text.value.trim()) {
      error.value = t.required;
      box.current?.focus();
      return;
    }
    busy.value = true;
    error.value = '';
    try {
      await s.sendReply(text.value, files.value, idem.current);
      text.value = '';
      files.value = [];
      idem.current = s.uuid();
    } catch (err) {
      error.value = s.describe(err);
    } finally {
      busy.value = false;
    }
  }
  return (
    <form onSubmit={send} noValidate>
      <div>
        <label for="tk-reply">
          {label}
          <RequiredMark />
        </label>
        <textarea
          ref={box}
          id="tk-reply"
          value={text.value}
          aria-required="true"
          aria-invalid={error.value === t.required ? 'true' : undefined}
          aria-describedby={error.value ? 'tk-reply-err' : undefined}
          onInput={(e) => {
            text.value = e.currentTarget.value;
            s.saveReplyDraft(ticketId, text.value);
          }}
        />
      </div>
      {config.modules.uploads && (
        <Attachments id="tk-reply-files" files={files.value} onChange={(f) => (files.value = f)} />
      )}
      {error.value && (
        <p class="err" id="tk-reply-err" role="alert">
          {error.value}
        </p>
      )}
      <div class="row">
        <button class="btn" type="submit" disabled={busy.value}>
          {busy.value ? t.sending : error.value && error.value !== t.required ? t.retry : t.reply}
        </button>
      </div>
    </form>
  );
}
