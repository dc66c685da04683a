import type { Action, Priority, Rule, RulesTestResult } from '@ticketing/server/model';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../api/client.js';
import type { ListItem } from '../../api/types.js';
import { useStore, useStrings } from '../../state/context.js';
import { actionLabel } from './ActionRows.js';
import { EVENTS, eventLabel } from './ruleEvents.js';
import { fmt, ruleStrings } from './strings.js';

/**
 * "Test against a ticket": the rules being edited (saved or not) tried on a stored ticket by the
 * server's own rule code (POST /rules/test), which changes nothing; the answer says which rules would
 * act, why the others would not, and the ticket as they would leave it.
 */
export function RuleTester({ rules }: { rules: Rule[] }) {
  const s = useStore();
  const t = useStrings(ruleStrings);
  const [recent, setRecent] = useState<ListItem[]>([]);
  const [ticketId, setTicketId] = useState('');
  const [event, setEvent] = useState<Rule['event']>('ticket.created');
  const [result, setResult] = useState<RulesTestResult | null>(null);
  const [error, setError] = useState<{ field: 'ticket' | 'form'; message: string } | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    s.api.list({ limit: 8 }).then(
      (l) => setRecent(l.data),
      () => setRecent([]),
    );
  }, []);

  async function run() {
    setBusy(true);
    setError(null);
    try {
      setResult(await s.api.rulesTest({ ticket_id: ticketId.trim(), event, rules }));
    } catch (e) {
      setResult(null);
      if (e instanceof ApiError && e.code === 'ticket_not_found')
        setError({ field: 'ticket', message: t.testTicketNotFound });
      else if (e instanceof ApiError && e.param === 'ticket_id') setError({ field: 'ticket', message: e.message });
      else setError({ field: 'form', message: e instanceof ApiError ? e.message : String(e) });
    } finally {
      setBusy(false);
    }
  }

  const value = (a: Action) =>
    a.type === 'assign'
      ? (s.agentName(a.value) ?? a.value)
      : a.type === 'set_status'
        ? s.statusName(a.value)
        : a.type === 'set_priority'
          ? (s.t.value[`prio_${a.value as Priority}`] ?? a.value)
          : a.value;
  const ticketErr = error?.field === 'ticket' ? error.message : null;

  return (
    <section class="rule-test" aria-labelledby="rule-test-title">
      <h2 id="rule-test-title">{t.testTitle}</h2>
      <p class="hint">{t.testIntro}</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run();
        }}
      >
        {recent.length > 0 && (
          <div class="field">
            <label for="rule-test-recent">{t.testRecent}</label>
            <select
              id="rule-test-recent"
              value={recent.some((x) => x.id === ticketId) ? ticketId : ''}
              onChange={(e) => setTicketId(e.currentTarget.value)}
            >
              <option value="">{t.testPick}</option>
              {recent.map((x) => (
                <option value={x.id}>{x.subject}</option>
              ))}
            </select>
          </div>
        )}
        <div class="field">
          <label for="rule-test-ticket">{t.testTicket}</label>
          <input
            id="rule-test-ticket"
            value={ticketId}
            spellcheck={false}
            autocomplete="off"
            placeholder="tkt_…"
            aria-invalid={ticketErr ? 'true' : undefined}
            aria-describedby={ticketErr ? 'rule-test-ticket-err' : undefined}
            onInput={(e) => setTicketId(e.currentTarget.value)}
          />
          {ticketErr && (
            <p class="err" id="rule-test-ticket-err">
              {ticketErr}
            </p>
          )}
        </div>
        <div class="field">
          <label for="rule-test-event">{t.testEvent}</label>
          <select id="rule-test-event" value={event} onChange={(e) => setEvent(e.currentTarget.value as Rule['event'])}>
            {EVENTS.map((x) => (
              <option value={x}>{eventLabel(t, x)}</option>
            ))}
          </select>
        </div>
        <button type="submit" class="btn primary" disabled={busy || !ticketId.trim()}>
          {busy ? t.testRunning : t.testRun}
        </button>
      </form>
      <div aria-live="polite">
        {error?.field === 'form' && <p class="err">{error.message}</p>}
        {result && <TestResult result={result} value={value} />}
      </div>
    </section>
  );
}

function TestResult({ result, value }: { result: RulesTestResult; value: (a: Action) => string }) {
  const s = useStore();
  const t = useStrings(ruleStrings);
  const reasons = { disabled: t.testSkipDisabled, other_event: t.testSkipEvent, conditions: t.testSkipConditions };
  const { before, after } = result;
  const changes: [string, string, string][] = [];
  if (before.status !== after.status)
    changes.push([t.field_status, s.statusName(before.status), s.statusName(after.status)]);
  const prio = (p: Priority) => s.t.value[`prio_${p}`];
  if (before.priority !== after.priority) changes.push([t.field_priority, prio(before.priority), prio(after.priority)]);
  if (before.agent_id !== after.agent_id)
    changes.push([t.testAgent, s.agentName(before.agent_id) ?? '–', s.agentName(after.agent_id) ?? '–']);
  if (before.tags.join() !== after.tags.join())
    changes.push([t.field_tags, before.tags.join(', ') || '–', after.tags.join(', ') || '–']);
  return (
    <div class="rule-result">
      {!result.rules.some((r) => r.fires) && <p class="banner">{t.testNone}</p>}
      <ol class="rule-checks">
        {result.rules.map((r) => (
          <li class={r.fires ? 'fires' : undefined}>
            <strong>{r.name}</strong>{' '}
            <span class={r.fires ? 'pill on' : 'pill'}>{r.fires ? t.testFires : reasons[r.reason!]}</span>
            {r.reason !== 'disabled' && r.reason !== 'other_event' && r.conditions.length > 0 && (
              <ul>
                {r.conditions.map((c) => (
                  <li>
                    {c.holds ? '✓' : '✗'} {t[`field_${c.field}`]} {t[`op_${c.op}`]} “{c.value}”:{' '}
                    {c.holds ? t.testHolds : `${t.testFails}, ${fmt(t.testActual, { v: c.actual })}`}
                  </li>
                ))}
              </ul>
            )}
            {r.fires && (
              <ul>
                {r.actions.map((a) => (
                  <li>
                    → {actionLabel(t, a.type)} {value(a)}
                    {!a.applies && <span class="err"> ({t.testNotApplied})</span>}
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
      <h3>{t.testAfter}</h3>
      {changes.length ? (
        <table class="rule-after">
          <tbody>
            {changes.map(([what, from, to]) => (
              <tr>
                <th scope="row">{what}</th>
                <td>
                  <del>{from}</del> → <ins>{to}</ins>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="hint">{t.testUnchanged}</p>
      )}
      {result.sends.length > 0 && (
        <p>
          {t.testSends} {result.sends.map((a) => `${actionLabel(t, a.type)} ${a.value}`).join('; ')}
        </p>
      )}
    </div>
  );
}
