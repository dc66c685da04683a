import type { ErrorDetail } from '../http/errors.js';
import { PRIORITIES, type Action, type ConfigData } from '../model/index.js';
import { isLocalUrl } from '../webhooks/addresses.js';

export interface ReferenceOptions {
  /** TICKETING_WEBHOOKS_ALLOW_LOCAL: webhook URLs may name local addresses. */
  allowLocalWebhooks: boolean;
}

const LOCAL_WEBHOOK =
  'points at a loopback, private or link-local address, which webhooks may not call ' +
  '(the operator allows it with TICKETING_WEBHOOKS_ALLOW_LOCAL=on)';

function checkActions(actions: Action[], data: ConfigData, at: string, out: ErrorDetail[], opts: ReferenceOptions) {
  actions.forEach((a, i) => {
    const param = `${at}.actions.${i}.value`;
    if (a.type === 'set_status' && !data.statuses.some((s) => s.id === a.value))
      out.push({ param, message: `"${a.value}" is not a configured status` });
    if (a.type === 'set_priority' && !(PRIORITIES as readonly string[]).includes(a.value))
      out.push({ param, message: `must be one of ${PRIORITIES.join(', ')}` });
    if (a.type === 'assign' && !data.agents.some((g) => g.id === a.value))
      out.push({ param, message: `"${a.value}" is not a known agent` });
    if (a.type === 'notify' && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(a.value))
      out.push({ param, message: 'must be an email address' });
    if (a.type === 'webhook' && !/^https?:\/\/\S+$/.test(a.value))
      out.push({ param, message: 'must be an http or https URL' });
    else if (a.type === 'webhook' && !opts.allowLocalWebhooks && isLocalUrl(a.value))
      out.push({ param, message: LOCAL_WEBHOOK });
    if (a.type === 'add_tag' && !(a.value.trim().length > 0 && a.value.length <= 50))
      out.push({ param, message: 'must be a tag name of 1-50 characters' });
  });
}

/**
 * Checks that what a resource refers to exists in the configuration it is about to join: a macro's
 * status, an autoclose status, a rule's target status or agent; and that no webhook URL names a local
 * address where that can be known without DNS. Run on the whole next configuration.
 */
export function checkReferences(resource: string, data: ConfigData, opts: ReferenceOptions): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const statusIds = new Set(data.statuses.map((s) => s.id));
  if (resource === 'macros') {
    data.macros.forEach((m, i) => {
      if (m.status && !statusIds.has(m.status))
        out.push({ param: `macros.${i}.status`, message: `"${m.status}" is not a configured status` });
    });
  }
  if (resource === 'autoclose') {
    data.autoclose.statuses.forEach((s, i) => {
      if (!statusIds.has(s)) out.push({ param: `statuses.${i}`, message: `"${s}" is not a configured status` });
    });
  }
  // A support reply moves the ticket there: a closed status would close every ticket answered.
  const replyStatus = data.workflow.reply_status;
  if (resource === 'workflow' && replyStatus !== null) {
    const found = data.statuses.find((s) => s.id === replyStatus);
    if (!found) out.push({ param: 'reply_status', message: `"${replyStatus}" is not a configured status` });
    else if (found.closed) out.push({ param: 'reply_status', message: `"${replyStatus}" is a closed status` });
  }
  if (resource === 'assignment') {
    const agentIds = new Set(data.agents.map((a) => a.id));
    data.assignment.agents.forEach((id, i) => {
      if (!agentIds.has(id)) out.push({ param: `agents.${i}`, message: `"${id}" is not an agent` });
      else if (data.assignment.agents.indexOf(id) !== i)
        out.push({ param: `agents.${i}`, message: `"${id}" is in the list twice` });
    });
  }
  if (resource === 'rules') data.rules.forEach((r, i) => checkActions(r.actions, data, `rules.${i}`, out, opts));
  if (resource === 'escalation')
    data.escalation.forEach((e, i) => checkActions(e.actions, data, `escalation.${i}`, out, opts));
  if (resource === 'modules' && !opts.allowLocalWebhooks) {
    data.modules.forEach((m, i) => {
      if (m.name === 'webhooks' && m.settings && isLocalUrl(m.settings.url))
        out.push({ param: `modules.${i}.settings.url`, message: LOCAL_WEBHOOK });
    });
  }
  return out;
}

/** Where the configuration itself still uses a status (so dropping it would leave a dangling id). */
export function statusUsesInConfig(data: ConfigData, id: string): string[] {
  const uses: string[] = [];
  if (data.macros.some((m) => m.status === id)) uses.push('macros');
  if (data.autoclose.statuses.includes(id)) uses.push('autoclose');
  const inActions = (list: { actions: Action[] }[]) =>
    list.some((x) => x.actions.some((a) => a.type === 'set_status' && a.value === id));
  if (inActions(data.rules)) uses.push('rules');
  if (inActions(data.escalation)) uses.push('escalation');
  return uses;
}
