import type { ComponentType } from 'preact';
import type { SettingsStrings } from './kit/strings.js';

type Group = 'widget' | 'workflow' | 'channels' | 'people';

export interface SectionDef {
  /** The path segment: /console/settings/<id>. */
  id: string;
  group: Group;
  /** Each screen is its own chunk, fetched when first opened. */
  load: () => Promise<ComponentType>;
}

/** Every settings screen, in the navigation's order; the label is `section_<id>` in strings.ts. */
export const SECTIONS: SectionDef[] = [
  { id: 'design', group: 'widget', load: () => import('./design/DesignSettings.js').then((m) => m.DesignSettings) },
  { id: 'form', group: 'widget', load: () => import('./form/FormSettings.js').then((m) => m.FormSettings) },
  { id: 'kb', group: 'widget', load: () => import('./kb/KbSettings.js').then((m) => m.KbSettings) },
  {
    id: 'statuses',
    group: 'workflow',
    load: () => import('./statuses/StatusSettings.js').then((m) => m.StatusSettings),
  },
  { id: 'macros', group: 'workflow', load: () => import('./macros/MacroSettings.js').then((m) => m.MacroSettings) },
  { id: 'rules', group: 'workflow', load: () => import('./rules/RuleSettings.js').then((m) => m.RuleSettings) },
  { id: 'sla', group: 'workflow', load: () => import('./sla/SlaSettings.js').then((m) => m.SlaSettings) },
  {
    id: 'assignment',
    group: 'workflow',
    load: () => import('./assignment/AssignmentSettings.js').then((m) => m.AssignmentSettings),
  },
  {
    id: 'automation',
    group: 'workflow',
    load: () => import('./automation/AutomationSettings.js').then((m) => m.AutomationSettings),
  },
  { id: 'mail', group: 'channels', load: () => import('./mail/MailSettings.js').then((m) => m.MailSettings) },
  {
    id: 'modules',
    group: 'channels',
    load: () => import('./modules/ModuleSettings.js').then((m) => m.ModuleSettings),
  },
  {
    id: 'antispam',
    group: 'channels',
    load: () => import('./antispam/AntispamSettings.js').then((m) => m.AntispamSettings),
  },
  { id: 'agents', group: 'people', load: () => import('./agents/AgentSettings.js').then((m) => m.AgentSettings) },
  { id: 'keys', group: 'people', load: () => import('./keys/KeySettings.js').then((m) => m.KeySettings) },
  {
    id: 'identity',
    group: 'people',
    load: () => import('./identity/IdentitySettings.js').then((m) => m.IdentitySettings),
  },
  { id: 'audit', group: 'people', load: () => import('./audit/AuditLog.js').then((m) => m.AuditLog) },
];

export const GROUPS: Group[] = ['widget', 'workflow', 'channels', 'people'];

export const sectionLabel = (t: SettingsStrings, id: string) => t[`section_${id}` as keyof SettingsStrings] ?? id;
