// Flags: --threadpool-timeout=100
'use strict';
// Control: asynchronous zlib works in chunks of 16 KiB of output, one short
// threadpool task each, so inflating a bomb (100 MiB from ~100 KiB) costs
// memory and many tasks, but never one long task: no TimeoutError.
const common = require('../common');
const assert = require('assert');
const zlib = require('zlib');

const size = 100 * 1024 * 1024;
const bomb = zlib.gzipSync(Buffer.alloc(size));
assert.ok(bomb.length < 200 * 1024);

zlib.gunzip(bomb, common.mustSucceed((out) => {
  assert.strictEqual(out.length, size);
  assert.strictEqual(require('node:cure').getTimeoutCounts().threadpool, 0);
}));
