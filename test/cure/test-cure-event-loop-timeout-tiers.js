// Flags: --event-loop-timeout=50 --allow-natives-syntax
'use strict';
// JS loops are interrupted in every tier: interpreted, baseline (Sparkplug),
// Maglev (where V8 has it), optimized (TurboFan) and on-stack-replaced
// code; so are backtracking regexps, JSON.parse and JSON.stringify, which
// poll for interrupts, a WebAssembly loop and an Atomics.wait() that nobody
// wakes.
const common = require('../common');
const assert = require('assert');

function sum(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s += i;
  return s;
}

// Small-integer arithmetic only, so that optimized code trained on small
// inputs never deoptimizes on a long run (2 ** 30 iterations).
function xorAll(n) {
  let x = 0;
  for (let i = 0; i < n; i++) x ^= i;
  return x;
}

// (module (func (export "loop") (loop (br 0))))
const wasmLoop = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,  // magic, version 1
  0x01, 0x04, 0x01, 0x60, 0x00, 0x00,  // types: () -> ()
  0x03, 0x02, 0x01, 0x00,  // functions: one of type 0
  0x07, 0x08, 0x01, 0x04, 0x6c, 0x6f, 0x6f, 0x70, 0x00, 0x00,  // export "loop"
  0x0a, 0x09, 0x01, 0x07, 0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b,  // code
]))).exports.loop;

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
    %PrepareFunctionForOptimization(xorAll);
    xorAll(10);
    %OptimizeFunctionOnNextCall(xorAll);
    xorAll(10);
    assert.ok(%ActiveTierIsTurbofan(xorAll));
    interrupted('optimized', () => xorAll(2 ** 30));
    // Interrupted in TurboFan's code, not after a deoptimization.
    assert.ok(%ActiveTierIsTurbofan(xorAll));
  },
  () => {
    // Maglev (compiled into Node.js 24's V8, not 22's): a loop in its code
    // is interrupted, and the function's own finally and catch run.
    if (!process.config.variables.v8_enable_maglev) return;
    function xorGuarded(n) {
      let x = 0;
      try {
        try {
          for (let i = 0; i < n; i++) x ^= i;
        } finally {
          x = -1;
        }
      } catch (err) {
        return [x, err];
      }
      return [x];
    }
    %PrepareFunctionForOptimization(xorGuarded);
    xorGuarded(10);
    %OptimizeMaglevOnNextCall(xorGuarded);
    xorGuarded(10);
    assert.ok(%ActiveTierIsMaglev(xorGuarded));
    const start = performance.now();
    const [x, err] = xorGuarded(2 ** 52);
    const elapsed = performance.now() - start;
    assert.strictEqual(x, -1);
    assert.ok(err instanceof TimeoutError, String(err));
    assert.ok(elapsed < 50 + 1000, `maglev: ${elapsed} ms`);
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
  () => interrupted('WebAssembly', wasmLoop),
  () => interrupted('Atomics.wait', () => {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
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
