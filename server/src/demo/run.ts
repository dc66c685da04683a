#!/usr/bin/env node
// `pnpm demo`: the server in demo mode on ./demo-data (seeded on first run, reused after), with the
// demo shop at / and the keys printed. Every TICKETING_* variable still applies.
import { serve } from '../serve.js';
import { demoMode } from './mode.js';

process.env.TICKETING_DATA_DIR ??= './demo-data';
process.env.TICKETING_LOG_LEVEL ??= 'warn'; // a person trying it reads the keys, not request logs
void serve({ extension: demoMode });
