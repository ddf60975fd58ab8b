'use strict';
// The victim of the EHP attack suite: an Express 5 app written the way real
// apps are, each route doing what a real one does with the input a client
// sends. Nothing here knows about nodecure: run with stock Node it is an
// ordinary app, and every route has a cost the client controls. That is
// Event Handler Poisoning (Davis et al., "A Sense of Time for JavaScript and
// Node.js", USENIX Security '18): one evil input holds the event loop or the
// threadpool that every client shares.
//
//   EHP_FILES   the directory /file and /config serve from (required)
//   EHP_PORT    the port (0: any); prints "listening <port>" once it serves
//
// The only nodecure-aware line is the error handler's mapping of a
// TimeoutError to 503, what the guide tells an app to do; without it Express
// answers such an error with 500, like any other. (ETIMEDOUT, a dependency
// that timed out, is 503 too: a soft NFS mount's answer when its server is
// down, and nodecure's while a call on a mount is stuck.)
const childProcess = require('child_process');
const crypto = require('crypto');
const dns = require('dns');
const express = require('express');
const fs = require('fs');
const path = require('path');
const validator = require('validator');  // 13.6.0: rtrim() is CVE-2021-3765
const zlib = require('zlib');

const files = process.env.EHP_FILES;
if (!files) throw new Error('EHP_FILES must name the directory to serve');

const app = express();
const json = express.json({ limit: '256mb' });
const raw = express.raw({ type: () => true, limit: '16mb' });

// A file the client names, under the served directory.
function served(name) {
  return path.join(files, path.basename(String(name ?? '')));
}

// What legitimate clients mostly ask for.
app.get('/', (req, res) => res.send('ok'));

// The suite's repetitions (run.js) start the app with --expose-gc and
// collect garbage before each measure of its RSS, so that what V8's heap
// has not collected yet is not taken for a leak.
if (typeof globalThis.gc === 'function') {
  app.get('/__gc', (req, res) => {
    globalThis.gc();
    globalThis.gc();
    res.send('ok');
  });
}

// --- The language: work the client sizes -----------------------------------

// A profile update that trims and validates the display name with a
// popular validation library (validator@13.6.0: rtrim's regexp backtracks
// quadratically on a long run of spaces, CVE-2021-3765).
app.post('/profile', json, (req, res) => {
  const name = validator.rtrim(String(req.body?.name ?? ''));
  if (!validator.isLength(name, { min: 1, max: 64 })) {
    return res.status(400).json({ error: 'name must be 1-64 characters' });
  }
  res.json({ name });
});

// Pagination with a bug: a page size of 0 never advances.
app.get('/pages', (req, res) => {
  const total = Number(req.query.total ?? 100);
  const size = Number(req.query.size ?? 10);
  let pages = 0;
  for (let offset = 0; offset < total; offset += size) pages++;
  res.json({ pages });
});

// A bulk import: the body is parsed by express.json() (JSON.parse).
app.post('/items', json, (req, res) => {
  res.json({ imported: Array.isArray(req.body?.items) ?
    req.body.items.length : 0 });
});

// An export of as many rows as the client asks for (JSON.stringify).
app.get('/export', (req, res) => {
  const rows = Math.min(Number(req.query.rows ?? 100), 2 ** 24);
  const data = [];
  for (let i = 0; i < rows; i++) data.push({ id: i, name: `item ${i}` });
  res.type('json').send(JSON.stringify(data));
});

// A leaderboard sorted on demand.
app.get('/sort', (req, res) => {
  const n = Math.min(Number(req.query.n ?? 1000), 2 ** 25);
  const scores = new Float64Array(n).map(() => Math.random());
  const sorted = Array.from(scores).sort((a, b) => b - a);
  res.json({ top: sorted.slice(0, 3) });
});

// The last match of a query in a document the client builds from a
// template (lastIndexOf compares the whole query at each position).
app.get('/search', (req, res) => {
  const times = Math.min(Number(req.query.times ?? 1), 2 ** 27);
  const text = String(req.query.text ?? 'ab').repeat(times);
  res.json({ last: text.lastIndexOf(String(req.query.q ?? 'b')) });
});

// Unicode normalization of user text (NFKC expands ligatures).
app.post('/normalize', json, (req, res) => {
  const text = String(req.body?.text ?? '');
  const times = Math.min(Number(req.body?.times ?? 1), 2 ** 20);
  res.json({ length: text.repeat(times).normalize('NFKC').length });
});

// A slug made from a title (lower case); the client repeats a pattern,
// as for /normalize.
app.post('/slug', json, (req, res) => {
  const text = String(req.body?.text ?? '');
  const times = Math.min(Number(req.body?.times ?? 1), 2 ** 26);
  res.json({ length: text.repeat(times).toLowerCase().length });
});

// A report column computed by a formula the user writes (a spreadsheet
// cell): its characters are checked, then it is compiled once with
// new Function(), as formula and template engines do.
app.post('/formula', json, (req, res) => {
  const formula = String(req.body?.formula ?? '0');
  if (!/^[\w.+\-*/() ]*$/.test(formula)) {
    return res.status(400).json({ error: 'bad formula' });
  }
  const column = new Function('row', `return (${formula});`);
  res.json({ value: column({ a: 1, b: 2 }) });
});

// A member directory sorted by name in the locale the reader asks for
// (collation; names may carry any combining marks).
app.post('/directory', json, (req, res) => {
  const names = Array.isArray(req.body?.names) ? req.body.names.map(String) : [];
  const collator = new Intl.Collator(String(req.body?.locale ?? 'en'));
  res.json({ first: names.sort(collator.compare)[0]?.length ?? 0 });
});

// The first keywords of a post, for the search index: its words as the
// post's language segments them (Intl.Segmenter; Chinese, Japanese and Thai
// put no spaces between words).
app.post('/keywords', json, (req, res) => {
  const text = String(req.body?.text ?? '');
  const segmenter = new Intl.Segmenter(String(req.body?.locale ?? 'en'),
                                       { granularity: 'word' });
  const keywords = [];
  for (const { segment, isWordLike } of segmenter.segment(text)) {
    if (isWordLike && keywords.push(segment) === 20) break;
  }
  res.json({ keywords });
});

// A search filter the client writes as a Unicode regular expression.
app.post('/filter', json, (req, res) => {
  let filter;
  try {
    filter = new RegExp(String(req.body?.pattern ?? ''), 'u');
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    return res.status(400).json({ error: 'bad pattern' });
  }
  res.json({ match: filter.test(String(req.body?.text ?? '')) });
});

// A ledger that adds amounts sent as decimal strings, exactly.
app.post('/total', json, (req, res) => {
  const amounts = Array.isArray(req.body?.amounts) ? req.body.amounts : [];
  let total = 0n;
  for (const amount of amounts) total += BigInt(String(amount));
  res.json({ digits: total.toString().length });
});

// A link preview: the URL the client submits is parsed, its host shown.
app.post('/preview', json, (req, res) => {
  let url;
  try {
    url = new URL(String(req.body?.url ?? ''));
  } catch (err) {
    if (err?.code !== 'ERR_INVALID_URL') throw err;
    return res.status(400).json({ error: 'bad url' });
  }
  res.json({ host: url.host.length });
});

// An order lookup: the client sends the ids it wants, comma-separated, and
// the app asks SQLite for them in one IN list, as a query builder's
// whereIn() does. The ids are checked to be numbers; SQLite compiles the
// list before it runs a single opcode.
const orders = (() => {
  const { DatabaseSync } = require('node:sqlite');
  const db = new DatabaseSync(':memory:');
  db.exec(`CREATE TABLE orders (id INTEGER PRIMARY KEY, total INTEGER);
           WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c
             WHERE x < 1000) INSERT INTO orders SELECT x, x * 3 FROM c;`);
  return db;
})();
app.post('/orders', raw, (req, res) => {
  const ids = req.body.toString('latin1');
  if (ids === '' || /[^0-9, ]/.test(ids)) {
    return res.status(400).json({ error: 'bad ids' });
  }
  const row = orders.prepare(
    `SELECT count(*) AS n FROM orders WHERE id IN (${ids})`).get();
  res.json({ found: row.n });
});

// A promise chain: an async handler polling a condition that never holds.
app.get('/wait', async (req, res) => {
  const until = Number(req.query.until ?? 10);
  let i = 0;
  while (i < until) {
    await null;
    i++;
  }
  res.json({ i });
});

// --- Synchronous bindings on the event loop --------------------------------

// Configuration read synchronously, as many apps do.
app.get('/config', (req, res) => {
  res.type('text').send(fs.readFileSync(served(req.query.name)));
});

// A report from the network share mounted at share/ under the served
// directory (an NFS or sshfs mount in real life), read synchronously.
app.get('/report', (req, res) => {
  const name = path.basename(String(req.query.name ?? ''));
  res.type('text').send(fs.readFileSync(path.join(files, 'share', name)));
});

// A password hash whose cost the client's record chooses, synchronously.
app.get('/hash-sync', (req, res) => {
  const cost = Math.min(Number(req.query.cost ?? 1000), 2 ** 31 - 1);
  const key = crypto.pbkdf2Sync('password', 'salt', cost, 32, 'sha256');
  res.json({ key: key.toString('hex') });
});

// A key pair for a new client certificate, made while the client waits.
app.get('/keypair-sync', (req, res) => {
  const bits = Math.min(Number(req.query.bits ?? 2048), 32768);
  const { publicKey } =
    crypto.generateKeyPairSync('rsa', { modulusLength: bits });
  res.type('text').send(publicKey.export({ type: 'spki', format: 'pem' }));
});

// Diffie-Hellman parameters of the size the client asks for, made while
// it waits.
app.get('/dh-params', (req, res) => {
  const bits = Math.min(Number(req.query.bits ?? 1024), 10000);
  const dh = crypto.createDiffieHellman(bits);
  res.json({ prime: dh.getPrime('hex'), generator: dh.getGenerator('hex') });
});

// A document kept as a snapshot (an undo history, a cache of the request):
// structuredClone() of the parsed body.
app.post('/snapshot', json, (req, res) => {
  const copy = structuredClone(req.body);
  res.json({ values: Array.isArray(copy) ? copy.length : 0 });
});

// An upload that is gunzipped synchronously.
app.post('/upload-sync', raw, (req, res) => {
  res.json({ bytes: zlib.gunzipSync(req.body).length });
});

// A response compressed in one call, as a cache stores it: brotli at its
// default quality.
app.post('/compress-sync', raw, (req, res) => {
  res.json({ bytes: req.body.length,
             compressed: zlib.brotliCompressSync(req.body).length });
});

// An external tool run synchronously (a converter, a linter).
app.get('/exec', (req, res) => {
  const seconds = String(Number(req.query.seconds ?? 0));
  res.type('text').send(
    childProcess.execFileSync('sleep', [seconds], { encoding: 'utf8' }) ||
    'done');
});

// --- The threadpool ---------------------------------------------------------

// File serving (fs.readFile on the pool).
app.get('/file', (req, res, next) => {
  fs.readFile(served(req.query.name), (err, data) => {
    if (err) return next(err);
    res.type('text').send(data);
  });
});

// A password hash on the pool.
app.get('/hash', (req, res, next) => {
  const cost = Math.min(Number(req.query.cost ?? 1000), 2 ** 31 - 1);
  crypto.pbkdf2('password', 'salt', cost, 32, 'sha256', (err, key) => {
    if (err) return next(err);
    res.json({ key: key.toString('hex') });
  });
});

// A key pair for a new client certificate.
app.get('/keypair', (req, res, next) => {
  const bits = Math.min(Number(req.query.bits ?? 2048), 16384);
  crypto.generateKeyPair('rsa', { modulusLength: bits }, (err, publicKey) => {
    if (err) return next(err);
    res.type('text').send(publicKey.export({ type: 'spki', format: 'pem' }));
  });
});

// A random token of the size asked for.
app.get('/token', (req, res, next) => {
  const bytes = Math.min(Number(req.query.bytes ?? 32), 2 ** 31 - 1);
  crypto.randomFill(Buffer.allocUnsafe(bytes), (err, buf) => {
    if (err) return next(err);
    res.json({ token: buf.subarray(0, 32).toString('hex'), bytes });
  });
});

// A webhook target checked by resolving its host.
app.get('/lookup', (req, res, next) => {
  dns.lookup(String(req.query.host ?? 'localhost'), (err, address) => {
    if (err) return next(err);
    res.json({ address });
  });
});

// An upload gunzipped on the pool.
app.post('/upload', raw, (req, res, next) => {
  zlib.gunzip(req.body, (err, data) => {
    if (err) return next(err);
    res.json({ bytes: data.length });
  });
});

// An upload archived for long-term storage: compressed once, with brotli at
// its best (slowest) quality and largest window. The pool compresses a
// block of the window per task, for seconds when the data does not
// compress.
app.post('/archive', raw, (req, res, next) => {
  const { BROTLI_PARAM_QUALITY, BROTLI_PARAM_LGWIN, BROTLI_MAX_QUALITY,
          BROTLI_MAX_WINDOW_BITS } = zlib.constants;
  zlib.brotliCompress(req.body, {
    params: {
      [BROTLI_PARAM_QUALITY]: BROTLI_MAX_QUALITY,
      [BROTLI_PARAM_LGWIN]: BROTLI_MAX_WINDOW_BITS,
    },
  }, (err, data) => {
    if (err) return next(err);
    res.json({ bytes: req.body.length, archived: data.length });
  });
});

// The error handler: a TimeoutError is the server protecting itself (503,
// retry later); anything else is a plain 500.
app.use((err, req, res, next) => {
  // Once the answer has started, Express's own handler closes the
  // connection (Express's guide on error handling).
  if (res.headersSent) return next(err);
  if (err?.name === 'TimeoutError' || err?.code === 'ETIMEDOUT') {
    return res.status(503).json({ error: 'timeout', code: err.code });
  }
  res.status(err?.status ?? 500).json({ error: err?.code ?? 'error' });
});

const server = app.listen(Number(process.env.EHP_PORT ?? 0), '127.0.0.1',
                          () => {
                            console.log(`listening ${server.address().port}`);
                          });
process.on('SIGTERM', () => process.exit(0));
