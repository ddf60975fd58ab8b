// Flags: --event-loop-timeout=100
'use strict';
// The keys of a dictionary-mode object are collected by a walk of its
// entries and a sort by creation order, in C++: with millions of keys they
// take seconds. They poll for a pending timeout, so that a callback that
// spends its budget in Object.keys(), for-in, Object.getOwnPropertyNames(),
// Reflect.ownKeys(), Object.values() or Object.entries() gets a catchable
// TimeoutError there.
const common = require('../common');
const assert = require('assert');

const T = 100;

// Built while the main module runs (not bounded): 3e6 keys, dictionary mode.
const dict = {};
for (let i = 0; i < 3e6; i++) dict['k' + i] = i;
delete dict.k0;
console.log('built');  // Loads what console.log needs outside the budget.

function interrupted(label, fn) {
  const start = performance.now();
  assert.throws(fn, (err) => {
    assert.ok(err instanceof TimeoutError, `${label}: ${err}`);
    assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
    return true;
  }, `${label}: not interrupted`);
  const elapsed = performance.now() - start;
  // The design target is T + 50 ms; the bound is generous for loaded test
  // machines (the times are printed).
  assert.ok(elapsed < T + 1000, `${label}: interrupted after ${elapsed} ms`);
  console.log(`${label}: interrupted after ${elapsed.toFixed(1)} ms`);
}

const cases = [
  () => interrupted('Object.keys', () => Object.keys(dict)),
  () => interrupted('for-in', () => {
    let n = 0;
    for (const key in dict) n += key.length;
    return n;
  }),
  () => interrupted('Object.getOwnPropertyNames',
                    () => Object.getOwnPropertyNames(dict)),
  () => interrupted('Reflect.ownKeys', () => Reflect.ownKeys(dict)),
  () => interrupted('Object.values', () => Object.values(dict)),
  () => interrupted('Object.entries', () => Object.entries(dict)),
];

// One case per callback, each in its own setImmediate.
(function next(i) {
  if (i === cases.length) {
    setTimeout(common.mustCall(), 1);
    return;
  }
  setImmediate(common.mustCall(() => {
    cases[i]();
    next(i + 1);
  }));
})(0);
