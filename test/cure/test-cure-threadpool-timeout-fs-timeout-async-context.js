// Flags: --threadpool-timeout=50
'use strict';
// An fs read that runs past --threadpool-timeout (of a FIFO nobody writes
// to) is published on cure:threadpool-timeout and fails with its
// TimeoutError in the async context it was made in: the subscriber and the
// callback (fs.read()) or the code after the rejected await
// (FileHandle.read()) see its AsyncLocalStorage store. The request keeps
// its Buffer in its request object (FSReqBase::PinBuffer()); on Node.js 24,
// where the request's AsyncContextFrame is an internal field of that
// object too, the Buffer must not take the frame's place.
const common = require('../common');
if (common.isWindows) common.skip('FIFOs are POSIX only');
const assert = require('assert');
const dc = require('diagnostics_channel');
const fs = require('fs');
const { spawnSync } = require('child_process');
const { AsyncLocalStorage } = require('async_hooks');
const tmpdir = require('../common/tmpdir');

tmpdir.refresh();
// One FIFO a read: a timed-out request marks its resource slow.
const fifos = ['callback', 'filehandle'].map((name) => {
  const fifo = tmpdir.resolve(name);
  if (spawnSync('mkfifo', [fifo]).status !== 0) common.skip('no mkfifo');
  return fifo;
});

const client = new AsyncLocalStorage();

const published = [];
dc.subscribe('cure:threadpool-timeout', (message) => {
  assert.strictEqual(message.kind, 'fs');
  assert.strictEqual(message.syscall, 'read');
  assert.strictEqual(message.code, 'ERR_THREADPOOL_TIMEOUT');
  assert.strictEqual(message.budget, 50);
  published.push(client.getStore());
});

function assertReadTimeout(err) {
  assert.ok(err instanceof TimeoutError, String(err));
  assert.strictEqual(err.code, 'ERR_THREADPOOL_TIMEOUT');
  assert.strictEqual(err.syscall, 'read');
  assert.match(err.message, /budget of 50 ms/);
  return true;
}

const fd = fs.openSync(fifos[0], 'r+');  // r+: the open does not wait.
const readWithCallback = new Promise((resolve) => {
  client.run('callback client', () => {
    fs.read(fd, Buffer.alloc(16), 0, 16, null, common.mustCall((err) => {
      assertReadTimeout(err);
      resolve(client.getStore());
    }));
  });
});

const readWithFileHandle = client.run('filehandle client', async () => {
  const fh = await fs.promises.open(fifos[1], 'r+');
  try {
    await assert.rejects(fh.read(Buffer.alloc(16), 0, 16, null),
                         assertReadTimeout);
    return client.getStore();
  } finally {
    await fh.close();
  }
});

Promise.all([readWithCallback, readWithFileHandle])
  .then(common.mustCall((stores) => {
    fs.closeSync(fd);
    assert.deepStrictEqual(stores, ['callback client', 'filehandle client']);
    // Published before each request's callback, in its context.
    assert.deepStrictEqual(published.sort(),
                           ['callback client', 'filehandle client']);
  }));
