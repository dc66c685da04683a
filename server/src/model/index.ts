// The domain model: the zod schemas of what crosses the wire and of the configuration, with their
// types. Nothing here imports from another folder of the server; the widget imports the types
// (`import type … from '@ticketing/server/model'`), so the wire has one source of truth.
export * from './agents.js';
export * from './automation.js';
export * from './common.js';
export * from './connection-failure.js';
export * from './config.js';
export * from './customers.js';
export * from './email-address.js';
export * from './errors.js';
export * from './identity.js';
export * from './ids.js';
export * from './kb.js';
export * from './keys.js';
export * from './mail.js';
export * from './portal.js';
export * from './team.js';
export * from './tickets.js';
export * from './webhook-secrets.js';
export * from './actor.js';
export * from './logs.js';
export * from './sessions.js';
export * from './reports.js';
