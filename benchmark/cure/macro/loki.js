'use strict';
// LokiJS, the in-memory document store of the Node.cure paper's macro set
// (Node.cure: 1.00). Its npm package ships no benchmark script, so this is an
// equivalent of the repository's benchmark/benchmark.js: the same phases on
// the same kind of documents (a customId, two random 20-character strings, a
// constant string), with seeded data so that every binary and every run does
// the same work:
//
//   insert    `docs` documents into a plain collection and into one with a
//             unique index on customId
//   get       coll.get($loki) (binary search on the id)
//   by        uniqueColl.by('customId', ...)
//   find      coll.find({ customId }) without an index (a scan)
//   chain     coll.chain().find({ customId }).data() without an index
//   view      a dynamic view: add, applyFind, data(), data() again, remove
//   then      ensureIndex('customId') and find and chain again, indexed
//
// Unlike the original, which runs everything in the main module's evaluation,
// the work runs in batches of `batch` operations, one setImmediate() callback
// each, as a server would run it one request at a time: every batch is a
// callback that --event-loop-timeout bounds. The rate is operations of the
// whole fixed mix per second; `scale` multiplies every phase's count.
//
//   node loki.js docs=5000 scale=1 batch=100
const Loki = require('lokijs');
const { createBenchmark, prng } = require('./_harness.js');

const bench = createBenchmark(main, {
  docs: 5000,
  scale: 1,
  batch: 100,
});

const ALPHABET =
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomString(random) {
  let s = '';
  for (let i = 0; i < 20; i++)
    s += ALPHABET[Math.floor(random() * ALPHABET.length)];
  return s;
}

// One phase: `count` operations, `batch` per callback; then `done`.
function phase(count, batch, op, done) {
  let i = 0;
  (function next() {
    const end = Math.min(count, i + batch);
    for (; i < end; i++) op(i);
    if (i < count) setImmediate(next);
    else setImmediate(done);
  })();
}

function main({ docs, scale, batch }) {
  const random = prng(0x10c1);
  const db = new Loki('bench-overhead');
  const plain = db.addCollection('plain');
  const unique = db.addCollection('unique', { unique: ['customId'] });
  const key = () => Math.floor(random() * docs) + 1;
  const counts = {
    get: Math.round(100000 * scale),
    by: Math.round(100000 * scale),
    find: Math.round(1000 * scale),
    chain: Math.round(1000 * scale),
    view: Math.round(500 * scale),
    findIndexed: Math.round(20000 * scale),
    chainIndexed: Math.round(15000 * scale),
  };
  let operations = 2 * docs;
  for (const n of Object.values(counts)) operations += n;
  let found = 0;

  const steps = [
    (done) => phase(docs, batch, (i) => {
      plain.insert({
        customId: i + 1, val: randomString(random),
        val2: randomString(random), val3: 'more data 1234567890',
      });
    }, done),
    (done) => phase(docs, batch, (i) => {
      unique.insert({
        customId: docs - i, val: randomString(random),
        val2: randomString(random), val3: 'more data 1234567890',
      });
    }, done),
    (done) => phase(counts.get, batch, () => {
      if (plain.get(key())) found++;
    }, done),
    (done) => phase(counts.by, batch, () => {
      if (unique.by('customId', key())) found++;
    }, done),
    (done) => phase(counts.find, batch, () => {
      found += plain.find({ customId: key() }).length;
    }, done),
    (done) => phase(counts.chain, batch, () => {
      found += plain.chain().find({ customId: key() }).data().length;
    }, done),
    (done) => phase(counts.view, batch, () => {
      const view = plain.addDynamicView('perfview');
      view.applyFind({ customId: key() });
      found += view.data().length + view.data().length;
      plain.removeDynamicView('perfview');
    }, done),
    (done) => {
      plain.ensureIndex('customId');
      setImmediate(done);
    },
    (done) => phase(counts.findIndexed, batch, () => {
      found += plain.find({ customId: key() }).length;
    }, done),
    (done) => phase(counts.chainIndexed, batch, () => {
      found += plain.chain().find({ customId: key() }).data().length;
    }, done),
  ];

  // Start from a callback of the event loop, as a server's work does.
  setImmediate(() => {
    bench.start();
    let step = 0;
    (function next() {
      if (step < steps.length) {
        steps[step++](next);
        return;
      }
      bench.end(operations);
      // Every lookup is of a key that exists: a wrong count is a broken run.
      const expected = operations - 2 * docs + counts.view;
      if (found !== expected)
        throw new Error(`found ${found} documents, expected ${expected}`);
    })();
  });
}
