import type { Rule } from '@ticketing/server/model';
import type { RuleStrings } from './strings.js';

/** The events rules run on (docs/api.md "rules"), in the order the selects offer them. */
export const EVENTS = [
  'ticket.created',
  'ticket.replied',
  'ticket.status_changed',
] as const satisfies readonly Rule['event'][];

export const eventLabel = (t: RuleStrings, e: Rule['event']) =>
  e === 'ticket.created' ? t.event_created : e === 'ticket.replied' ? t.event_replied : t.event_status;
