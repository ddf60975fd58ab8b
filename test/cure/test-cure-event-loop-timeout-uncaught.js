'use strict';
// An uncaught TimeoutError is an uncaught exception: 'uncaughtException'
// gets it, and without a handler the process prints where the poisoned code
// was and exits with code 1.
const common = require('../common');
const assert = require('assert');
const { spawnSync } = require('child_process');

if (process.argv[2] === 'child') {
  setTimeout(function poisonedTimer() {
    for (;;);
  }, 1);
  return;
}
if (process.argv[2] === 'handler') {
  process.on('uncaughtException', common.mustCall((err) => {
    assert.ok(err instanceof TimeoutError);
    process.stdout.write('caught');
  }));
  setTimeout(function poisonedTimer() {
    for (;;);
  }, 1);
  return;
}

{
  const r = spawnSync(process.execPath,
                      ['--event-loop-timeout=50', __filename, 'child']);
  assert.strictEqual(r.status, 1);
  const stderr = String(r.stderr);
  assert.match(stderr, /TimeoutError: Callback ran longer than its budget/);
  assert.match(stderr, /at Timeout\.poisonedTimer/);
  assert.match(stderr, /code: 'ERR_EVENT_LOOP_TIMEOUT'/);
}
{
  const r = spawnSync(process.execPath,
                      ['--event-loop-timeout=50', __filename, 'handler']);
  assert.strictEqual(r.status, 0, String(r.stderr));
  assert.strictEqual(String(r.stdout), 'caught');
}
