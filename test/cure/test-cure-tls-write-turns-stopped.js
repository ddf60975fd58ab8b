// Flags: --event-loop-timeout=60000
'use strict';
// A TLS write in turns (lib/internal/cure/write_turns.js) that
// TimeoutErrors stop inside its turns: the handle's writev() is wrapped
// with a loop that runs until the budget stops it, on every third turn,
// before the real call, so that the error comes in immediates of the
// write's own, where the write goes on in the next one.
// Each stopped turn is handed over again in full, never skipped or
// written twice: the peer receives exactly the bytes of the writes, and
// each write's callback comes once, in order, with no error.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const tls = require('tls');
const { digestOf, tlsDigestServer } = require('../common/cure');
const { setEventLoopTimeout } = require('node:cure');

const MiB = 1 << 20;
// The callbacks' budget while the writes run: every stopped turn is
// stopped by this, and it leaves the other callbacks ample room.
const kBudget = 50;

const writes = [
  ['\u00e9\u{1F600}'.repeat(MiB), 'utf8'],
  [Buffer.alloc(3 * MiB + 7, 'zq'), 'buffer'],
  ['\u4e2d'.repeat(MiB), 'utf16le'],
];
const expected = Buffer.concat(writes.map(([data, encoding]) =>
  (encoding === 'buffer' ? data : Buffer.from(data, encoding))));
const want = digestOf(expected);

const server = tlsDigestServer();

server.listen(0, '127.0.0.1', common.mustCall(() => {
  const socket = tls.connect({
    host: '127.0.0.1',
    port: server.address().port,
    rejectUnauthorized: false,
  }, common.mustCall(() => {
    const handle = socket._handle;
    const writev = handle.writev;
    let calls = 0;
    let stopped = 0;
    handle.writev = function() {
      if (calls++ % 3 === 1) {
        try {
          const until = Date.now() + 60_000;
          while (Date.now() < until);
        } catch (err) {
          assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
          stopped++;
          throw err;
        }
        assert.fail('the loop was not stopped');
      }
      return Reflect.apply(writev, this, arguments);
    };

    setEventLoopTimeout(kBudget);
    // In a callback that has the small budget from its start.
    setImmediate(common.mustCall(() => {
      const done = [];
      writes.forEach(([data, encoding], i) => {
        socket.write(data, encoding, common.mustCall((err) => {
          assert.ifError(err);
          done.push(i);
        }));
      });
      socket.end(common.mustCall(() => {
        setEventLoopTimeout(60_000);
        assert.deepStrictEqual(done, [0, 1, 2]);
        // Turns were stopped in the write's own immediates (the first
        // turn, call 0, is not slowed) and handed over again.
        assert.ok(stopped >= 4, `${stopped} of ${calls}`);
      }));
    }));

    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (s) => { answer += s; });
    socket.on('end', common.mustCall(() => {
      assert.strictEqual(answer, want);
      server.close();
    }));
  }));
}));
