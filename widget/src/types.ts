export type {
  Article,
  Attachment,
  Category,
  KbListItem,
  Meta,
  PublicTicket,
  WidgetConfig,
} from '@ticketing/server/model';
import type { WidgetConfig } from '@ticketing/server/model';

export type { Identity, Prefill, TicketingHandle, WidgetEvent, WidgetOptions } from './public-types.js';
import type { Identity, Prefill, WidgetEvent } from './public-types.js';

/** What the host hands the lazily loaded panel. */
export interface PanelContext {
  root: ShadowRoot;
  api: string;
  apiKey: string;
  config: WidgetConfig;
  locale: string;
  identity: Identity;
  prefill: Prefill;
  /** A link token from a customer mail (data-link): open its ticket first. */
  link?: string | undefined;
  emit(event: WidgetEvent, detail?: unknown): void;
  /** The panel asks the host to close (Escape, the close button). */
  requestClose(): void;
  /** The panel changed what this device remembers (a ticket filed, replies seen): the badge is recounted. */
  seen(): void;
}

export interface PanelHandle {
  show(): void;
  hide(): void;
  identify(identity: Identity): void;
  prefill(prefill: Prefill): void;
  /** Support replied: the open thread reloads now instead of at its next poll. */
  refresh(): void;
  destroy(): void;
}

export interface PanelModule {
  createPanel(ctx: PanelContext): PanelHandle;
  /** Starts loading the strings of a locale. */
  prefetch(locale: string): void;
}

/** What the host hands the unread watcher (watch.ts). */
export interface WatchContext {
  api: string;
  key: string;
  root: ShadowRoot;
  button: HTMLButtonElement;
  /** The launcher's accessible name without the count. */
  label: string;
  locale: string;
  /** The host's own object: a later identify() is seen at the next poll. */
  identity: Identity;
  emit(event: WidgetEvent, detail?: unknown): void;
  /** Support replied: the thread on screen, if the panel is open, reloads. */
  refresh(): void;
  /** The panel is open: it announces new replies itself. */
  isOpen(): boolean;
}

export interface Watcher {
  /** Counts again at once (a ticket filed, replies seen, another identity), then waits for news. */
  restart(): void;
  stop(): void;
}

export interface WatchModule {
  startWatch(ctx: WatchContext): Watcher;
}
