// The types a page or a bundler sees: the options of mount() and the handle it returns.

export interface Identity {
  name?: string;
  email?: string;
  /**
   * Hex HMAC-SHA256 of `email` under the portal's identity secret, computed on the site's server: the
   * customer then sees all their tickets on any device. Without it (or when wrong) they are anonymous.
   */
  signature?: string;
}

export interface Prefill {
  subject?: string;
  message?: string;
  category?: string;
  fields?: Record<string, string>;
}

/** `reply`: support replied while the page was open; the detail is `{ unread }`, the new unread total. */
export type WidgetEvent = 'ready' | 'open' | 'close' | 'ticket:created' | 'reply:sent' | 'rated' | 'error' | 'reply';

export interface WidgetOptions {
  /** The public key (pk_live_… or pk_test_…). */
  key: string;
  /** The API base, e.g. https://support.example.com/v1. */
  api: string;
  open?: boolean;
  locale?: string;
  position?: 'bottom-right' | 'bottom-left';
  /** A link token from a customer mail: the panel opens on its ticket (the server's /t/ page sets it). */
  link?: string;
  /** Where the widget's host element goes; document.body by default. */
  container?: HTMLElement;
  /**
   * Overrides fields of the portal's design on this page only (the console's settings preview shows
   * an unsaved design this way). Script tag: `data-design` with the same object as JSON.
   */
  design?: Partial<WidgetDesign>;
}

/** The portal's widget design as /widget-config sends it (docs/api.md, /admin `design`). */
export interface WidgetDesign {
  title: string;
  greeting: string;
  primary_color: string;
  position: 'bottom-right' | 'bottom-left';
  theme: 'auto' | 'light' | 'dark';
  launcher_label: string | null;
  logo_url: string | null;
  locale: string;
}

/** What `window.Ticketing` and `mount()` give the page. */
export interface TicketingHandle {
  open(): void;
  close(): void;
  toggle(): void;
  identify(identity: Identity): void;
  prefill(prefill: Prefill): void;
  on(event: WidgetEvent, handler: (detail?: unknown) => void): () => void;
  destroy(): void;
}
