'use strict';
// --event-loop-timeout takes 0 (off) or a positive integer of milliseconds,
// on the command line and in NODE_OPTIONS; anything else stops startup.
require('../common');
const assert = require('assert');
const { spawnSync } = require('child_process');

const bad = ['abc', '-1', '1.5', '0x10', '1e3', ' 5', '2147483648',
             '99999999999999999999'];
for (const value of bad) {
  const r = spawnSync(process.execPath,
                      [`--event-loop-timeout=${value}`, '-e', '0']);
  assert.strictEqual(r.status, 9, `${JSON.stringify(value)}: ${r.stderr}`);
  assert.match(String(r.stderr),
               /--event-loop-timeout must be 0 \(off\) or a positive integer/);
}
{
  // An empty value is refused by Node's option parser itself.
  const r = spawnSync(process.execPath, ['--event-loop-timeout=', '-e', '0']);
  assert.strictEqual(r.status, 9, String(r.stderr));
  assert.match(String(r.stderr), /--event-loop-timeout= requires an argument/);
}
{
  const r = spawnSync(process.execPath, ['-e', '0'], {
    env: { ...process.env, NODE_OPTIONS: '--event-loop-timeout=soon' },
  });
  assert.strictEqual(r.status, 9, String(r.stderr));
  assert.match(String(r.stderr), /--event-loop-timeout must be/);
}

// fs.writeSync: process.stdout.write() would queue a nextTick callback,
// which a budget of 1 ms could interrupt on a loaded machine.
const read = 'require("fs").writeSync(1, String(' +
             'require("node:cure").getEventLoopTimeout()))';
for (const value of ['0', '1', '100', '2147483647']) {
  const r = spawnSync(process.execPath,
                      [`--event-loop-timeout=${value}`, '-e', read]);
  assert.strictEqual(r.status, 0, String(r.stderr));
  assert.strictEqual(String(r.stdout), value);
}
{
  const r = spawnSync(process.execPath, ['-e', read], {
    env: { ...process.env, NODE_OPTIONS: '--event-loop-timeout=250' },
  });
  assert.strictEqual(r.status, 0, String(r.stderr));
  assert.strictEqual(String(r.stdout), '250');
}
{
  // Off by default.
  const r = spawnSync(process.execPath, ['-e', read]);
  assert.strictEqual(String(r.stdout), '0');
}
