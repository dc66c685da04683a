/**
 * Where a person opens the support console: under `TICKETING_PUBLIC_URL` when it is set, else at the
 * listening address with a loopback or unspecified host written `localhost`. Browsers refuse passkeys
 * at an IP address (a relying party must be a domain), so `http://127.0.0.1:3000/console/` could never
 * add one, while `http://localhost:3000/console/` reaches the same server and can (issue 30).
 */
export function consoleAddress(listening: string, publicUrl?: string): string {
  if (publicUrl) return `${publicUrl.replace(/\/+$/, '')}/console/`;
  const url = new URL(listening);
  if (['127.0.0.1', '[::1]', '0.0.0.0', '[::]'].includes(url.hostname)) url.hostname = 'localhost';
  return `${url.origin}/console/`;
}
