// Flags: --allow-natives-syntax
'use strict';
// String.prototype.indexOf() in optimized code. While a budget is set,
// TurboFan calls it as a builtin that a TimeoutError can unwind, so a long
// search is interrupted. Code optimized before any budget was set calls the
// search without the data a throw needs: there the search runs to its end
// and the error comes at the next check, never a crash.
const common = require('../common');
const assert = require('assert');
const { setEventLoopTimeout } = require('node:cure');

const T = 100;
// An O(n * m) search: about six comparisons at each of 2^27 indices.
const as = 'a'.repeat(2 ** 27);
as.indexOf('b');  // Flattened outside the timed callbacks.
const aab = 'aaaaab';

function optimize(fn) {
  %PrepareFunctionForOptimization(fn);
  fn('xxxxxxxxab', aab);
  fn('xxxxxxxxab', aab);
  %OptimizeFunctionOnNextCall(fn);
  fn('xxxxxxxxab', aab);
  assert.ok(%ActiveTierIsTurbofan(fn));
}

function optimizedBefore(s, p) { return s.indexOf(p); }
function optimizedAfter(s, p) { return s.indexOf(p); }

optimize(optimizedBefore);
setEventLoopTimeout(T);
optimize(optimizedAfter);

setImmediate(common.mustCall(() => {
  const start = performance.now();
  assert.throws(() => optimizedAfter(as, aab), TimeoutError);
  const elapsed = performance.now() - start;
  assert.ok(elapsed < T + 1000, `interrupted after ${elapsed} ms`);
  console.log(`optimized afterwards: interrupted after ${elapsed.toFixed(1)} ms`);

  setImmediate(common.mustCall(() => {
    // The search completes; the timeout is thrown at the next check.
    let result;
    assert.throws(() => {
      result = optimizedBefore(as, aab);
      for (;;);
    }, TimeoutError);
    assert.strictEqual(result, -1);
  }));
}));
