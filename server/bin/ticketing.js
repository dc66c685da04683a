#!/usr/bin/env node
// The `ticketing` command. A committed file rather than dist/cli.js itself, so pnpm can link the bin
// of @ticketing/server into the other workspace packages at install time, before anything is built.
import '../dist/cli.js';
