import { routeFor } from '../http/route.js';
import { HoursNowInputSchema, HoursNowSchema } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import { openState } from './business-hours.js';

const route = routeFor<{ configStore: ConfigStore; clock: () => Date }>();

/**
 * "Open now?" for the business-hours editor: the same openState the widget's /widget-config and the
 * autoreply use, on the saved hours or on hours not yet saved, so the editor shows what a change does.
 */
const now = route({
  method: 'post',
  path: '/hours/now',
  access: 'staff',
  summary: 'Whether support is open now (or at `at`) and when it opens next',
  description:
    'By the saved business hours, or by `business_hours` given in the body (nothing is stored). Without ' +
    'any interval on any day support counts as always open.',
  body: { schema: HoursNowInputSchema, encodings: ['json'], optional: true },
  responses: { 200: { description: 'The open state', schema: HoursNowSchema } },
  async handler({ body }, deps) {
    const hours = body.business_hours ?? deps.configStore.get().business_hours;
    const at = body.at ? new Date(body.at) : deps.clock();
    return { body: { ...openState(hours, at), timezone: hours.timezone, at: at.toISOString() } };
  },
});

export const hoursRoutes = [now];
