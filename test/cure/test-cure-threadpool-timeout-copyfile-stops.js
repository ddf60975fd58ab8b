// Flags: --threadpool-timeout=100
'use strict';
// A copy past its budget stops: libuv's copy loop checks the stop between
// the chunks of its sendfile()/copy_file_range() (the interrupt signal ends
// a chunk early), removes its partial destination as on any error, and the
// callback gets a TimeoutError. Before, the copy ran on, abandoned, until
// the whole file was written.
const common = require('../common');
if (common.isWindows) common.skip('POSIX only');
const assert = require('assert');
const fs = require('fs');
const cure = require('node:cure');
const tmpdir = require('../common/tmpdir');

tmpdir.refresh();
// 16 GiB of holes: seconds to copy, since the copy writes them out.
const src = tmpdir.resolve('sparse');
const dst = tmpdir.resolve('copy');
const fd = fs.openSync(src, 'w');
fs.ftruncateSync(fd, 16 * 2 ** 30);
fs.closeSync(fd);

fs.copyFile(src, dst, common.mustCall((err) => {
  assert.ok(err instanceof TimeoutError, err);
  assert.strictEqual(err.code, 'ERR_THREADPOOL_TIMEOUT');
  assert.strictEqual(err.syscall, 'copyfile');
  // 'none' if the copy ended within the grace period; on a loaded machine
  // the removal of its partial destination may take longer ('unknown').
  assert.ok(['none', 'unknown'].includes(err.outcome), err.outcome);
  waitForTheTask();
}));

// Once the task has really ended, nothing is left of the copy: an
// abandoned copy that ran on would have written the whole file.
function waitForTheTask() {
  if (cure.getThreadpoolStats().abandonedLive > 0) {
    setTimeout(waitForTheTask, 20);
    return;
  }
  assert.strictEqual(fs.existsSync(dst), false);
  fs.unlinkSync(src);
}
