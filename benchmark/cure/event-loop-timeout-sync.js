'use strict';
// The cost of --event-loop-timeout for short synchronous calls that never
// time out: statSync(), readFileSync() of 4 KiB, inflateSync() of 16 KiB and
// pbkdf2Sync() of one iteration, made from callbacks with a budget far above
// their time. With budget>0 each call is a section that the watchdog could
// stop (uv/sync-stop.h: a few atomic stores and a thread-local); with
// budget=0 the calls take upstream's path. Compare ./node against
// ./node-baseline (make baseline) with benchmark/compare.js, pinned to one
// CPU on a small machine: `taskset -c 1 node benchmark/compare.js ...`.
const common = require('../common.js');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const tmpdir = require('../../test/common/tmpdir');
const { setEventLoopBudget } = require('./_budget.js');

const bench = common.createBenchmark(main, {
  type: ['statSync', 'readFileSync', 'inflateSync', 'pbkdf2Sync'],
  budget: [0, 10000],
  n: [1e5],
});

// Calls per callback: each callback stays far below its budget.
const BATCH = 500;

function setup(type) {
  tmpdir.refresh();
  const file = path.join(tmpdir.path, 'event-loop-timeout-sync.bin');
  fs.writeFileSync(file, Buffer.alloc(4 * 1024, 'x'));
  const deflated = zlib.deflateSync(Buffer.alloc(16 * 1024, 'nodecure '));
  return {
    statSync: () => fs.statSync(file),
    readFileSync: () => fs.readFileSync(file),
    inflateSync: () => zlib.inflateSync(deflated),
    pbkdf2Sync: () => crypto.pbkdf2Sync('secret', 'salt', 1, 32, 'sha256'),
  }[type];
}

function main({ type, budget, n }) {
  setEventLoopBudget(budget);
  const op = setup(type);
  let done = 0;
  function batch() {
    for (let i = 0; i < BATCH && done < n; i++, done++) op();
    if (done < n) setImmediate(batch);
    else bench.end(n);
  }
  setImmediate(() => {
    bench.start();
    batch();
  });
}
