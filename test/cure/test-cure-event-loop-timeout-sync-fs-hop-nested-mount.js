'use strict';
// Which mount decides whether a synchronous call hops: the longest mount
// point that prefixes the path. In a private mount namespace the child
// mounts a tmpfs (declared hang-prone through UV_FS_HANG_PRONE_TYPES) with
// a ramfs mounted inside it and a tmpfs inside that: calls on the outer
// tmpfs and on the innermost one hop, calls on the ramfs between them run
// in place, and so do calls beside the outer mount. Each hop is counted by
// getThreadpoolStats().hopped. Then a hundred more mounts appear inside the
// ramfs, the last a tmpfs: once the mount watcher has read the table again
// that one hops too, and the other answers stay.
const common = require('../common');
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const tmpdir = require('../common/tmpdir');

if (process.argv[2] !== 'child') {
  if (!common.isLinux) common.skip('Linux only');
  if (process.getuid() !== 0) common.skip('needs root to mount');
  tmpdir.refresh();
  const probe = spawnSync('unshare', ['-m', '--propagation', 'private',
                                      'true']);
  if (probe.error || probe.status !== 0) {
    common.skip('no private mount namespace (unshare -m)');
  }
  const child = spawnSync('unshare', [
    '-m', '--propagation', 'private',
    process.execPath, '--event-loop-timeout=60000', __filename, 'child',
    tmpdir.path,
  ], {
    env: { ...process.env, UV_FS_HANG_PRONE_TYPES: 'tmpfs' },
    encoding: 'utf8',
  });
  process.stdout.write(child.stdout);
  assert.strictEqual(child.status, 0, `${child.stderr}\nsignal ${child.signal}`);
  return;
}

const { getThreadpoolStats, runWithEventLoopTimeout } = require('node:cure');
const { execFileSync } = require('child_process');

const base = process.argv[3];
const outer = path.join(base, 'outer');     // tmpfs: hang-prone
const middle = path.join(outer, 'middle');  // ramfs: not
const inner = path.join(middle, 'inner');   // tmpfs again
const beside = path.join(base, 'beside');   // the test directory's own

function mount(type, dir) {
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', type, 'nodecure', dir]);
}
mount('tmpfs', outer);
mount('ramfs', middle);
mount('tmpfs', inner);
fs.mkdirSync(beside);
for (const dir of [outer, middle, inner, beside]) {
  fs.writeFileSync(path.join(dir, 'f'), dir);
}

// Hops made by statSync() and readFileSync() of dir/f in a budgeted callback.
function hopsFor(dir) {
  const before = getThreadpoolStats().hopped;
  runWithEventLoopTimeout(60000, () => {
    assert.ok(fs.statSync(path.join(dir, 'f')).isFile());
    assert.strictEqual(fs.readFileSync(path.join(dir, 'f'), 'utf8'), dir);
  });
  return getThreadpoolStats().hopped - before;
}

function check(label) {
  // statSync, then readFileSync's open, fstat, read(s) and close.
  assert.ok(hopsFor(outer) >= 5, `${label}: outer tmpfs hops`);
  assert.strictEqual(hopsFor(middle), 0, `${label}: ramfs inside it`);
  assert.ok(hopsFor(inner) >= 5, `${label}: tmpfs inside the ramfs`);
  assert.strictEqual(hopsFor(beside), 0, `${label}: beside the mount`);
}

setImmediate(common.mustCall(() => {
  check('three mounts');
  // A hundred more inside the ramfs, the last one a tmpfs. Until the watcher
  // has read the table again, the ramfs decides for it (in place): wait for
  // its first hop.
  for (let i = 0; i < 99; i++) mount('ramfs', path.join(middle, `m${i}`));
  const last = path.join(middle, 'm99');
  mount('tmpfs', last);
  fs.writeFileSync(path.join(last, 'f'), last);
  fs.writeFileSync(path.join(middle, 'm0', 'f'), path.join(middle, 'm0'));
  (function wait() {
    if (hopsFor(last) === 0) return setImmediate(wait);
    setImmediate(common.mustCall(() => {
      check('a hundred more');
      assert.strictEqual(hopsFor(path.join(middle, 'm0')), 0,
                         'a ramfs among a hundred');
      console.log('hops decided by the innermost mount');
    }));
  })();
}));
