'use strict';
// The cost of --event-loop-timeout on chains of empty callbacks, the worst
// case for a per-callback cost. Compare ./node against ./node-baseline
// (make baseline) with benchmark/compare.js; with budget=0 both run
// upstream's code paths, with budget>0 nodecure times every callback. On the
// baseline the budget is ignored (it has no node:cure).
const common = require('../common.js');
const { setEventLoopBudget } = require('./_budget.js');

const bench = common.createBenchmark(main, {
  type: ['nextTick', 'promise', 'await', 'immediate', 'timeout'],
  budget: [0, 1000],
  n: [1e6],
});

function nextTicks(n, done) {
  let i = 0;
  (function tick() {
    if (++i < n) process.nextTick(tick);
    else done();
  })();
}

function promises(n, done) {
  let p = Promise.resolve();
  for (let i = 0; i < n; i++) p = p.then(() => {});
  p.then(done);
}

async function awaits(n, done) {
  for (let i = 0; i < n; i++) await undefined;
  done();
}

function immediates(n, done) {
  let i = 0;
  (function next() {
    if (++i < n) setImmediate(next);
    else done();
  })();
}

function timeouts(n, done) {
  let left = n;
  const cb = () => {
    if (--left === 0) done();
  };
  for (let i = 0; i < n; i++) setTimeout(cb, 1);
}

const runs = {
  nextTick: nextTicks,
  promise: promises,
  await: awaits,
  immediate: immediates,
  timeout: timeouts,
};

function main({ type, budget, n }) {
  setEventLoopBudget(budget);
  // Start from a callback, as a server's work does.
  setImmediate(() => {
    bench.start();
    runs[type](n, () => bench.end(n));
  });
}
