// Flags: --event-loop-timeout=200
'use strict';
// Many short callbacks that together run far longer than the budget never
// get a TimeoutError: a million nextTicks, a million promise reactions, a
// million awaits.
const common = require('../common');
const assert = require('assert');
const { getTimeoutCounts, runWithEventLoopTimeout } = require('node:cure');

const N = 1e6;

function nextTicks() {
  return new Promise((resolve) => {
    let n = 0;
    (function tick() {
      if (++n < N) process.nextTick(tick);
      else resolve();
    })();
  });
}

function reactions() {
  // Building the chain is one long callback of its own (a million
  // allocations may take longer than the budget on a loaded machine): it
  // opts out. The reactions it queues run with the default budget.
  const p = runWithEventLoopTimeout(0, () => {
    let chain = Promise.resolve(0);
    for (let i = 0; i < N; i++) chain = chain.then((x) => x + 1);
    return chain;
  });
  return p.then((x) => assert.strictEqual(x, N));
}

async function awaits() {
  for (let i = 0; i < N; i++) await null;
}

setTimeout(common.mustCall(async () => {
  for (const run of [nextTicks, reactions, awaits]) {
    const start = performance.now();
    await run();
    console.log(`${run.name}: ${(performance.now() - start).toFixed(0)} ms`);
  }
  assert.strictEqual(getTimeoutCounts().eventLoop, 0);
}), 1);
