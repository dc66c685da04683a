import { useStore, useStrings } from '../../state/context.js';
import { Choice, SettingsForm } from '../kit/controls.js';
import { useResource } from '../kit/useResource.js';
import './assignment.css';
import { assignmentStrings } from './strings.js';

/** `/admin` r=assignment and r=workflow: docs/api.md "Numbers, search and the team". */
interface Assignment {
  mode: 'off' | 'round_robin';
  agents: string[];
}
interface Workflow {
  reply_status: string | null;
}

const MODES = ['off', 'round_robin'] as const;
/** The select's value for "keep the status" (reply_status null): no status id has a colon. */
const KEEP = ':keep';

/** Who gets new tickets (round robin, off by default) and the status a reply sets: two resources, saved apart. */
export function AssignmentSettings() {
  const t = useStrings(assignmentStrings);
  const assignment = useResource<Assignment>('assignment');
  const workflow = useResource<Workflow>('workflow');
  return (
    <>
      <SettingsForm title={t.assignmentTitle} intro={t.assignmentIntro} resource={assignment}>
        {(a, set) => <AssignmentFields assignment={a} set={set} errors={assignment.errors} />}
      </SettingsForm>
      <SettingsForm
        title={t.workflowTitle}
        intro={t.workflowIntro}
        resource={workflow}
        headingId="workflow-title"
        saveLabel={t.saveWorkflow}
        sectionClass="settings-sub"
      >
        {(w, set) => <WorkflowFields workflow={w} set={set} errors={workflow.errors} />}
      </SettingsForm>
    </>
  );
}

function AssignmentFields(props: {
  assignment: Assignment;
  set: (v: Assignment) => void;
  errors: Record<string, string>;
}) {
  const s = useStore();
  const t = useStrings(assignmentStrings);
  const { assignment: a, set, errors } = props;
  // The active agents, those of the list first in its order, and any id the list holds that no agent has.
  const listed = a.agents.map((id) => ({ id, name: s.agents.value.find((x) => x.id === id)?.name ?? id }));
  const rest = s.agents.value.filter((x) => !a.agents.includes(x.id));
  const agentErrors = a.agents.map((_, i) => errors[`agents.${i}`]).filter(Boolean);
  const error = errors.agents ?? (agentErrors.length ? t.agentError : undefined);
  return (
    <>
      <Choice
        id="assignment-mode"
        label={t.mode}
        value={a.mode}
        error={errors.mode}
        options={MODES.map((m) => ({ value: m, label: t[`mode_${m}`] }))}
        onChange={(mode) => set({ ...a, mode })}
      />
      <fieldset
        class="assignment-agents"
        disabled={a.mode === 'off'}
        aria-describedby={['assignment-agents-hint', error ? 'assignment-agents-err' : ''].join(' ').trim()}
      >
        <legend>{t.agents}</legend>
        {[...listed, ...rest].map((x, i) => (
          <label class="check-row" key={x.id}>
            <input
              type="checkbox"
              checked={a.agents.includes(x.id)}
              aria-invalid={errors[`agents.${i}`] ? 'true' : undefined}
              onChange={(e) =>
                set({
                  ...a,
                  agents: e.currentTarget.checked ? [...a.agents, x.id] : a.agents.filter((id) => id !== x.id),
                })
              }
            />
            {x.name}
          </label>
        ))}
        <p class="hint" id="assignment-agents-hint">
          {a.mode === 'round_robin' && !a.agents.length ? t.noAgents : t.agentsHint}
        </p>
        {error && (
          <p class="err" id="assignment-agents-err">
            {error}
          </p>
        )}
      </fieldset>
    </>
  );
}

function WorkflowFields(props: { workflow: Workflow; set: (v: Workflow) => void; errors: Record<string, string> }) {
  const s = useStore();
  const t = useStrings(assignmentStrings);
  const { workflow: w, set, errors } = props;
  // Closed statuses are not offered: a reply would close every ticket it answers (the server refuses them).
  const open = (s.meta.value?.statuses ?? []).filter((x) => !x.closed);
  const current = w.reply_status;
  const options = [
    ...open.map((x) => ({ value: x.id, label: x.name })),
    ...(current !== null && !open.some((x) => x.id === current) ? [{ value: current, label: current }] : []),
    { value: KEEP, label: t.keepStatus },
  ];
  return (
    <Choice
      id="workflow-reply-status"
      label={t.replyStatus}
      value={current ?? KEEP}
      error={errors.reply_status}
      options={options}
      onChange={(v) => set({ ...w, reply_status: v === KEEP ? null : v })}
    />
  );
}
