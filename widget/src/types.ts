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
  emit(event: WidgetEvent, detail?: unknown): void;
  /** The panel asks the host to close (Escape, the close button). */
  requestClose(): void;
}

export interface PanelHandle {
  show(): void;
  hide(): void;
  identify(identity: Identity): void;
  prefill(prefill: Prefill): void;
  destroy(): void;
}

export interface PanelModule {
  createPanel(ctx: PanelContext): PanelHandle;
  /** Starts loading the strings of a locale. */
  prefetch(locale: string): void;
}
