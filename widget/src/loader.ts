import { readOptions } from './options.js';

// Placeholder loader until the widget issue lands: it validates the snippet and says so in the console.
const script = document.currentScript as HTMLScriptElement | null;
if (script) {
  const options = readOptions(script);
  if ('error' in options) console.error(`[ticketing] ${options.error}`);
}
