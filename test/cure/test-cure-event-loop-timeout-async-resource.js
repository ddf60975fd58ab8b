// Flags: --event-loop-timeout=1000
'use strict';
// A function bound to an AsyncResource (AsyncResource.bind(),
// AsyncLocalStorage.snapshot(), an EventEmitterAsyncResource's listeners)
// runs with the budget of the context where the resource was made, as
// AsyncLocalStorage sees that context: inside runWithEventLoopTimeout(), the
// function's budget, wherever it is called from later. Not the budget of
// the callback that calls it: runInAsyncScope() emits async_hooks' before()
// before it enters the resource's AsyncContextFrame (Node.js 22 with
// --experimental-async-context-frame, Node.js 24), so the before() hook that
// gives a callback its context's budget must not read the caller's.
const common = require('../common');
const assert = require('assert');
const { loopUntilInterrupted } = require('../common/cure');
const { AsyncLocalStorage, AsyncResource } = require('async_hooks');
const { EventEmitterAsyncResource } = require('events');
const { getTimeoutCounts, runWithEventLoopTimeout } = require('node:cure');

function spin(ms) {
  const start = performance.now();
  while (performance.now() - start < ms);
}

// Interrupted by the resource's budget of 50 ms, inside the bound function,
// long before the default of 1000 ms. The budget is timed from the start of
// the resource's scope; a loaded machine may begin the loop a little later.
function assertResourceBudget(result) {
  assert.strictEqual(result.budget, 50);
  assert.ok(result.elapsed >= 40, `interrupted after ${result.elapsed} ms`);
  assert.ok(result.elapsed < 1000, `interrupted after ${result.elapsed} ms`);
  assert.match(result.stack, /at loopUntilInterrupted /);
}

// Calls call() from a timer outside any budget of its own (the default,
// 1000 ms); resolves with what it returned.
function fromDefaultCallback(call) {
  return new Promise((resolve) => setTimeout(() => resolve(call()), 1));
}

const cases = [
  async function bind() {
    const bound = runWithEventLoopTimeout(
      50, () => AsyncResource.bind(loopUntilInterrupted));
    assertResourceBudget(await fromDefaultCallback(bound));
  },

  async function runInAsyncScope() {
    const resource = runWithEventLoopTimeout(
      50, () => new AsyncResource('CureTest'));
    assertResourceBudget(await fromDefaultCallback(
      () => resource.runInAsyncScope(loopUntilInterrupted)));
  },

  async function asyncLocalStorageSnapshot() {
    const snapshot = runWithEventLoopTimeout(
      50, () => AsyncLocalStorage.snapshot());
    assertResourceBudget(await fromDefaultCallback(
      () => snapshot(loopUntilInterrupted)));
  },

  async function asyncLocalStorageBind() {
    const bound = runWithEventLoopTimeout(
      50, () => AsyncLocalStorage.bind(loopUntilInterrupted));
    assertResourceBudget(await fromDefaultCallback(bound));
  },

  async function eventEmitterAsyncResource() {
    const emitter = runWithEventLoopTimeout(
      50, () => new EventEmitterAsyncResource({ name: 'CureTest' }));
    let result;
    emitter.on('request', common.mustCall(() => {
      result = loopUntilInterrupted();
    }));
    await fromDefaultCallback(() => emitter.emit('request'));
    assertResourceBudget(result);
  },

  // The other way round: made without a budget (0), called from a callback
  // whose budget (30 ms) is far shorter than the function's run: it runs to
  // its end, and nothing on this thread timed out.
  async function noBudgetFromShortBudget() {
    const bound = runWithEventLoopTimeout(
      0, () => AsyncResource.bind(() => {
        spin(150);
        return 'ran to its end';
      }));
    const before = getTimeoutCounts().eventLoop;
    const result = await new Promise((resolve) => {
      runWithEventLoopTimeout(30, () => {
        setTimeout(() => resolve(bound()), 1);
      });
    });
    assert.strictEqual(result, 'ran to its end');
    assert.strictEqual(getTimeoutCounts().eventLoop, before);
  },
];

(async () => {
  for (const test of cases) {
    // Each case from a callback of its own, outside any budget of its own.
    await new Promise((resolve) => setImmediate(resolve));
    await test();
    console.log(`${test.name}: ok`);
  }
})().then(common.mustCall());
