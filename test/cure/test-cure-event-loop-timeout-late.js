// Flags: --event-loop-timeout=20
'use strict';
// A callback that returns just as its budget runs out must not have its
// TimeoutError thrown into the code Node.js runs after it in the same turn
// (async_hooks' after, the timer and immediate lists, the tick queue): the
// error reaches the callback or no one. Hundreds of callbacks of each kind
// end around the budget, with async_hooks on; an error thrown into Node's
// bookkeeping would surface as an uncaught exception or as a corrupted
// async id stack (a fatal error).
const common = require('../common');
const async_hooks = require('async_hooks');

async_hooks.createHook({ before() {}, after() {} }).enable();

const T = 20;

// Runs for about `ms`, keeping a TimeoutError that arrives in time to itself.
function spinAbout(ms) {
  const end = performance.now() + ms;
  try {
    while (performance.now() < end);
  } catch (err) {
    if (!(err instanceof TimeoutError)) throw err;
  }
}

const done = common.mustCall();
let left = 3 * 100;
function next() {
  if (--left === 0) {
    done();
    return;
  }
  // The next callback is scheduled first, so that the end of this one is
  // the application's code only.
  const ms = T - 1 + Math.random() * 2;
  switch (left % 3) {
    case 0: setTimeout(() => { next(); spinAbout(ms); }, 0); break;
    case 1: setImmediate(() => { next(); spinAbout(ms); }); break;
    default: process.nextTick(() => { next(); spinAbout(ms); });
  }
}
setTimeout(next, 1);
