'use strict';
// --event-loop-timeout-action and --threadpool-timeout-action take "throw"
// (the default) or "report", on the command line and in NODE_OPTIONS;
// anything else stops startup with exit code 9. node:cure reads and
// changes them.
const common = require('../common');
const assert = require('assert');
const { spawnSync } = require('child_process');
const cure = require('node:cure');
const { Worker } = require('worker_threads');

for (const option of ['--event-loop-timeout-action',
                      '--threadpool-timeout-action']) {
  for (const value of ['bogus', 'Throw', 'report ', '1']) {
    const r = spawnSync(process.execPath, [`${option}=${value}`, '-e', '0']);
    assert.strictEqual(r.status, 9, `${option}=${value}: ${r.stderr}`);
    assert.match(String(r.stderr),
                 new RegExp(`${option} must be "throw" or "report"`));
  }
  const r = spawnSync(process.execPath, [
    '-p',
    'const c = require("node:cure"); ' +
    'c.getEventLoopTimeoutAction() + " " + c.getThreadpoolTimeoutAction()',
  ], { env: { ...process.env, NODE_OPTIONS: `${option}=report` } });
  assert.strictEqual(r.status, 0, String(r.stderr));
  assert.strictEqual(String(r.stdout).trim(),
                     option === '--event-loop-timeout-action' ?
                       'report throw' : 'throw report');
}

assert.strictEqual(cure.getEventLoopTimeoutAction(), 'throw');
assert.strictEqual(cure.getThreadpoolTimeoutAction(), 'throw');
for (const bad of ['stop', '', undefined, 1]) {
  assert.throws(() => cure.setEventLoopTimeoutAction(bad),
                { code: 'ERR_INVALID_ARG_VALUE' });
  assert.throws(() => cure.setThreadpoolTimeoutAction(bad),
                { code: 'ERR_INVALID_ARG_VALUE' });
}
cure.setThreadpoolTimeoutAction('report');
assert.strictEqual(cure.getThreadpoolTimeoutAction(), 'report');
cure.setThreadpoolTimeoutAction('throw');

// The pool is the process's: a worker may not change its action, but may
// change its own loop's.
new Worker(`
  const assert = require('assert');
  const cure = require('node:cure');
  assert.throws(() => cure.setThreadpoolTimeoutAction('report'),
                { code: 'ERR_WORKER_UNSUPPORTED_OPERATION' });
  cure.setEventLoopTimeoutAction('report');
  assert.strictEqual(cure.getEventLoopTimeoutAction(), 'report');
`, { eval: true }).on('exit', common.mustCall((code) => {
  assert.strictEqual(code, 0);
  assert.strictEqual(cure.getEventLoopTimeoutAction(), 'throw');
}));

// Back to throwing at runtime: the next callback past its budget gets its
// TimeoutError.
cure.setEventLoopTimeoutAction('report');
cure.setEventLoopTimeout(50);
cure.setEventLoopTimeoutAction('throw');
setImmediate(common.mustCall(() => {
  assert.throws(() => { for (;;); }, TimeoutError);
  cure.setEventLoopTimeout(0);
}));
