// Flags: --allow-natives-syntax
'use strict';
// A search for one known character (Node's lib checks every path with
// StringPrototypeIncludes(path, '\u0000')) stays inline in optimized code
// while a budget is set, since it is linear and never polls: it runs to its
// end, gives its result, and the TimeoutError comes at the next check. A
// search that polled there would be stopped inside a call that cannot
// throw.
const common = require('../common');
const assert = require('assert');
const { setEventLoopTimeout } = require('node:cure');

const T = 20;
// Two-byte, and every other byte of it is 0: memchr() finds a candidate at
// each character, so the search takes long enough to overrun T (about
// 75 ms here); one NUL at the end.
const N = 2 ** 27;
const subject = '\u0100'.repeat(N - 1) + '\u0000';
subject.includes('x');  // Flattened outside the timed callbacks.

function hasNul(s) { return s.includes('\u0000'); }
function indexOfNul(s) { return s.indexOf('\u0000'); }

setEventLoopTimeout(T);
for (const fn of [hasNul, indexOfNul]) {
  %PrepareFunctionForOptimization(fn);
  fn('ab\u0000');
  fn('abc');
  %OptimizeFunctionOnNextCall(fn);
  fn('abc');
  assert.ok(%ActiveTierIsTurbofan(fn));
}

setImmediate(common.mustCall(() => {
  let result;
  assert.throws(() => {
    result = hasNul(subject);
    for (;;);
  }, TimeoutError);
  assert.strictEqual(result, true);

  setImmediate(common.mustCall(() => {
    let index;
    assert.throws(() => {
      index = indexOfNul(subject);
      for (;;);
    }, TimeoutError);
    assert.strictEqual(index, N - 1);
  }));
}));
