'use strict';
// The cost of --threadpool-timeout when it never fires: short threadpool
// tasks (fs, crypto, zlib) with a budget far above their time. Compare
// ./node against ./node-baseline (make baseline) with benchmark/compare.js;
// with budget=0 both run upstream's paths, with budget>0 nodecure's libuv
// records each task's start and its Manager watches the running tasks. On
// the baseline the budget is ignored (it has no node:cure).
//
// On a 2-core machine the rate of the fs types swings by ±25% from run to run
// with the number of context switches between the loop and the 4 workers
// (perf stat: 11,000 to 90,000 per run), more than the effect measured. To
// compare per-task cost, run compare.js pinned to one CPU (its children
// inherit the affinity): `taskset -c 1 node benchmark/compare.js ...`.
const common = require('../common.js');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const tmpdir = require('../../test/common/tmpdir');
const { setThreadpoolBudget } = require('./_budget.js');

const bench = common.createBenchmark(main, {
  type: ['readfile', 'stat', 'pbkdf2', 'gzip'],
  budget: [0, 10000],
  // Requests in flight: above the pool's 4 workers, so that tasks queue.
  concurrency: [16],
  n: [1e5],
});

function setup(type) {
  if (type !== 'readfile' && type !== 'stat') return undefined;
  tmpdir.refresh();
  const file = path.join(tmpdir.path, 'threadpool-timeout.bin');
  fs.writeFileSync(file, Buffer.alloc(16 * 1024, 'x'));
  return file;
}

const input = Buffer.alloc(16 * 1024, 'nodecure ');

const ops = {
  readfile: (file, cb) => fs.readFile(file, cb),
  stat: (file, cb) => fs.stat(file, cb),
  pbkdf2: (file, cb) => crypto.pbkdf2('secret', 'salt', 1, 32, 'sha256', cb),
  gzip: (file, cb) => zlib.gzip(input, cb),
};

function main({ type, budget, concurrency, n }) {
  setThreadpoolBudget(budget);
  const file = setup(type);
  const op = ops[type];
  let started = 0;
  let finished = 0;
  function start() {
    started++;
    op(file, onDone);
  }
  function onDone(err) {
    if (err) throw err;
    if (++finished === n) bench.end(n);
    else if (started < n) start();
  }
  bench.start();
  for (let i = 0; i < concurrency; i++) start();
}
