'use strict';
// process.exit() does not wait for a threadpool task that may be abandoned:
// with a read of a FIFO that has no writer still inside its budget (60 s),
// the process exits at once instead of joining the stuck worker for ever
// (stock Node hangs there). Untimed work is still waited for, as upstream.
const common = require('../common');
if (common.isWindows) common.skip('FIFOs are POSIX only');
const assert = require('assert');
const { spawnSync } = require('child_process');
const tmpdir = require('../common/tmpdir');

tmpdir.refresh();
const fifo = tmpdir.resolve('fifo');
if (spawnSync('mkfifo', [fifo]).status !== 0) common.skip('no mkfifo');

const script = `
  require('fs').readFile(${JSON.stringify(fifo)}, () => {});
  // The open() of the FIFO is now blocked on a pool worker.
  setTimeout(() => { console.log('exiting'); process.exit(0); }, 100);
`;
const child = spawnSync(process.execPath,
                        ['--threadpool-timeout=60000', '-e', script],
                        { encoding: 'utf8', timeout: 30000 });
assert.strictEqual(child.error, undefined,
                   `process.exit() hung: ${child.error}`);
assert.strictEqual(child.stdout.trim(), 'exiting');
assert.strictEqual(child.status, 0, child.stderr);
