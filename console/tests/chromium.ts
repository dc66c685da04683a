/** Debian's Chromium (or CHROMIUM_PATH), as the browser tests and the benchmark launch it. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// Headless, as root, on a machine without outside network: no sandbox, no background traffic.
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
