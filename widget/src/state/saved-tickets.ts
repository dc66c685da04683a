/** A ticket this browser created: enough to open it again (a public key needs the email). */
export interface SavedTicket {
  id: string;
  email: string;
  subject: string;
  created_at: string;
  /** Support's replies shown on this device: the launcher (host.ts) counts the rest as unread. */
  seen?: number;
}

const storageKey = (publicKey: string) => `ticketing:tickets:${publicKey}`;

// localStorage can be missing or throw (private modes, storage disabled): the widget still works,
// it just cannot remember tickets.
export function loadSaved(publicKey: string): SavedTicket[] {
  try {
    const list = JSON.parse(localStorage.getItem(storageKey(publicKey)) ?? '[]') as SavedTicket[];
    return Array.isArray(list) ? list.filter((t) => typeof t?.id === 'string' && typeof t.email === 'string') : [];
  } catch {
    return [];
  }
}

export function storeSaved(publicKey: string, list: SavedTicket[]) {
  try {
    if (list.length) localStorage.setItem(storageKey(publicKey), JSON.stringify(list.slice(0, 50)));
    else localStorage.removeItem(storageKey(publicKey));
  } catch {
    /* see loadSaved */
  }
}
