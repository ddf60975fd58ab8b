'use strict';
// Per-request budgets in a Koa app on nodecure.
//
//   node --event-loop-timeout=200 koa.js
//
// Every callback gets 200 ms by default. Try:
//   curl 'http://127.0.0.1:3000/search?sku=abc-123'     fast: 200
//   curl 'http://127.0.0.1:3000/search?sku=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'
//                                     runs for ever: 503 after 200 ms
//   curl 'http://127.0.0.1:3000/admin/export'  long, no budget: 200
//
// Needs `npm install koa@3 @koa/router`. The smoke test of
// tools/nodecure/test.py runs it with the versions pinned in
// test/cure-smoke/frameworks.
const Koa = require('koa');
const Router = require('@koa/router');
// TimeoutError is also a global in nodecure.
const { TimeoutError, withEventLoopTimeout } = require('node:cure');
const { setTimeout: sleep } = require('node:timers/promises');

const app = new Koa();
const router = new Router();

// The first middleware: what the others throw, or their promises reject
// with, comes out of `await next()` here.
app.use(async (ctx, next) => {
  try {
    await next();
  } catch (err) {
    // Rethrown, other errors keep Koa's default handling (a 500, or their
    // status; logged by app.onerror).
    if (!(err instanceof TimeoutError)) throw err;
    // Log the client and the code, not the input: it may be huge.
    console.warn(`${err.code} ${ctx.method} ${ctx.path} from ${ctx.ip}`);
    ctx.status = 503;
    ctx.body = { error: 'timeout' };
  }
});

const CATALOG = ['abc-123', 'abc-124', 'abd-200', 'xyz-9'];
// Letters and digits in groups joined by dashes. The nested quantifiers
// backtrack: 30 or more letters followed by one that does not fit ("!")
// keep the match running for minutes. This is the poisoned route.
const SKU = /^([a-z0-9]+-?)+$/i;

router.get('/search', async (ctx) => {
  const sku = String(ctx.query.sku ?? '');
  if (!SKU.test(sku)) ctx.throw(400, 'bad sku');
  ctx.body = { sku, found: CATALOG.includes(sku) };
});

// Autocomplete runs on every keystroke and must be fast: it gets 50 ms, not
// the default 200, so an evil prefix costs the other clients less.
async function suggest(ctx) {
  const prefix = String(ctx.query.sku ?? '');
  if (!SKU.test(prefix)) ctx.throw(400, 'bad sku');
  ctx.body = CATALOG.filter((sku) => sku.startsWith(prefix));
}
router.get('/suggest', withEventLoopTimeout(50, suggest));

// Stands in for a database query: the rows arrive in a later callback.
async function loadOrders(count) {
  await sleep(10);
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    placed: new Date(1.7e12 + i * 60_000),
    total: ((i * 7919) % 100_000) / 100,
  }));
}

function toCsv(orders) {
  const lines = orders.map((o) =>
    `${o.id},${o.placed.toISOString()},${o.total.toFixed(2)}`);
  return `id,placed,total\n${lines.join('\n')}\n`;
}

// An administrator's export: legitimately long (toCsv() takes about half a
// second for 200,000 orders), and rare.
async function exportOrders(ctx) {
  const rows = Math.min(Number(ctx.query.rows) || 200_000, 1_000_000);
  const orders = await loadOrders(rows);
  ctx.type = 'text/csv';
  // A string, built here: Koa sends the body once the middleware have
  // returned, in a callback that has the default budget again, and would
  // JSON.stringify() an object there.
  ctx.body = toCsv(orders);
}
// No budget (0) for each call, in every callback it leads to: after the
// await too. Keep such a route behind authentication (left out here).
router.get('/admin/export', withEventLoopTimeout(0, exportOrders));

app.use(router.routes()).use(router.allowedMethods());

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
