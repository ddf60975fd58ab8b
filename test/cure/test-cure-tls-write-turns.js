// Flags: --event-loop-timeout=60000
'use strict';
// With a callback budget, a TLS socket's write of more than 1 MiB goes to
// its handle about a MiB a turn of the loop, one handle.writev() a turn,
// the first in the call and the others in immediates (writeInTurns(),
// lib/internal/cure/write_turns.js;
// patches/node/lib-a-tls-socket-s-long-write-goes-to-its-handle-in-turns-under-a-budget.patch):
// TLSWrap encrypts a write's whole data in the call that hands it over.
// The peer receives the bytes that upstream's path sends (strings cut
// between characters, in every encoding, corked writes, buffers), each
// write's callback comes once, in order, after its last turn; other
// callbacks run between the turns (counted, not timed); and writes whose
// callbacks a budget of 1 to 8 ms stopped still arrive whole. What the
// peer must receive is each write's data as Buffer.from() encodes it,
// concatenated: what upstream's path sends.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const tls = require('tls');
const { digestOf, tlsDigestServer } = require('../common/cure');
const { runWithEventLoopTimeout } = require('node:cure');

const MiB = 1 << 20;

// Deterministic bytes and strings of every shape the turns cut.
function bytes(n, seed) {
  const b = Buffer.allocUnsafe(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    b[i] = x >>> 16;
  }
  return b;
}
const writes = [
  ['x'.repeat(3 * MiB), 'utf8'],
  // Pairs everywhere: a piece's end falls on a high surrogate.
  ['\u{1F600}'.repeat(MiB / 2) + 'é', 'utf8'],
  // Lone surrogates: U+FFFD in UTF-8, as in one call.
  ['a\ud800b\udc00'.repeat(MiB / 4), 'utf8'],
  [bytes(2 * MiB + 5, 1), 'buffer'],
  ['\u00ff\u0100'.repeat(MiB), 'latin1'],
  ['\ud800a'.repeat(MiB / 2), 'utf16le'],
  // An encoding name that upstream decodes whole (not lower case).
  ['UPPER'.repeat(MiB), 'UTF8'],
  [bytes(MiB, 2).toString('hex'), 'hex'],
  [bytes(MiB + 1, 3).toString('base64'), 'base64'],
  [{ corked: [['head', 'utf8'], [bytes(1.5 * MiB, 4), 'buffer'],
              ['\u4e2d'.repeat(MiB / 2), 'utf8']] }],
  // A turn with 2 bytes of room left takes one code unit of a string: a
  // lone high surrogate alone, a pair whole.
  [{ corked: [[Buffer.alloc(MiB - 2, 'x'), 'buffer'],
              ['\ud800\u{1F600}abc', 'utf8']] }],
  [{ corked: [[Buffer.alloc(MiB - 2, 'y'), 'buffer'],
              ['\u{1F600}\ud800abc', 'utf8']] }],
  // hex decoded whole in the first turn, in uncork(): the TimeoutError
  // of a small budget comes in there, and must not leave the stream's
  // buffer half cleared.
  [{ corked: [[bytes(MiB - 1000, 5).toString('hex'), 'hex'],
              [bytes(24 * MiB, 6).toString('hex'), 'hex'],
              ['tail', 'utf8']] }],
  ['short', 'utf8'],
];
const expected = Buffer.concat(writes.flatMap(([data, encoding]) =>
  (data.corked ?? [[data, encoding]]).map(([d, e]) =>
    (e === 'buffer' ? d : Buffer.from(d, e)))));

const server = tlsDigestServer();

// Connects, counts the turns handed to the handle's writev() and the
// bytes of the largest, and calls send(socket, count) once secure;
// resolves with the server's answer.
function connect(send) {
  return new Promise((resolve) => {
    const socket = tls.connect({
      host: '127.0.0.1',
      port: server.address().port,
      rejectUnauthorized: false,
    }, common.mustCall(() => {
      const handle = socket._handle;
      const writev = handle.writev;
      const count = { turns: 0, largest: 0 };
      handle.writev = function(req, chunks, allBuffers) {
        let length = 0;
        for (let i = 0; i < chunks.length; i += 2) {
          length += typeof chunks[i] === 'string' ?
            Buffer.byteLength(chunks[i], chunks[i + 1]) : chunks[i].length;
        }
        count.turns++;
        count.largest = Math.max(count.largest, length);
        return Reflect.apply(writev, this, arguments);
      };
      send(socket, count);
    }));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (s) => { answer += s; });
    socket.on('end', common.mustCall(() => resolve(answer)));
  });
}

// Every write of `writes`, each callback checked to come once and in order.
function sendAll(socket) {
  const done = [];
  writes.forEach(([data, encoding], i) => {
    const cb = common.mustCall((err) => {
      assert.ifError(err);
      done.push(i);
    });
    if (data.corked) {
      socket.cork();
      data.corked.forEach(([d, e], j) =>
        socket.write(d, e, j === data.corked.length - 1 ? cb : undefined));
      socket.uncork();
    } else {
      socket.write(data, encoding, cb);
    }
  });
  socket.end(common.mustCall(() => {
    assert.deepStrictEqual(done, writes.map((_, i) => i));
  }));
}

const want = digestOf(expected);

server.listen(0, '127.0.0.1', common.mustCall(async () => {
  // In turns: this callback has a budget (the flag's).
  let probe;
  const within = await connect((socket, count) => {
    setImmediate(() => { probe = count.turns; });
    sendAll(socket);
    // The first turn only went in the call.
    assert.strictEqual(count.turns, 1);
    socket.on('close', common.mustCall(() => {
      // Another callback ran after the first turn, before the last one,
      // and the writes went in turns of at most a MiB (24 MiB in all; a
      // turn's weight counts 3 bytes a UTF-16 code unit of UTF-8).
      assert.ok(probe >= 1 && probe < count.turns, `${probe}`);
      assert.ok(count.turns > 30, `${count.turns}`);
      assert.ok(count.largest <= MiB + 3, `${count.largest}`);
    }));
  });
  assert.strictEqual(within, want);

  // Callbacks that a budget of 1 to 8 ms stopped after they wrote: the
  // rest of each write went on in its turns, nothing lost or reordered.
  // Where the TimeoutError came before write() took its chunk (a callback
  // held up that long before it, under AddressSanitizer and load), the
  // chunk is not the stream's and is not sent: what the stream took shows
  // in its writableLength (a chunk's length, until its callback).
  let stopped = 0;
  const taken = [];
  const hurried = await connect((socket) => {
    writes.forEach(([data, encoding], i) => {
      const before = socket.writableLength;
      try {
        runWithEventLoopTimeout(1 + i % 8, () => {
          if (data.corked) {
            socket.cork();
            for (const [d, e] of data.corked) socket.write(d, e);
            socket.uncork();
          } else {
            socket.write(data, encoding);
          }
          for (;;);  // Until the TimeoutError.
        });
      } catch (err) {
        assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
        stopped++;
      }
      let took = socket.writableLength - before;
      for (const [d, e] of data.corked ?? [[data, encoding]]) {
        if (took === 0) break;
        took -= d.length;
        taken.push(e === 'buffer' ? d : Buffer.from(d, e));
      }
      assert.strictEqual(took, 0);
    });
    socket.end();
  });
  assert.strictEqual(stopped, writes.length);
  assert.strictEqual(hurried, digestOf(Buffer.concat(taken)));
  server.close();
}));
