// Flags: --threadpool-timeout=1000
'use strict';
// With --threadpool-timeout, a read or write of the promise API
// (FileHandle read(), readv(), write(), writev(), fs.promises.readFile()
// and writeFile()) keeps its Buffers in its request object while it runs
// (FSReqBase::PinBuffer()); the request still completes in the async
// context it was made in: async_hooks' before() of the request (an
// FSREQPROMISE) sees the AsyncLocalStorage store of that context, and so
// does nodecure's own before() hook (runWithEventLoopTimeout() is in use),
// as without the option; the code after each await too. (On Node.js 24 the
// request's AsyncContextFrame is an internal field of the request object:
// the Buffer must not take its place, or the hooks would read a Buffer as
// a frame.) Each request here ends well within its budget.
const common = require('../common');
const assert = require('assert');
const fs = require('fs');
const { AsyncLocalStorage } = require('async_hooks');
const { checkStoresAgainstChild, trackStores } = require('../common/cure');
const { getThreadpoolTimeout, runWithEventLoopTimeout } = require('node:cure');
const tmpdir = require('../common/tmpdir');

const isChild = process.argv[2] === 'child';
assert.strictEqual(getThreadpoolTimeout(), isChild ? 0 : 1000);

const als = new AsyncLocalStorage();

// Each request: the store it was made in, and the stores its before() saw.
const requests = trackStores(als, 'FSREQPROMISE');

// The child uses the parent's directory, which the parent cleans.
if (!isChild) tmpdir.refresh();
const file = tmpdir.resolve('data.txt');
fs.writeFileSync(file, 'abcdefghij');

// Each case: fs requests with Buffers, made in als.run(name); resolves with
// what they returned.
const cases = {
  async read(fh) {
    const buffer = Buffer.alloc(4);
    const { bytesRead } = await fh.read(buffer, 0, 4, 0);
    return [bytesRead, buffer.toString()];
  },
  async readv(fh) {
    const buffers = [Buffer.alloc(2), Buffer.alloc(3)];
    const { bytesRead } = await fh.readv(buffers, 2);
    return [bytesRead, Buffer.concat(buffers).toString()];
  },
  async write(fh) {
    const { bytesWritten } = await fh.write(Buffer.from('XY'), 0, 2, 10);
    return [bytesWritten];
  },
  async writev(fh) {
    const { bytesWritten } =
      await fh.writev([Buffer.from('Z'), Buffer.from('W')], 12);
    return [bytesWritten];
  },
  async writeFile() {
    const other = tmpdir.resolve('other.txt');
    await fs.promises.writeFile(other, Buffer.from('written'));
    return [fs.readFileSync(other, 'utf8')];
  },
  async readFile() {
    return [await fs.promises.readFile(file, 'utf8')];
  },
};

(async () => {
  const fh = await fs.promises.open(file, 'r+');
  const results = {};
  for (const name of Object.keys(cases)) {
    // From a callback of its own, outside the store.
    await new Promise((resolve) => setImmediate(resolve));
    results[name] = await als.run(name, () => {
      // No budget (0): nodecure's before() hook runs for the requests.
      return runWithEventLoopTimeout(0, async () => {
        const result = await cases[name](fh);
        return { store: als.getStore(), result };
      });
    });
  }
  await fh.close();
  return results;
})().then(common.mustCall((results) => {
  // open() and close() of the FileHandle run outside any store.
  checkStoresAgainstChild(results, Object.keys(cases), requests, __filename);
  if (!isChild)
    console.log(results);
}));
