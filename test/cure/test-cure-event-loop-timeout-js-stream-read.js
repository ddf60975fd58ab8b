// Flags: --event-loop-timeout=100
'use strict';
// TLS over a JavaScript stream (a JSStreamSocket: a WebSocket tunnel, a
// proxy's stream, a duplex pair) gets each chunk of the wrapped stream in
// one readBuffer() call, which emits the cleartext to the 'data' listeners
// as TLS decrypts it and catches what they throw until the whole chunk went
// through. A chunk of 16 MiB whose listeners take 1 ms per 4 KiB held the
// callback that delivered it for 4 s, however often its budget threw the
// TimeoutError into them. Under a budget the chunk now goes in pieces
// (readChunk(), lib/internal/cure/pieces.js): the TimeoutError ends the
// delivering callback at once, and the rest follows in immediates of their
// own, in order, before the stream's end; the listeners get every byte.
// (A second reading ran this test under Node 20 without its timeouts: the
// 16 MiB arrive synchronously inside push(), after the held handshake.)
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const { Duplex } = require('stream');
const tls = require('tls');
const { randomBytes } = require('crypto');
const fixtures = require('../common/fixtures');
const { assertInterrupted } = require('../common/cure');

const T = 100;
const payload = randomBytes(16 << 20);

function spin(ms) {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

// One end of a pair of streams: what one writes the other reads, at once,
// or, once the reading end holds (`held` an array), when it releases all
// of it as one chunk (and its end after it).
class End extends Duplex {
  constructor(onHeldEnd) {
    super();
    this.peer = null;
    this.held = null;
    this.endHeld = false;
    this.onHeldEnd = onHeldEnd;
  }
  _read() {}
  _write(chunk, encoding, callback) {
    if (this.peer.held !== null) this.peer.held.push(chunk);
    else this.peer.push(chunk);
    callback();
  }
  _final(callback) {
    if (this.peer.held !== null) {
      this.peer.endHeld = true;
      this.onHeldEnd();
    } else {
      this.peer.push(null);
    }
    callback();
  }
  release() {
    const all = Buffer.concat(this.held);
    this.held = null;
    try {
      this.push(all);
    } finally {
      if (this.endHeld) this.push(null);
    }
  }
}

const clientEnd = new End(common.mustCall(() => {
  setImmediate(common.mustCall(() => {
    assertInterrupted('the delivery of a 16 MiB chunk',
                      () => serverEnd.release(), T);
  }));
}));
const serverEnd = new End();
clientEnd.peer = serverEnd;
serverEnd.peer = clientEnd;

// The rest of the chunk goes in immediates, each stopped by its budget.
let drainsStopped = 0;
process.on('uncaughtException', (err) => {
  assert.ok(err instanceof TimeoutError, `${err}`);
  assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
  drainsStopped++;
});

const server = new tls.TLSSocket(serverEnd, {
  isServer: true,
  key: fixtures.readKey('agent1-key.pem'),
  cert: fixtures.readKey('agent1-cert.pem'),
});
// The data is kept with no JavaScript of ours in the way (a bound builtin:
// a TimeoutError due between two records is thrown at the entry of the
// next listener's code, and a listener that counted it would miss a record
// that did arrive); the next listener spins.
const chunks = [];
server.on('data', chunks.push.bind(chunks));
server.on('data', (data) => spin(data.length / 4096));
server.on('end', common.mustCall(() => {
  const received = Buffer.concat(chunks);
  assert.strictEqual(received.length, payload.length);
  assert.ok(received.equals(payload));
  assert.ok(drainsStopped > 0);
  console.log(`the rest delivered in immediates, ${drainsStopped} stopped`);
}));

const client = tls.connect({ socket: clientEnd, rejectUnauthorized: false },
                           common.mustCall(() => {
                             // The server reads what follows as one chunk.
                             serverEnd.held = [];
                             client.end(payload);
                           }));
client.resume();
