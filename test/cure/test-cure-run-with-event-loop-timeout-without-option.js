'use strict';
// runWithEventLoopTimeout(ms, fn) gives fn its budget wherever it is called,
// also with the feature off (no --event-loop-timeout, no
// setEventLoopTimeout()) and during the main module's first evaluation,
// which has no budget of its own: the call opens a callback for fn and
// closes it after (setCallbackBudget(ms, open), src/node_cure.cc). Before,
// fn's loop below ran for ever there: the budget was set only inside a
// callback that the watchdog tracked, and nothing was tracked before the
// feature's first use. The code around the call keeps no budget.
const common = require('../common');
const assert = require('assert');
const { spawnSync } = require('child_process');
const { runWithEventLoopTimeout, getEventLoopTimeout } = require('node:cure');
const { assertStopped } = require('../common/cure');

const T = 100;

// Runs for at least `ms` of wall-clock time: longer than a budget of T.
function busy(ms) {
  const end = performance.now() + ms;
  let n = 0;
  while (performance.now() < end) n++;
  return n;
}

if (process.argv[2] === 'first-callback') {
  // The first use is inside a callback that began before it (an untracked
  // one, as a server's first request handler).
  setImmediate(common.mustCall(() => {
    assertStopped('first use in a callback', () => { for (;;); }, T);
    // The rest of that callback, and the next ones, have no budget.
    assert.ok(busy(4 * T) > 0);
    setImmediate(common.mustCall(() => {
      assertStopped('again, in a tracked callback', () => { for (;;); }, T);
      assert.ok(busy(4 * T) > 0);
    }));
  }));
  return;
}

assert.strictEqual(getEventLoopTimeout(), 0);

// The main module's first evaluation.
assertStopped('main module', () => { for (;;); }, T);
// What follows the call has no budget: not interrupted.
assert.ok(busy(4 * T) > 0);
// A result, and a call with no budget (0), as before.
assert.strictEqual(runWithEventLoopTimeout(T, (a, b) => a + b, 2, 3), 5);
assert.strictEqual(runWithEventLoopTimeout(0, () => busy(2 * T) > 0), true);
// Nested: the inner budget for its own work, the outer one after it.
assertStopped('outer after an inner call', () => {
  runWithEventLoopTimeout(10 * T, () => busy(T / 2));
  for (;;);
}, 3 * T);
assert.ok(busy(4 * T) > 0);

// Callbacks outside any call have no budget either.
setTimeout(common.mustCall(() => assert.ok(busy(4 * T) > 0)), 1);

const child = spawnSync(process.execPath, [__filename, 'first-callback'],
                        { encoding: 'utf8' });
assert.strictEqual(child.status, 0,
                   `stdout: ${child.stdout}\nstderr: ${child.stderr}`);
