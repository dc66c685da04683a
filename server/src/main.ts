#!/usr/bin/env node
// The only file with side effects: config -> deps -> createApp(deps) -> listen (see serve.ts, boot.ts).
import { serve } from './serve.js';

void serve();
