'use strict';
// Per-request budgets in an Express 5 app on nodecure.
//
//   node --event-loop-timeout=200 express.js
//
// Every callback gets 200 ms by default. Try:
//   curl 'http://127.0.0.1:3000/search?sku=abc-123'     fast: 200
//   curl 'http://127.0.0.1:3000/search?sku=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'
//                                     runs for ever: 503 after 200 ms
//   curl 'http://127.0.0.1:3000/admin/export'  long, no budget: 200
//
// Needs `npm install express@5`. The smoke test of
// tools/nodecure/test.py runs it with the versions pinned in
// test/cure-smoke/frameworks.
const express = require('express');
// TimeoutError is also a global in nodecure.
const { TimeoutError, withEventLoopTimeout } = require('node:cure');
const { setTimeout: sleep } = require('node:timers/promises');

const app = express();

const CATALOG = ['abc-123', 'abc-124', 'abd-200', 'xyz-9'];
// Letters and digits in groups joined by dashes. The nested quantifiers
// backtrack: 30 or more letters followed by one that does not fit ("!")
// keep the match running for minutes. This is the poisoned route.
const SKU = /^([a-z0-9]+-?)+$/i;

app.get('/search', (req, res) => {
  const sku = String(req.query.sku ?? '');
  if (!SKU.test(sku)) return res.status(400).json({ error: 'bad sku' });
  res.json({ sku, found: CATALOG.includes(sku) });
});

// Autocomplete runs on every keystroke and must be fast: it gets 50 ms, not
// the default 200, so an evil prefix costs the other clients less.
function suggest(req, res) {
  const prefix = String(req.query.sku ?? '');
  if (!SKU.test(prefix)) return res.status(400).json({ error: 'bad sku' });
  res.json(CATALOG.filter((sku) => sku.startsWith(prefix)));
}
app.get('/suggest', withEventLoopTimeout(50, suggest));

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
async function exportOrders(req, res) {
  const rows = Math.min(Number(req.query.rows) || 200_000, 1_000_000);
  const orders = await loadOrders(rows);
  res.type('text/csv').send(toCsv(orders));
}
// No budget (0) for each call, in every callback it leads to: after the
// await too. Keep such a route behind authentication (left out here).
app.get('/admin/export', withEventLoopTimeout(0, exportOrders));

// After the routes: Express 5 passes here what a handler throws and what an
// async handler's promise rejects with.
app.use((err, req, res, next) => {
  // Other errors keep Express's default handling (a 500, or their status).
  if (!(err instanceof TimeoutError)) return next(err);
  // Log the client and the code, not the input: it may be huge.
  console.warn(`${err.code} ${req.method} ${req.path} from ${req.ip}`);
  // Headers already sent: let Express close the connection.
  if (res.headersSent) return next(err);
  res.status(503).json({ error: 'timeout' });
});

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
