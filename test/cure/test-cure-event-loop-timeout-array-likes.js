// Flags: --event-loop-timeout=100
'use strict';
// Array.prototype.indexOf() and includes() on an array-like walk every
// index up to its `length`, which costs the client a few bytes of JSON.
// They poll for the timeout: interrupted with the callback's TimeoutError,
// cold and after warm-up; results of ordinary array-likes are unchanged.
require('../common');
const assert = require('assert');
const { assertInterrupted, runEachInACallback } = require('../common/cure');

const T = 100;
const { indexOf, includes } = Array.prototype;

// Beyond 2^32: the runtime's generic loop (never ends upstream).
const huge = JSON.parse('{"length":9007199254740991,"0":1}');
// A sparse object: dictionary elements, 2^32 - 2 indices to look up (for
// indexOf; includes() looks at the dictionary's entries instead).
const sparse = JSON.parse('{"length":4294967294,"3000000000":7}');

const cases = [
  ['indexOf, length 2^53 - 1', () => indexOf.call(huge, 2)],
  ['includes, length 2^53 - 1', () => includes.call(huge, 2)],
  ['indexOf, sparse', () => indexOf.call(sparse, 8)],
  ['indexOf, a getter among the elements',
   () => indexOf.call({ length: 2 ** 32 - 2, get 5() { return 5; } }, 6)],
  ['includes, a getter among the elements',
   () => includes.call({ length: 2 ** 32 - 2, get 5() { return 5; } }, 6)],
];

// Ordinary array-likes: the answers of the specification.
function checkOrdinary() {
  const like = { length: 5, 0: 'a', 2: 'b', 4: NaN };
  assert.strictEqual(indexOf.call(like, 'b'), 2);
  assert.strictEqual(indexOf.call(like, 'c'), -1);
  assert.strictEqual(includes.call(like, NaN), true);
  assert.strictEqual(includes.call(like, undefined), true);  // a hole
  assert.strictEqual(indexOf.call(like, undefined), -1);
  const dict = { length: 300000 };
  dict[250000] = 'x';
  dict[299999] = 'y';
  assert.strictEqual(indexOf.call(dict, 'y'), 299999);
  assert.strictEqual(includes.call(dict, 'x'), true);
  assert.strictEqual(indexOf.call(dict, 'z', 250001), -1);
  const big = { length: 2 ** 32 + 70000, [2 ** 32 + 1]: 'far' };
  assert.strictEqual(indexOf.call(big, 'far', 2 ** 32), 2 ** 32 + 1);
}

runEachInACallback([
  checkOrdinary,
  ...cases.map(([label, fn]) => () => assertInterrupted(label, fn, T)),
  () => {
    // Warm the callers up (optimized code reaches the same builtins).
    const warm = (o, v) => indexOf.call(o, v) + includes.call(o, v);
    for (let i = 0; i < 2e4; i++) warm({ length: 3, 1: i }, i);
    assertInterrupted('warm indexOf + includes', () => warm(huge, 2), T);
  },
  () => assertInterrupted('warm sparse', () => indexOf.call(sparse, 8), T),
  checkOrdinary,
]);
