// Flags: --event-loop-timeout=50 --allow-natives-syntax
'use strict';
// JS loops are interrupted in every tier: interpreted, baseline (Sparkplug),
// optimized (TurboFan) and on-stack-replaced code; so are backtracking
// regexps and JSON.stringify, which poll for interrupts.
const common = require('../common');
const assert = require('assert');

function sum(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s += i;
  return s;
}

// A JSON text whose parse takes at least 500 ms (initialisation is not
// bounded by the budget).
let bigJSON;
for (let n = 1 << 16; ; n *= 2) {
  bigJSON = '[' + '{"a":1,"b":[true,null,"x"]},'.repeat(n) + '0]';
  const start = performance.now();
  JSON.parse(bigJSON);
  if (performance.now() - start >= 500 || n >= 1 << 22) break;
}

function interrupted(label, fn) {
  const start = performance.now();
  assert.throws(fn, TimeoutError, label);
  const elapsed = performance.now() - start;
  assert.ok(elapsed < 50 + 1000, `${label}: ${elapsed} ms`);
}

const steps = [
  () => interrupted('interpreted', () => { for (;;); }),
  () => {
    %PrepareFunctionForOptimization(sum);
    sum(10);
    %CompileBaseline(sum);
    interrupted('baseline', () => sum(1e15));
  },
  () => {
    %PrepareFunctionForOptimization(sum);
    sum(10);
    %OptimizeFunctionOnNextCall(sum);
    sum(10);
    assert.ok(%ActiveTierIsTurbofan(sum));
    interrupted('optimized', () => sum(1e15));
  },
  () => {
    // On-stack replacement: the loop tiers up while it runs.
    function osr() {
      for (let i = 0; ; i++) {
        if (i === 100) %OptimizeOsr();
      }
    }
    %PrepareFunctionForOptimization(osr);
    interrupted('osr', osr);
  },
  () => interrupted('regexp', () => /(a+)+$/.test('a'.repeat(40) + 'b')),
  () => {
    // One JSON.parse that runs for at least 10 budgets (its size is found
    // at startup) is interrupted inside the parser.
    assert.throws(() => JSON.parse(bigJSON), TimeoutError);
  },
  () => interrupted('JSON.stringify', () => {
    const big = Array.from({ length: 1e5 }, (_, i) => ({ i, s: 'x'.repeat(20) }));
    for (;;) JSON.stringify(big);
  }),
  () => {
    // A local catch in optimized code runs.
    function guarded() {
      try {
        for (;;);
      } catch (err) {
        return err;
      }
    }
    %PrepareFunctionForOptimization(guarded);
    %OptimizeFunctionOnNextCall(guarded);
    assert.ok(guarded() instanceof TimeoutError);
  },
];

(function next(i) {
  if (i === steps.length) return;
  setTimeout(common.mustCall(() => {
    steps[i]();
    next(i + 1);
  }), 1);
})(0);
