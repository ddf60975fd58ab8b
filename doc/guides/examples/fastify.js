'use strict';
// Per-request budgets in a Fastify 5 app on nodecure.
//
//   node --event-loop-timeout=200 fastify.js
//
// Every callback gets 200 ms by default. Try:
//   curl 'http://127.0.0.1:3000/search?sku=abc-123'     fast: 200
//   curl 'http://127.0.0.1:3000/search?sku=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'
//                                     runs for ever: 503 after 200 ms
//   curl 'http://127.0.0.1:3000/admin/export'  long, no budget: 200
//
// Needs `npm install fastify@5`. The smoke test of
// tools/nodecure/test.py runs it with the versions pinned in
// test/cure-smoke/frameworks.

// TimeoutError is also a global in nodecure.
const { TimeoutError, withEventLoopTimeout } = require('node:cure');
const { setTimeout: sleep } = require('node:timers/promises');

// Warnings and errors only: no log line for every request.
const fastify = require('fastify')({ logger: { level: 'warn' } });

// Before the routes: Fastify passes here what a handler throws and what an
// async handler's promise rejects with.
fastify.setErrorHandler((err, request, reply) => {
  // Rethrown, other errors go on to Fastify's default handler (a 500, or
  // their status, logged).
  if (!(err instanceof TimeoutError)) throw err;
  // Log the client and the code, not the input: it may be huge.
  request.log.warn(
    { ip: request.ip, code: err.code, route: request.routeOptions.url },
    'request timed out');
  reply.code(503).send({ error: 'timeout' });
});

const CATALOG = ['abc-123', 'abc-124', 'abd-200', 'xyz-9'];
// Letters and digits in groups joined by dashes. The nested quantifiers
// backtrack: 30 or more letters followed by one that does not fit ("!")
// keep the match running for minutes. This is the poisoned route.
const SKU = /^([a-z0-9]+-?)+$/i;

fastify.get('/search', async (request, reply) => {
  const sku = String(request.query.sku ?? '');
  if (!SKU.test(sku)) return reply.code(400).send({ error: 'bad sku' });
  return { sku, found: CATALOG.includes(sku) };
});

// Autocomplete runs on every keystroke and must be fast: it gets 50 ms, not
// the default 200, so an evil prefix costs the other clients less.
async function suggest(request, reply) {
  const prefix = String(request.query.sku ?? '');
  if (!SKU.test(prefix)) return reply.code(400).send({ error: 'bad sku' });
  return CATALOG.filter((sku) => sku.startsWith(prefix));
}
fastify.get('/suggest', withEventLoopTimeout(50, suggest));

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
async function exportOrders(request, reply) {
  const rows = Math.min(Number(request.query.rows) || 200_000, 1_000_000);
  const orders = await loadOrders(rows);
  // Send from here: what a handler returns is serialized after its promise
  // settles, in a callback that has the default budget again.
  return reply.type('text/csv').send(toCsv(orders));
}
// No budget (0) for each call, in every callback it leads to: after the
// await too. Keep such a route behind authentication (left out here).
fastify.get('/admin/export', withEventLoopTimeout(0, exportOrders));

fastify.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' })
  .then(() => {
    const { port } = fastify.server.address();
    console.log(`listening on http://127.0.0.1:${port}`);
  }, (err) => {
    console.error(err);
    process.exit(1);
  });
