// Flags: --expose-internals --event-loop-timeout=60000
'use strict';
// runWithEventLoopTimeout() gives the calling callback its budget back when
// fn returns or throws. fn's TimeoutError could come in the finally that
// gives it back, before it did so: the callback kept fn's budget, every
// later call took that for the callback's own, and a TimeoutError of fn's
// 1 ms came in the caller's code long after (here, within 20,000 calls of
// 1 ms budgets whose work takes about that long, the first such after 1,548
// calls). Now the budget is always given back first.
const common = require('../common');
const assert = require('assert');
const { runWithEventLoopTimeout } = require('node:cure');
const { callbackState } = require('internal/cure/callbacks');

const kCallbackBudget = 1;
const work = (n) => {
  let s = 0;
  for (let i = 0; i < n; i++) s += i;
  return s;
};

setImmediate(common.mustCall(() => {
  const own = callbackState.fields[kCallbackBudget];
  let stopped = 0;
  let returned = 0;
  for (let i = 0; i < 20000; i++) {
    try {
      runWithEventLoopTimeout(1, work, 20000 + (i % 50) * 20000);
      returned++;
    } catch (err) {
      assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
      stopped++;
    }
    assert.strictEqual(callbackState.fields[kCallbackBudget], own,
                       `call ${i} left the callback with another budget`);
  }
  // Both paths were taken: fn's budget ran out, and it did not.
  assert.ok(stopped > 0 && returned > 0, `${stopped} / ${returned}`);
}));
