import { runActions, type AutomationDeps } from '../automation/actions.js';
import { withActivity } from '../tickets/activity.js';
import { derive } from '../tickets/sla.js';
import type { TicketEvents } from '../events/events.js';
import { SYSTEM } from '../model/index.js';
import type { KeyMode, StoredTicket } from '../store/ticket-store.js';
import type { UnitOfWork } from '../store/unit-of-work.js';
import { setStatus } from '../tickets/statuses.js';
import { firstClosedStatus, isClosedStatus } from '../tickets/statuses.js';
import type { LiveEvents } from '../live/live-events.js';
import type { Leadership } from './leadership.js';
import type { LogRetention } from '../retention/log-retention.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** What the scheduler needs (the app's Deps provides it). */
export interface SchedulerDeps extends AutomationDeps {
  leadership: Leadership;
  unit: UnitOfWork;
  events: TicketEvents;
  /** Escalations raise no ticket event; the console's stream hears of them here. */
  live: Pick<LiveEvents, 'changed'>;
  retention: Pick<LogRetention, 'prune'>;
}

/**
 * The in-process timer behind time-based settings. Each tick fires due escalations, closes idle
 * tickets (autoclose) and sends due mail and webhook retries. Time comes from deps.clock, so tests move
 * the clock and call tick() instead of waiting.
 *
 * With several instances on one database, escalation and autoclose run on the leader only
 * (deps.leadership: an advisory lock, taken over by another instance when the leader dies); each
 * ticket's change is one unit of work, and an escalation is marked fired in the same write that
 * fires it, checked under the ticket's lock, so it fires once. Every instance sends due deliveries.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;

  constructor(private readonly deps: SchedulerDeps) {}

  start(everyMs: number) {
    if (everyMs <= 0) return;
    this.timer = setInterval(
      () => void this.tick().catch((err: unknown) => this.deps.logger.error({ err }, 'scheduler tick failed')),
      everyMs,
    );
    this.timer.unref();
  }

  stop() {
    clearInterval(this.timer);
  }

  /** One pass; a tick while one runs waits for it instead of starting another. */
  tick(): Promise<void> {
    this.ticking ??= (async () => {
      if (await this.deps.leadership.lead()) {
        for (const mode of ['live', 'test'] as const) {
          await this.escalate(mode);
          await this.autoclose(mode);
        }
        await this.deps.leadership.housekeeping();
        await this.deps.retention.prune();
      }
      await this.deps.outbox.process();
    })().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  /** Waits for a tick in progress (a clean stop). */
  async idle() {
    await this.ticking?.catch(() => {});
  }

  /** Each entry fires once per ticket, when its condition still holds `after_minutes` after creation. */
  private async escalate(mode: KeyMode) {
    const config = this.deps.configStore.get();
    if (!config.escalation.length) return;
    const now = this.deps.clock().getTime();
    const due: { id: string; entry: (typeof config.escalation)[number] }[] = [];
    for await (const t of this.deps.tickets[mode].scan()) {
      if (isClosedStatus(config.statuses, t.item.status)) continue;
      for (const entry of config.escalation) {
        if (t.escalated.includes(entry.id)) continue;
        if (Date.parse(t.item.created_at) + entry.after_minutes * MINUTE > now) continue;
        if (entry.when === 'no_first_response' && t.firstResponseAt !== null) continue;
        due.push({ id: t.item.id, entry });
      }
    }
    for (const { id, entry } of due) {
      const mark = (t: StoredTicket) => ({ ...t, escalated: [...(t.escalated ?? []), entry.id] });
      const fired = (t: StoredTicket) => (t.escalated ?? []).includes(entry.id);
      await this.deps.unit(async () => {
        const changed = await runActions(
          this.deps,
          mode,
          id,
          entry.actions,
          { kind: 'escalation', id: entry.id },
          'ticket.status_changed',
          mark,
          fired,
        );
        // No ticket event is raised for an escalation; the console hears of it all the same.
        if (changed) await this.deps.live.changed(mode, changed, SYSTEM);
      });
    }
  }

  /** Tickets in the configured statuses with no word from the customer for `after_days` are closed. */
  private async autoclose(mode: KeyMode) {
    const config = this.deps.configStore.get();
    const { autoclose } = config;
    if (!autoclose.enabled || !autoclose.statuses.length) return;
    const cutoff = this.deps.clock().getTime() - autoclose.after_days * DAY;
    const idle: string[] = [];
    for await (const t of this.deps.tickets[mode].scan()) {
      if (autoclose.statuses.includes(t.item.status) && Date.parse(t.lastCustomerAt) <= cutoff) idle.push(t.item.id);
    }
    for (const id of idle) await this.deps.unit(() => this.close(mode, id, cutoff));
  }

  /** Closes one idle ticket, its event's deliveries and audit entry with it. */
  private async close(mode: KeyMode, id: string, cutoff: number) {
    let previous: StoredTicket | undefined;
    const updated = await this.deps.tickets[mode].update(id, (current) => {
      previous = current;
      // Checked again under the ticket's lock: the customer may have written in the meantime.
      const fresh = this.deps.configStore.get();
      const last = current.replies.filter((r) => r.from_customer).at(-1)?.created_at ?? current.created_at;
      if (!fresh.autoclose.statuses.includes(current.status) || Date.parse(last) > cutoff) return { ticket: current };
      const at = this.deps.clock().toISOString();
      const closed = setStatus(current, firstClosedStatus(fresh.statuses), fresh.statuses, at);
      return { ticket: derive(withActivity(current, closed, SYSTEM, at), fresh) };
    });
    if (!updated || updated.status === previous?.status) return;
    await this.deps.events.emit({
      type: 'ticket.status_changed',
      mode,
      actor: SYSTEM,
      ticket: updated,
      previous,
    });
  }
}
