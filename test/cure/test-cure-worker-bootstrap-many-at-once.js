'use strict';
// Workers started eight at a time all bootstrap and exit normally.
//
// Under AddressSanitizer with stack-use-after-return detection (make
// test-asan), the locals of a thread's first function live on a fake stack
// elsewhere in memory. Node's Worker took its stack limit from the address
// of one, so with a few threads starting and ending at once a worker's
// limit could lie above its real stack: its first compile (the primordials)
// failed as a stack overflow before the worker had a process object, and
// the uncaught error crashed the process (SIGSEGV in
// PrincipalRealm::process_object()). The stack top is now the frame's own
// address (patch src-a-worker-s-stack-limit-...). A release build passes
// either way; under ASan this crashed in every run of 200 workers 8 at a
// time before the fix.
const common = require('../common');
const assert = require('assert');
const { Worker } = require('worker_threads');

const total = 96;
const atOnce = 8;
let started = 0;

function start() {
  started++;
  const worker = new Worker('require("worker_threads").parentPort' +
                            '.postMessage(typeof process.versions.node)',
                            { eval: true });
  worker.on('message', common.mustCall((type) => {
    assert.strictEqual(type, 'string');
  }));
  worker.on('error', common.mustNotCall());
  worker.on('exit', common.mustCall((code) => {
    assert.strictEqual(code, 0);
    if (started < total) start();
  }));
}

for (let i = 0; i < atOnce; i++) start();
