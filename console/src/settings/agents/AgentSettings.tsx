import type { AgentView } from '@ticketing/server/model';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../api/client.js';
import { Modal } from '../../components/Modal.js';
import { fill } from '../../i18n/t.js';
import { useStore, useStrings } from '../../state/context.js';
import { Choice, ShownOnce, TextInput } from '../kit/controls.js';
import '../kit/entries.css';
import { agentStrings } from './strings.js';

type Role = AgentView['role'];
type Change = Partial<Pick<AgentView, 'role' | 'active'>> & {
  two_factor_secret?: null;
  passkeys?: [];
  one_time_password?: true;
};
interface Answer {
  agent: AgentView;
  password?: string;
}

/** `/admin r=agents`: the team, invitations with a one-time password, and each agent's access. */
export function AgentSettings() {
  const s = useStore();
  const t = useStrings(agentStrings);
  const [agents, setAgents] = useState<AgentView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [invite, setInvite] = useState({ name: '', email: '', role: 'agent' as Role });
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [shown, setShown] = useState<{ email: string; password: string } | null>(null);
  const [deleting, setDeleting] = useState<AgentView | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    s.api.adminGet<AgentView[]>('agents').then(setAgents, (e: unknown) => setError(s.describe(e)));
  }, []);

  const roles = [
    { value: 'agent' as Role, label: t.agent },
    { value: 'admin' as Role, label: t.admin },
  ];
  const replace = (a: AgentView) => setAgents((list) => list?.map((x) => (x.id === a.id ? a : x)) ?? [a]);

  /** Writes one agent whole with `change`; a refusal (the last admin: 409) shows above the table. */
  async function update(a: AgentView, change: Change) {
    setError(null);
    setBusy(true);
    try {
      const { id, name, email, role, active } = a;
      const res = await s.api.adminPost<Answer>('agents', { id, name, email, role, active, ...change });
      replace(res.agent);
      // Names and the assignee select follow /team: give them the change.
      void s.loadCatalog();
      if (res.password) setShown({ email: res.agent.email, password: res.password });
      else s.toasts.show({ text: fill(t.changed, { name: a.name }) });
    } catch (e) {
      setError(s.describe(e));
      // Draw the row again from what is stored, so a refused role change does not stay in the select.
      setAgents((list) => list && [...list]);
    } finally {
      setBusy(false);
    }
  }

  async function sendInvite(e: Event) {
    e.preventDefault();
    setFieldErrors({});
    setError(null);
    setBusy(true);
    try {
      const res = await s.api.adminPost<Answer>('agents', { ...invite, one_time_password: true });
      setAgents((list) => [...(list ?? []), res.agent]);
      void s.loadCatalog();
      setShown({ email: res.agent.email, password: res.password ?? '' });
      setInvite({ name: '', email: '', role: 'agent' });
    } catch (err) {
      if (err instanceof ApiError && err.details.length)
        setFieldErrors(Object.fromEntries(err.details.map((d) => [d.param, d.message])));
      else setError(s.describe(err));
    } finally {
      setBusy(false);
    }
  }

  async function remove(a: AgentView) {
    setBusy(true);
    try {
      await s.api.adminDelete('agents', a.id);
      setAgents((list) => list?.filter((x) => x.id !== a.id) ?? null);
      void s.loadCatalog();
      s.toasts.show({ text: fill(t.deleted, { name: a.name }) });
    } catch (err) {
      setError(s.describe(err));
    } finally {
      setBusy(false);
      setDeleting(null);
    }
  }

  const me = s.me.value?.id;
  return (
    <section class="settings-page" aria-labelledby="settings-title">
      <h1 id="settings-title">{t.title}</h1>
      <p class="intro">{t.intro}</p>
      {error && (
        <p class="err banner" role="alert">
          {error}
        </p>
      )}
      {shown && (
        <ShownOnce
          title={fill(t.passwordFor, { email: shown.email })}
          value={shown.password}
          hint={t.passwordOnce}
          doneLabel={t.done}
          onDone={() => setShown(null)}
        />
      )}
      {agents && (
        <div class="entries-scroll">
          <table class="entries">
            <thead>
              <tr>
                <th scope="col">{t.name}</th>
                <th scope="col">{t.role}</th>
                <th scope="col">{t.status}</th>
                <th scope="col">{t.twoFactor}</th>
                <th scope="col">{t.passkeys}</th>
                <th scope="col">{t.actions}</th>
              </tr>
            </thead>
            <tbody>
              {agents.map((a) => (
                <tr key={a.id}>
                  <th scope="row">
                    {a.name} {a.id === me && <span class="muted">{t.you}</span>}
                    <div class="muted">{a.email}</div>
                  </th>
                  <td>
                    <select
                      aria-label={fill(t.roleOf, { name: a.name })}
                      value={a.role}
                      disabled={busy}
                      onChange={(e) => void update(a, { role: e.currentTarget.value as Role })}
                    >
                      {roles.map((r) => (
                        <option value={r.value}>{r.label}</option>
                      ))}
                    </select>
                  </td>
                  <td>
                    <span class={a.active ? 'badge ok' : 'badge'}>{a.active ? t.active : t.inactive}</span>
                    {a.must_change_password && <span class="badge">{t.mustChange}</span>}
                  </td>
                  <td data-label={t.twoFactor}>{a.two_factor_enabled ? t.on : t.off}</td>
                  <td data-label={t.passkeys}>{a.passkey_count}</td>
                  <td>
                    <div class="entry-tools">
                      <button
                        type="button"
                        class="btn small"
                        disabled={busy}
                        aria-label={`${a.active ? t.deactivate : t.reactivate}: ${a.name}`}
                        onClick={() => void update(a, { active: !a.active })}
                      >
                        {a.active ? t.deactivate : t.reactivate}
                      </button>
                      {a.two_factor_enabled && (
                        <button
                          type="button"
                          class="btn small"
                          disabled={busy}
                          aria-label={`${t.reset2fa}: ${a.name}`}
                          onClick={() => void update(a, { two_factor_secret: null })}
                        >
                          {t.reset2fa}
                        </button>
                      )}
                      {a.passkey_count > 0 && (
                        <button
                          type="button"
                          class="btn small"
                          disabled={busy}
                          aria-label={`${t.resetPasskeys}: ${a.name}`}
                          onClick={() => void update(a, { passkeys: [] })}
                        >
                          {t.resetPasskeys}
                        </button>
                      )}
                      <button
                        type="button"
                        class="btn small"
                        disabled={busy}
                        aria-label={`${t.newPassword}: ${a.name}`}
                        onClick={() => void update(a, { one_time_password: true })}
                      >
                        {t.newPassword}
                      </button>
                      <button
                        type="button"
                        class="btn small danger"
                        disabled={busy}
                        aria-label={`${t.delete}: ${a.name}`}
                        onClick={() => setDeleting(a)}
                      >
                        {t.delete}
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <form class="settings-form stack entry-new" noValidate onSubmit={sendInvite}>
        <h2>{t.invite}</h2>
        <p class="hint">{t.inviteHint}</p>
        <TextInput
          id="invite-name"
          label={t.name}
          value={invite.name}
          error={fieldErrors.name}
          onChange={(name) => setInvite({ ...invite, name })}
        />
        <TextInput
          id="invite-email"
          type="email"
          label={t.email}
          value={invite.email}
          error={fieldErrors.email}
          onChange={(email) => setInvite({ ...invite, email })}
        />
        <Choice
          id="invite-role"
          label={t.role}
          value={invite.role}
          options={roles}
          error={fieldErrors.role}
          onChange={(role) => setInvite({ ...invite, role })}
        />
        <div>
          <button type="submit" class="btn primary" disabled={busy}>
            {t.inviteButton}
          </button>
        </div>
      </form>

      {deleting && (
        <Modal title={fill(t.deleteTitle, { name: deleting.name })} onClose={() => setDeleting(null)}>
          <p>{t.deleteText}</p>
          <div class="actions">
            <button type="button" class="btn danger" disabled={busy} onClick={() => void remove(deleting)}>
              {t.delete}
            </button>
            <button type="button" class="btn ghost" onClick={() => setDeleting(null)}>
              {t.cancel}
            </button>
          </div>
        </Modal>
      )}
    </section>
  );
}
