'use strict';
// The worst case for a per-callback cost: a chain of n callbacks, each
// scheduling the next, each empty (work=0) or running a loop of `work`
// iterations (the Node.cure paper's micro-benchmarks: an empty-callback
// chain, 2.4x with its lazy watchdog and 7.9x with the precise one, and
// callbacks of 500 iterations, 1.3x). type picks the kind of callback:
// setImmediate() (one event-loop turn each), process.nextTick(), promise
// reactions and async-function continuations. --event-loop-timeout bounds
// each of them (doc/api/cure.md), so each pays nodecure's per-callback cost.
//
//   node callbacks.js type=immediate work=0 n=1000000
const { createBenchmark } = require('./_harness.js');

const bench = createBenchmark(main, {
  type: 'immediate',
  work: 0,
  n: 1e6,
});

// What the loops compute goes here, so that no compiler drops them.
let sink = 0;

function spin(iterations) {
  let x = sink;
  for (let i = 0; i < iterations; i++) x = (x * 31 + i) | 0;
  sink = x;
}

function immediates(n, work, done) {
  let i = 0;
  (function next() {
    spin(work);
    if (++i < n) setImmediate(next);
    else done();
  })();
}

function nextTicks(n, work, done) {
  let i = 0;
  (function next() {
    spin(work);
    if (++i < n) process.nextTick(next);
    else done();
  })();
}

function promises(n, work, done) {
  let p = Promise.resolve();
  const step = () => spin(work);
  for (let i = 0; i < n; i++) p = p.then(step);
  p.then(done);
}

async function awaits(n, work, done) {
  for (let i = 0; i < n; i++) {
    await undefined;
    spin(work);
  }
  done();
}

const chains = {
  immediate: immediates,
  nextTick: nextTicks,
  promise: promises,
  await: awaits,
};

function main({ type, work, n }) {
  const chain = chains[type];
  if (!chain) throw new Error(`unknown type ${type}`);
  // Start from a callback of the event loop, as a server's work does.
  setImmediate(() => {
    bench.start();
    chain(n, work, () => {
      bench.end(n);
      if (sink === 0.5) console.log(sink);  // Never: keeps sink observable.
    });
  });
}
