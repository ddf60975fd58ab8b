// Flags: --event-loop-timeout=50
'use strict';
// A cure:event-loop-timeout message is published in the async context of
// the callback that ran too long (doc/api/cure.md: "in that callback's
// asynchronous context"), after it returned: when the overrun happened
// inside a synchronous als.run('inner', ...) of that callback, which has
// ended by then, the subscriber sees the callback's store, 'outer', as
// does the callback's own code after that run. So with both actions: the
// TimeoutError thrown out of the inner run ('throw'), and the report of a
// callback that ran on ('report').
// A callback that JS runs (a timer) and one that C++ runs (an fs callback,
// an AsyncWrap). With AsyncContextFrame (Node.js 22's
// --experimental-async-context-frame, the default of Node.js 24), the frame
// must not be taken from where the callback was at the overrun: this file
// runs itself again in a child with the other setting.
const common = require('../common');
const assert = require('assert');
const fs = require('fs');
const { spawnSyncAndExitWithoutError } = require('../common/child_process');
const dc = require('diagnostics_channel');
const { AsyncLocalStorage } = require('async_hooks');
const { setEventLoopTimeoutAction } = require('node:cure');

const client = new AsyncLocalStorage();

function loopInInnerRun() {
  for (;;);
}

function runOnInInnerRun() {
  const end = Date.now() + 200;
  while (Date.now() < end);
  return 'ran to its end';
}

// What the callbacks saw: the callback's own store after the inner run, and
// the error it caught ('throw').
const seen = [];

const messages = [];
dc.subscribe('cure:event-loop-timeout', common.mustCall((message) => {
  assert.ok(message.error instanceof TimeoutError);
  assert.strictEqual(message.error.code, 'ERR_EVENT_LOOP_TIMEOUT');
  assert.strictEqual(message.budget, 50);
  messages.push({ ...message, store: client.getStore() });
}, 3));

function inOuterContext(fn) {
  return new Promise((resolve) => {
    client.run('outer', () => setTimeout(() => resolve(fn()), 1));
  });
}

function inOuterNativeCallback(fn) {
  return new Promise((resolve) => {
    client.run('outer', () => fs.stat(__filename, common.mustSucceed(() => {
      resolve(fn());
    })));
  });
}

function throwFromInnerRun() {
  let caught;
  try {
    client.run('inner', loopInInnerRun);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof TimeoutError, String(caught));
  assert.match(caught.stack, /at loopInInnerRun /);
  seen.push({ error: caught, store: client.getStore() });
}

(async () => {
  // 'throw': thrown in the inner run, caught in the callback's code.
  setEventLoopTimeoutAction('throw');
  await inOuterContext(throwFromInnerRun);
  await new Promise((resolve) => setImmediate(resolve));
  // The same in a callback that C++ runs.
  await inOuterNativeCallback(throwFromInnerRun);
  await new Promise((resolve) => setImmediate(resolve));

  // 'report': the callback runs on to its end; the report's error is made
  // where it was, in the inner run.
  setEventLoopTimeoutAction('report');
  process.once('warning', common.mustCall((warning) => {
    assert.strictEqual(warning.name, 'TimeoutWarning');
    assert.match(warning.detail, /at runOnInInnerRun /);
  }));
  await inOuterContext(() => {
    assert.strictEqual(client.run('inner', runOnInInnerRun),
                       'ran to its end');
    seen.push({ store: client.getStore() });
  });
  await new Promise((resolve) => setImmediate(resolve));
})().then(common.mustCall(() => {
  assert.strictEqual(messages.length, 3);
  assert.deepStrictEqual(seen.map((s) => s.store),
                         ['outer', 'outer', 'outer']);

  const [thrown, thrownNative, reported] = messages;
  assert.strictEqual(thrown.action, 'throw');
  assert.strictEqual(thrown.error, seen[0].error);
  assert.strictEqual(thrown.store, 'outer');
  assert.strictEqual(thrownNative.action, 'throw');
  assert.strictEqual(thrownNative.error, seen[1].error);
  assert.strictEqual(thrownNative.store, 'outer');

  assert.strictEqual(reported.action, 'report');
  assert.match(reported.error.stack, /at runOnInInnerRun /);
  assert.ok(reported.elapsed >= 50, `elapsed ${reported.elapsed}`);
  assert.strictEqual(reported.store, 'outer');
}));

// The other AsyncContextFrame setting, in a child.
if (process.argv[2] !== 'child') {
  const flag =
    process.allowedNodeEnvironmentFlags.has('--async-context-frame') ?
      '--no-async-context-frame' :  // Node.js 24: on by default
      '--experimental-async-context-frame';
  spawnSyncAndExitWithoutError(process.execPath, [
    '--event-loop-timeout=50', flag, __filename, 'child',
  ]);
}
