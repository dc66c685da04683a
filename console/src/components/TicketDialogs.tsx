import { useSignal } from '@preact/signals';
import { useLocation } from 'preact-iso/router';
import type { ConsoleTicket } from '../api/types.js';
import { fill } from '../i18n/t.js';
import { useStore } from '../state/context.js';
import { Modal } from './Modal.js';

/** Merge into another ticket of the same customer (docs/api.md, /merge). */
export function MergeDialog({ ticket, onClose }: { ticket: ConsoleTicket; onClose: () => void }) {
  const s = useStore();
  const t = s.t.value;
  const { route, query } = useLocation();
  const candidates = s.ticket.others.value;
  const into = useSignal(candidates[0]?.id ?? '');
  const error = useSignal('');
  const busy = useSignal(false);

  async function merge(e: Event) {
    e.preventDefault();
    if (!into.value) return;
    busy.value = true;
    try {
      const merged = await s.api.merge(ticket.id, into.value);
      s.toasts.show({ text: fill(t.mergeDone, { id: merged.id }) });
      s.inbox.refreshSoon(0);
      onClose();
      route(`/console/tickets/${merged.id}${new URLSearchParams(query).size ? `?${new URLSearchParams(query)}` : ''}`);
    } catch (err) {
      error.value = s.describe(err);
    } finally {
      busy.value = false;
    }
  }

  return (
    <Modal title={t.mergeTitle} onClose={onClose}>
      <form onSubmit={merge} class="stack" noValidate>
        <p>{t.mergeHint}</p>
        {candidates.length ? (
          <div class="field">
            <label for="merge-into">{t.mergeInto}</label>
            <select
              id="merge-into"
              value={into.value}
              aria-describedby={error.value ? 'merge-err' : undefined}
              onChange={(e) => (into.value = e.currentTarget.value)}
            >
              {candidates.map((c) => (
                <option value={c.id}>
                  {c.subject} ({c.id})
                </option>
              ))}
            </select>
          </div>
        ) : (
          <p class="muted">{t.mergeNone}</p>
        )}
        {error.value && (
          <p class="err" id="merge-err" role="alert">
            {error.value}
          </p>
        )}
        <div class="actions">
          <button type="button" class="btn ghost" onClick={onClose}>
            {t.cancel}
          </button>
          <button type="submit" class="btn primary" disabled={busy.value || !candidates.length}>
            {t.merge}
          </button>
        </div>
      </form>
    </Modal>
  );
}

/** Mark as spam, offering to block the address or its whole domain (docs/api.md, /spam). */
export function SpamDialog({ ticket, onClose }: { ticket: ConsoleTicket; onClose: () => void }) {
  const s = useStore();
  const t = s.t.value;
  const block = useSignal<'' | 'email' | 'domain'>('');
  const error = useSignal('');
  const busy = useSignal(false);
  const domain = ticket.email.split('@')[1] ?? '';

  async function spam(e: Event) {
    e.preventDefault();
    busy.value = true;
    try {
      const next = await s.api.spam(ticket.id, block.value || undefined);
      void s.ticket.change(async () => next);
      s.toasts.show({ text: t.spamDone });
      onClose();
    } catch (err) {
      error.value = s.describe(err);
    } finally {
      busy.value = false;
    }
  }
  const options: ['' | 'email' | 'domain', string][] = [
    ['', t.spamBlockNone],
    ['email', fill(t.spamBlockEmail, { email: ticket.email })],
    ['domain', fill(t.spamBlockDomain, { domain })],
  ];

  return (
    <Modal title={t.spamTitle} onClose={onClose}>
      <form onSubmit={spam} class="stack" noValidate>
        <p>{t.spamHint}</p>
        <fieldset class="choices">
          <legend class="sr">{t.spamTitle}</legend>
          {options.map(([value, label]) => (
            <label key={value}>
              <input
                type="radio"
                name="spam-block"
                value={value}
                checked={block.value === value}
                onChange={() => (block.value = value)}
              />
              {label}
            </label>
          ))}
        </fieldset>
        {error.value && (
          <p class="err" role="alert">
            {error.value}
          </p>
        )}
        <div class="actions">
          <button type="button" class="btn ghost" onClick={onClose}>
            {t.cancel}
          </button>
          <button type="submit" class="btn danger" disabled={busy.value}>
            {t.spam}
          </button>
        </div>
      </form>
    </Modal>
  );
}
