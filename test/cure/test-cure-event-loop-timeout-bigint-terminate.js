'use strict';
// worker.terminate() during a long BigInt operation of the runtime stops it
// with the event-loop budget on as without it. Inside a BigIntScope, with
// a TimeoutInterrupt delegate installed, the library's interrupt check used
// to consume the termination request before nodecure looked for what was
// due: the termination was lost and the operation (seconds) ran to its end,
// posting 'done'. The budget here is far longer than the operation, so only
// the termination can stop it; the same worker without the option is the
// reference.
const common = require('../common');
const assert = require('assert');
const { Worker } = require('worker_threads');

// 7n ** 10,000,000n: the library's FFT multiplications, seconds on any
// machine; the worker posts 'done' only if it was not stopped.
const source = `
  const { parentPort } = require('worker_threads');
  parentPort.postMessage('start');
  const x = 7n ** 10_000_000n;
  parentPort.postMessage('done ' + (x & 1n));
`;

function run(execArgv, next) {
  const w = new Worker(source, { eval: true, execArgv });
  w.on('message', common.mustCall((m) => {
    assert.strictEqual(m, 'start', `${execArgv}: the operation ran to its end`);
    setTimeout(() => w.terminate(), 100);
  }));
  w.on('error', common.mustNotCall());
  w.on('exit', common.mustCall((code) => {
    assert.strictEqual(code, 1);
    next();
  }));
}

run([], common.mustCall(() => {
  run(['--event-loop-timeout=600000'], common.mustCall());
}));
