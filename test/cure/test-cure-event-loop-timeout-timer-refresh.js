// Flags: --event-loop-timeout=300
'use strict';
// A timer made inside runWithEventLoopTimeout() and re-armed with
// timeout.refresh() runs again with the budget of the async context that
// AsyncLocalStorage gives that run ("the budget follows the async context
// as AsyncLocalStorage does", doc/api/cure.md):
// * re-armed inside its own callback, before it returned: the timer's own
//   context, the budget it was made with;
// * re-armed after it fired and returned, from a callback of that same
//   context: that budget again;
// * re-armed after it fired and returned, from a callback outside it: a
//   fired timer is a new async resource once refreshed (insertGuarded() in
//   lib/internal/timers.js gives it the caller's context), so AsyncLocalStorage
//   sees the caller's store and the run gets the caller's budget, the
//   default here.
// Node.js 24 also clears a fired timer's async context
// (removeStoresFromResource()); the budget must still follow
// AsyncLocalStorage in each case.
const common = require('../common');
const assert = require('assert');
const { loopUntilInterrupted } = require('../common/cure');
const { AsyncLocalStorage } = require('async_hooks');
const { getTimeoutCounts, runWithEventLoopTimeout } = require('node:cure');

const als = new AsyncLocalStorage();

// Makes a timer in als.run('scoped') and runWithEventLoopTimeout(50); its
// first run returns at once and has refresh(timer) re-arm it; its second
// run loops until interrupted. Resolves with what the second run saw.
function refreshedTimer(refresh) {
  return new Promise((resolve) => {
    let runs = 0;
    const timer = als.run('scoped', () => runWithEventLoopTimeout(50, () => {
      return setTimeout(common.mustCall(function onTimeout() {
        if (++runs === 1) {
          refresh(timer);
          return;
        }
        resolve({ store: als.getStore(), ...loopUntilInterrupted() });
      }, 2), 1);
    }));
  });
}

function assertInterrupted(result, budget) {
  assert.strictEqual(result.budget, budget);
  assert.ok(result.elapsed >= budget - 10,
            `interrupted after ${result.elapsed} ms`);
  assert.ok(result.elapsed < budget + 1000,
            `interrupted after ${result.elapsed} ms`);
  assert.match(result.stack, /at loopUntilInterrupted /);
  assert.match(result.stack, /at Timeout\.onTimeout /);
}

const cases = [
  async function inItsOwnCallback() {
    const result = await refreshedTimer((timer) => timer.refresh());
    assert.strictEqual(result.store, 'scoped');
    assertInterrupted(result, 50);
  },

  async function afterItFiredFromItsContext() {
    // The immediate is made in the first run: the timer's context.
    const result = await refreshedTimer((timer) => {
      setImmediate(() => timer.refresh());
    });
    assert.strictEqual(result.store, 'scoped');
    assertInterrupted(result, 50);
  },

  async function afterItFiredFromOutside() {
    // A reaction registered outside the context, after the first run
    // returned, then an immediate of that outside context.
    let fired;
    const firstRun = new Promise((resolve) => { fired = resolve; });
    const refreshed = firstRun.then((timer) => {
      setImmediate(() => timer.refresh());
    });
    const result = await refreshedTimer(fired);
    await refreshed;
    assert.strictEqual(result.store, undefined);
    assertInterrupted(result, 300);
  },
];

(async () => {
  const before = getTimeoutCounts().eventLoop;
  for (const test of cases) {
    // Each case from a callback of its own, outside any budget of its own.
    await new Promise((resolve) => setImmediate(resolve));
    await test();
    console.log(`${test.name}: ok`);
  }
  assert.strictEqual(getTimeoutCounts().eventLoop, before + cases.length);
})().then(common.mustCall());
