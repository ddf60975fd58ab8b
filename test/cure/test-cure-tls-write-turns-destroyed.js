// Flags: --event-loop-timeout=60000
'use strict';
// A TLS socket destroyed while a write goes to its handle in turns
// (lib/internal/cure/write_turns.js): the turn in flight fails as a whole
// write in flight fails (the handle cancels it), no later turn is handed
// over, the write's callback comes once, with that error, and the socket
// closes. The same as without a budget, where the write is one call.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const { spawnSync } = require('child_process');
const tls = require('tls');
const fixtures = require('../common/fixtures');

const MiB = 1 << 20;

if (process.argv[2] === 'child') {
  // The peer reads nothing, so the turns stay in flight until destroy().
  const server = tls.createServer({
    key: fixtures.readKey('agent1-key.pem'),
    cert: fixtures.readKey('agent1-cert.pem'),
  }, (socket) => {
    socket.pause();
    socket.on('error', () => {});
  });
  server.listen(0, '127.0.0.1', common.mustCall(() => {
    const socket = tls.connect({
      host: '127.0.0.1',
      port: server.address().port,
      rejectUnauthorized: false,
    }, common.mustCall(() => {
      const handle = socket._handle;
      const writev = handle.writev;
      let turns = 0;
      handle.writev = function() {
        turns++;
        return Reflect.apply(writev, this, arguments);
      };
      const writeBuffer = handle.writeBuffer;
      let whole = 0;
      handle.writeBuffer = function() {
        whole++;
        return Reflect.apply(writeBuffer, this, arguments);
      };
      socket.write(Buffer.alloc(64 * MiB, 'x'), common.mustCall((err) => {
        assert.ok(err instanceof Error);
        console.log(JSON.stringify({ code: err.code, turns, whole }));
      }));
      socket.on('error', () => {});
      socket.on('close', common.mustCall(() => server.close()));
      // Once the writes are in flight (the peer does not read).
      setTimeout(() => socket.destroy(), 200);
    }));
  }));
  return;
}

function run(...flags) {
  const child = spawnSync(process.execPath, [...flags, __filename, 'child'],
                          { encoding: 'utf8' });
  assert.strictEqual(child.status, 0, child.stderr);
  return JSON.parse(child.stdout);
}

const upstream = run();
const turns = run('--event-loop-timeout=60000');
// Upstream's path: one call; ours: a few turns, then no more.
assert.deepStrictEqual([upstream.turns, upstream.whole], [0, 1]);
assert.ok(turns.turns >= 1 && turns.turns < 64, `${turns.turns}`);
assert.strictEqual(turns.whole, 0);
assert.strictEqual(turns.code, upstream.code);
