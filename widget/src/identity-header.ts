import type { Identity } from './public-types.js';

/**
 * The X-Ticketing-Identity value for a signed identity (docs/api.md, "Verified customers"), or '' when
 * the page gave no signature: then the customer is anonymous.
 */
export const identityHeader = (i: Identity) =>
  i.signature && i.email ? `${i.signature}.${encodeURIComponent(i.email)}` : '';
