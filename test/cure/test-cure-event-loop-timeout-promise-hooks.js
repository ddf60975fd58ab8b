// Flags: --event-loop-timeout=20
'use strict';
// With promise hooks installed (AsyncLocalStorage, async_hooks), a timeout is
// never thrown into the hook: V8 would report it as an uncaught exception
// instead of passing it to the code that ran too long. A timeout that falls
// due while a long builtin without interrupt checks runs (flattening a huge
// string) is taken at the next check of the callback's own code, or, if the
// callback returns first, dropped with its callback as without hooks.
const common = require('../common');
const assert = require('assert');
const { AsyncLocalStorage, createHook } = require('async_hooks');

process.on('uncaughtException', common.mustNotCall('thrown into a hook'));

const als = new AsyncLocalStorage();
createHook({ before() {}, after() {} }).enable();

// About 0.1 s without an interrupt check: a rope of 2^28 characters made
// flat.
function longBuiltin() {
  return 'x'.repeat(2 ** 28).charCodeAt(3);
}

function settle(promise) {
  return promise.then(() => 'resolved',
                      (err) => {
                        assert.ok(err instanceof TimeoutError, String(err));
                        return 'rejected';
                      });
}

// From a callback: the reactions right after the main module are not timed.
setImmediate(() => als.run({ request: 1 }, common.mustCall(async () => {
  for (let i = 0; i < 4; i++) {
    // The reaction returns right after the builtin, and the after hook runs
    // next. (Resolved today; rejected if the builtin learns to check.)
    await settle(Promise.resolve().then(() => { longBuiltin(); }));

    // The reaction makes a promise right after the builtin (the init hook
    // runs), then loops: the timeout rejects the reaction's promise.
    assert.strictEqual(
      await settle(Promise.resolve().then(() => {
        longBuiltin();
        new Promise(() => {});
        for (;;);
      })),
      'rejected');

    assert.deepStrictEqual(als.getStore(), { request: 1 });
    await new Promise((resolve) => setImmediate(resolve));
  }
})));
