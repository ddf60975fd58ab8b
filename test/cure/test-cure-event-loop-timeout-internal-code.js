// Flags: --event-loop-timeout=50
'use strict';
// A TimeoutError that falls due while Node's own JavaScript runs is thrown
// in the application's code, once Node's has returned to it, not half way
// through Node's: Buffer.concat() copies 256 MiB in one native call that
// does not check for interrupts (the copy overruns the budget), and the
// timeout, due when the copy returns into node:buffer, is thrown at the
// next check in this file, after concat() finished its own work and
// returned the whole buffer. (This test once used new vm.Script() of a
// large source, whose compilation did not check for interrupts; the
// parser now polls, and a compilation that overruns the budget fails with
// the TimeoutError, leaving no Script: test-cure-event-loop-timeout-compile.js.)
// Node's code is only waited for a little: a long loop of its own (here
// util.inspect() of millions of elements) is still interrupted.
const common = require('../common');
const assert = require('assert');
const util = require('util');
const { TimeoutError } = require('node:cure');
const { assertInterrupted, runEachInACallback } = require('../common/cure');

const T = 50;
// Made while the main module runs (no budget): two halves of 128 MiB, whose
// copy takes 100 to 300 ms on a 2-core machine of 2026.
const halves = [Buffer.alloc(2 ** 27, 1), Buffer.alloc(2 ** 27, 2)];
const big = Array.from({ length: 5e6 }, (_, i) => i);

function inThisFile() {}

runEachInACallback([
  common.mustCall(() => {
    let whole;
    assert.throws(() => {
      whole = Buffer.concat(halves);
      inThisFile();  // The first check in this file's own code.
    }, (err) => {
      assert.ok(err instanceof TimeoutError, String(err));
      assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
      const top = err.stack.split('\n')[1];
      assert.match(top, /at inThisFile \(.*test-cure-event-loop-timeout-internal-code\.js/,
                   err.stack);
      return true;
    });
    assert.strictEqual(whole.length, 2 ** 28);
    assert.strictEqual(whole[0], 1);
    assert.strictEqual(whole[2 ** 28 - 1], 2);
  }),
  common.mustCall(() => {
    assertInterrupted('util.inspect() of 5M elements',
                      () => util.inspect(big, { maxArrayLength: Infinity }),
                      T);
  }),
]);
