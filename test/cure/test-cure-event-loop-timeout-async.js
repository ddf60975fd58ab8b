// Flags: --event-loop-timeout=50
'use strict';
// In an async function the TimeoutError rejects its promise; finally blocks
// run and generators unwind as for any throw.
const common = require('../common');
const assert = require('assert');

async function poisoned() {
  await null;
  for (;;);
}

let finallyRan = false;
function* generator() {
  try {
    yield 1;
    for (;;);
  } finally {
    finallyRan = true;
  }
}

// From a callback: promise reactions that run right after the main module,
// before the first callback, are initialisation and not bounded.
setTimeout(common.mustCall(() => {
  poisoned().then(common.mustNotCall(), common.mustCall((err) => {
    assert.ok(err instanceof TimeoutError);
    assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
    setTimeout(common.mustCall(() => {
      const it = generator();
      it.next();
      assert.throws(() => it.next(), TimeoutError);
      assert.ok(finallyRan);
      assert.deepStrictEqual(it.next(), { value: undefined, done: true });
    }), 1);
  }));
}), 1);
