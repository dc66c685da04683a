// Baseline 2, the framework floor: Koa + @koa/router serving the same ticket objects Ticketing answers
// GET /ticket with, behind a bearer check (a secret key sees any ticket; a public key needs the
// ticket's email), serialised by Koa on every request as any Koa app does. What Ticketing's stack
// costs before Ticketing adds anything.
import { readFileSync } from 'node:fs';
import Router from '@koa/router';
import Koa from 'koa';

const views = JSON.parse(readFileSync(process.env.VIEWS, 'utf8'));
const [pk, sk] = process.env.KEYS.split(',');
const tickets = { sk: new Map(Object.entries(views.sk)), pk: new Map(Object.entries(views.pk)) };

const app = new Koa();
const router = new Router();
app.use(async (ctx, next) => {
  const auth = ctx.get('Authorization');
  if (auth === `Bearer ${sk}`) ctx.state.mode = 'sk';
  else if (auth === `Bearer ${pk}`) ctx.state.mode = 'pk';
  else ctx.throw(401);
  await next();
});
router.get('/v1/ticket', (ctx) => {
  const ticket = tickets[ctx.state.mode].get(String(ctx.query.id));
  if (!ticket || (ctx.state.mode === 'pk' && ctx.query.email !== ticket.email)) ctx.throw(404);
  ctx.body = ticket;
});
app.use(router.routes());
// A clean exit on SIGTERM, so a profile (--cpu-prof) is written.
process.on('SIGTERM', () => process.exit(0));
app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
