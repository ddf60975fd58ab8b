// Flags: --event-loop-timeout=50
'use strict';
// Each worker_thread has a watchdog of its own, and termination still wins:
// worker.terminate() stops a worker inside a long callback, and a vm timeout
// inside a callback with a larger budget is still ERR_SCRIPT_EXECUTION_TIMEOUT.
const common = require('../common');
const assert = require('assert');
const { Worker } = require('worker_threads');
const vm = require('vm');

const worker = new Worker(`
  const { parentPort } = require('worker_threads');
  setTimeout(() => {
    try {
      for (;;);
    } catch (err) {
      parentPort.postMessage([err instanceof TimeoutError, err.code]);
    }
  }, 1);
`, { eval: true });
worker.on('message', common.mustCall((message) => {
  assert.deepStrictEqual(message, [true, 'ERR_EVENT_LOOP_TIMEOUT']);
}));
worker.on('exit', common.mustCall((code) => {
  assert.strictEqual(code, 0);

  const busy = new Worker(`
    const { parentPort } = require('worker_threads');
    setTimeout(() => {
      require('node:cure').runWithEventLoopTimeout(0, () => {
        parentPort.postMessage('spinning');
        for (;;);
      });
    }, 1);
  `, { eval: true });
  busy.on('message', common.mustCall(() => busy.terminate()));
  busy.on('exit', common.mustCall((code) => assert.strictEqual(code, 1)));
}));

setTimeout(common.mustCall(() => {
  require('node:cure').runWithEventLoopTimeout(5000, () => {
    assert.throws(() => vm.runInNewContext('for (;;);', {}, { timeout: 20 }),
                  { code: 'ERR_SCRIPT_EXECUTION_TIMEOUT' });
  });
}), 1);
