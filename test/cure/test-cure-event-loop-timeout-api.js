'use strict';
// node:cure changes the budget at runtime and runs a function under a
// budget of its own, or none (legitimately long work).
const common = require('../common');
const assert = require('assert');
const cure = require('node:cure');

function spin(ms) {
  const start = performance.now();
  while (performance.now() - start < ms);
}

assert.strictEqual(cure.getEventLoopTimeout(), 0);
for (const bad of [-1, 1.5, 2 ** 31, '10', null]) {
  assert.throws(() => cure.setEventLoopTimeout(bad),
                { code: /ERR_OUT_OF_RANGE|ERR_INVALID_ARG_TYPE/ });
}
assert.throws(() => cure.runWithEventLoopTimeout(0, 'fn'),
              { code: 'ERR_INVALID_ARG_TYPE' });

// Off: a long callback runs to its end.
setTimeout(common.mustCall(() => {
  spin(150);
  cure.setEventLoopTimeout(50);
  assert.strictEqual(cure.getEventLoopTimeout(), 50);

  setTimeout(common.mustCall(() => {
    // Opted out.
    assert.strictEqual(cure.runWithEventLoopTimeout(0, spin, 200), undefined);
    // A budget of its own, larger than the default.
    cure.runWithEventLoopTimeout(1000, spin, 150);
    assert.strictEqual(cure.getTimeoutCounts().eventLoop, 0);

    setTimeout(common.mustCall(() => {
      // Back to the default once the callback ends.
      assert.throws(() => spin(10_000), TimeoutError);
      assert.strictEqual(cure.getTimeoutCounts().eventLoop, 1);
      cure.setEventLoopTimeout(0);
      setTimeout(common.mustCall(() => spin(150)), 1);
    }), 1);
  }), 1);
}), 1);
