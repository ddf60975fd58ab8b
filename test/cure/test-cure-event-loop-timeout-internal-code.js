// Flags: --event-loop-timeout=50
'use strict';
// A TimeoutError that falls due while Node's own JavaScript runs is thrown
// in the application's code, once Node's has returned to it, not half way
// through Node's: `new vm.Script()` compiles a large source (V8's parser
// does not check for interrupts, so the compile overruns the budget), and
// the timeout, due when the compile returns into node:vm, is thrown at the
// next check in this file, after the constructor finished its own work.
// (Without this it was thrown inside node:internal/vm's
// registerImportModuleDynamically(), the Script half set up and lost.)
// Node's code is only waited for a little: a long loop of its own (here
// util.inspect() of millions of elements) is still interrupted.
const common = require('../common');
const assert = require('assert');
const util = require('util');
const vm = require('vm');
const { TimeoutError } = require('node:cure');
const { assertInterrupted, runEachInACallback } = require('../common/cure');

const T = 50;
// About half a second to compile on a 2-core machine of 2026.
const source = 'a = 1;\n'.repeat(2e6);
const big = Array.from({ length: 5e6 }, (_, i) => i);

function inThisFile() {}

runEachInACallback([
  common.mustCall(() => {
    let script;
    assert.throws(() => {
      script = new vm.Script(source);
      inThisFile();  // The first check in this file's own code.
    }, (err) => {
      assert.ok(err instanceof TimeoutError, String(err));
      assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
      const top = err.stack.split('\n')[1];
      assert.match(top, /at inThisFile \(.*test-cure-event-loop-timeout-internal-code\.js/,
                   err.stack);
      return true;
    });
    assert.ok(script instanceof vm.Script);
  }),
  common.mustCall(() => {
    assertInterrupted('util.inspect() of 5M elements',
                      () => util.inspect(big, { maxArrayLength: Infinity }),
                      T);
  }),
]);
