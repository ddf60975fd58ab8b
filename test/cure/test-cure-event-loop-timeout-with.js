// Flags: --event-loop-timeout=50
'use strict';
// cure.withEventLoopTimeout(ms, fn) wraps a handler: each call runs as
// runWithEventLoopTimeout(ms, ...) would, with the wrapper's `this` and
// arguments, and returns what fn returns. The wrapper keeps fn's name and
// length (frameworks tell error handlers by their length).
const common = require('../common');
const assert = require('assert');
const { withEventLoopTimeout } = require('node:cure');

function spin(ms) {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

// No budget: legitimately long work (an admin export) runs to its end.
const exportAll = withEventLoopTimeout(0, function exportAll(a, b, c) {
  spin(200);
  return [this, a, b, c];
});
assert.strictEqual(exportAll.name, 'exportAll');
assert.strictEqual(exportAll.length, 3);
const errorHandler = withEventLoopTimeout(0, (err, req, res, next) => {});
assert.strictEqual(errorHandler.length, 4);

// A budget of its own, longer than the default.
const slower = withEventLoopTimeout(300, async function slower() {
  const start = Date.now();
  await null;  // the continuation keeps the wrapper's budget
  try {
    for (;;);
  } catch (err) {
    assert.ok(err instanceof TimeoutError);
    return Date.now() - start;
  }
});

setImmediate(common.mustCall(() => {
  const self = {};
  assert.deepStrictEqual(exportAll.call(self, 1, 2, 3), [self, 1, 2, 3]);
  slower().then(common.mustCall((elapsed) => {
    assert.ok(elapsed >= 300, `interrupted after ${elapsed} ms`);
  }));
}));

assert.throws(() => withEventLoopTimeout(-1, () => {}),
              { code: 'ERR_OUT_OF_RANGE' });
assert.throws(() => withEventLoopTimeout(0, 'f'),
              { code: 'ERR_INVALID_ARG_TYPE' });
