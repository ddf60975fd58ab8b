// Flags: --threadpool-timeout=1000
'use strict';
// With --threadpool-timeout, an fs read or write request keeps the Buffers
// it reads into or writes from in its request object while it runs (see
// FSReqBase::PinBuffer()); its callback still runs in the async context the
// request was made in: AsyncLocalStorage gives the callback, and the
// request's own async_hooks before(), the store of that context, as
// without the option. (On Node.js 24 the request's AsyncContextFrame is an
// internal field of the request object too: the Buffer must not take its
// place.) Each request here ends well within its budget.
const common = require('../common');
const assert = require('assert');
const fs = require('fs');
const { AsyncLocalStorage } = require('async_hooks');
const { checkStoresAgainstChild, trackStores } = require('../common/cure');
const tmpdir = require('../common/tmpdir');

const kBudget = process.argv[2] === 'child' ? 0 : 1000;
assert.strictEqual(require('node:cure').getThreadpoolTimeout(), kBudget);

const als = new AsyncLocalStorage();

// Each request: the store it was made in, and the stores its before() saw.
const requests = trackStores(als, 'FSREQCALLBACK');

// The child uses the parent's directory, which the parent cleans.
if (process.argv[2] !== 'child') tmpdir.refresh();
const file = tmpdir.resolve('data.txt');
fs.writeFileSync(file, 'abcdefghij');

// Each call: an fs request with a Buffer (or Buffers), made in
// als.run(name); calls done(result) from its callback.
const calls = {
  read(fd, done) {
    const buffer = Buffer.alloc(4);
    fs.read(fd, buffer, 0, 4, 0, common.mustSucceed((n) => {
      done([n, buffer.toString()]);
    }));
  },
  readv(fd, done) {
    const buffers = [Buffer.alloc(2), Buffer.alloc(3)];
    fs.readv(fd, buffers, 2, common.mustSucceed((n) => {
      done([n, Buffer.concat(buffers).toString()]);
    }));
  },
  write(fd, done) {
    fs.write(fd, Buffer.from('XY'), 0, 2, 10, common.mustSucceed((n) => {
      done([n]);
    }));
  },
  writev(fd, done) {
    fs.writev(fd, [Buffer.from('Z'), Buffer.from('W')], 12,
              common.mustSucceed((n) => done([n])));
  },
  readFile(fd, done) {
    fs.readFile(file, 'utf8', common.mustSucceed((data) => done([data])));
  },
};

const fd = fs.openSync(file, 'r+');
const results = {};

(function next(names) {
  if (names.length === 0) return finish();
  const name = names[0];
  // From a callback of its own, outside the store.
  setImmediate(() => {
    als.run(name, () => calls[name](fd, (result) => {
      results[name] = { store: als.getStore(), result };
      next(names.slice(1));
    }));
  });
})(Object.keys(calls));

function finish() {
  fs.closeSync(fd);
  checkStoresAgainstChild(results, Object.keys(calls), requests, __filename);
  if (process.argv[2] !== 'child')
    console.log(results);
}
