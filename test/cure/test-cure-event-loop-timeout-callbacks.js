// Flags: --event-loop-timeout=100
'use strict';
// Each kind of callback gets its own budget and a catchable TimeoutError at
// the point where it runs past it.
const common = require('../common');
const assert = require('assert');
const EventEmitter = require('events');
const fs = require('fs');

const T = 100;

// Runs until interrupted (or fails after 10 s); returns the time it ran.
function poisoned(label) {
  const start = performance.now();
  try {
    while (performance.now() - start < 10_000);
  } catch (err) {
    const elapsed = performance.now() - start;
    assert.ok(err instanceof TimeoutError, `${label}: ${err}`);
    assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
    assert.match(err.message, /budget of 100 ms/);
    assert.match(err.stack, /^TimeoutError: /);
    assert.match(err.stack, /at poisoned /);
    // Counted from the callback's start, a moment before this function's.
    assert.ok(elapsed <= T + 1000, `${label}: interrupted after ${elapsed} ms`);
    return elapsed;
  }
  assert.fail(`${label}: not interrupted`);
}

const cases = {
  setTimeout: (done) => setTimeout(() => done(poisoned('setTimeout')), 1),
  setInterval: (done) => {
    const interval = setInterval(() => {
      clearInterval(interval);
      done(poisoned('setInterval'));
    }, 1);
  },
  setImmediate: (done) => setImmediate(() => done(poisoned('setImmediate'))),
  nextTick: (done) => process.nextTick(() => done(poisoned('nextTick'))),
  then: (done) => Promise.resolve().then(() => done(poisoned('then'))),
  listener: (done) => {
    const emitter = new EventEmitter();
    emitter.on('event', () => done(poisoned('listener')));
    setTimeout(() => emitter.emit('event'), 1);
  },
  fs: (done) => fs.stat(__filename, common.mustSucceed(() => {
    done(poisoned('fs'));
  })),
};

(async () => {
  for (const [name, run] of Object.entries(cases)) {
    const elapsed = await new Promise(run);
    console.log(`${name}: interrupted after ${elapsed.toFixed(1)} ms`);
  }
  // The loop goes on afterwards.
  setTimeout(common.mustCall(), 1);
})().then(common.mustCall());
