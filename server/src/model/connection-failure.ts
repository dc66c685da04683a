/**
 * What an admin is told of an outgoing connection that failed (a webhook delivery, a test mail): a
 * few fixed words. A raw socket error (`connect ECONNREFUSED 10.0.0.5:6379`, a reset, a banner) would
 * let whoever sets the destination map the network the server is in, port by port.
 */
export const COULD_NOT_CONNECT = 'could not connect';

/** The destination took longer than `seconds` to answer. */
export const timedOut = (seconds: number) => `timeout after ${seconds} s`;
