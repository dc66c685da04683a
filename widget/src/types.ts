import type { Category, Priority } from '../../server/src/api-types.js';

export type {
  Attachment,
  Category,
  KbListItem,
  Meta,
  PublicTicket,
  Reply,
  Status,
} from '../../server/src/api-types.js';
export type { Priority };

/** What /widget-config answers (API.md). */
export interface WidgetConfig {
  design: {
    title: string;
    greeting: string;
    primary_color: string;
    position: 'bottom-right' | 'bottom-left';
    theme: 'auto' | 'light' | 'dark';
    launcher_label: string | null;
    logo_url: string | null;
    locale: string;
  };
  form: {
    require_category: boolean;
    show_page_url: boolean;
    privacy_notice: string | null;
    allow_attachments: boolean;
  };
  modules: { kb: boolean; uploads: boolean; rating: boolean; close_request: boolean };
  categories: Category[];
  turnstile: { enabled: boolean; site_key: string | null };
  business_hours: { open_now: boolean; next_open_at: string | null; timezone: string };
  public_key: string | null;
  api_version: string;
}

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
