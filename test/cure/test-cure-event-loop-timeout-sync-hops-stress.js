// Flags: --event-loop-timeout=60000
'use strict';
// Stress of the synchronous calls that leave their work on the Priority
// Executor at a stop (src/node_sync_hop.h: ada, util.parseEnv(),
// buffer.transcode(); src/crypto/crypto_priority_job.h: an encrypted key's
// parse, an XOF squeeze) or that the watchdog stops through SQLite
// (ParseStop, src/node_sqlite_timeout.h; exec() between statements): calls with budgets of 1 to 8 ms
// (runWithEventLoopTimeout()) stop them at arbitrary points, on the main
// thread and in two workers at once. Each call must either return what it
// returns without a budget or throw the TimeoutError: no other error (a
// raw SQLite "interrupted", an OpenSSL error of another job), no crash
// (make test-asan runs this under AddressSanitizer), and nothing left
// behind (an interrupt flag still set, an executor's error queue) that
// would change a later result.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const crypto = require('crypto');
const url = require('url');
const util = require('util');
const { transcode } = require('buffer');
const { DatabaseSync } = require('node:sqlite');
const { encryptedPrivateKeyPem, runStressOnThreads } = require('../common/cure');

const digest = (s) => crypto.createHash('sha256').update(s).digest('hex');
const KiB = 1024;

// Made once per thread.
const inList = (bytes) => {
  const parts = ['SELECT 7 IN (0'];
  let n = parts[0].length;
  for (let i = 1; n < bytes; i++) {
    parts.push(`,${i}`);
    n += `,${i}`.length;
  }
  return parts.join('') + ') AS found';
};
const sql = { 1: inList(KiB), 100: inList(100 * KiB), 4096: inList(4096 * KiB) };
const db = new DatabaseSync(':memory:');
db.exec('CREATE TABLE t (x INTEGER)');
const key = crypto.createPrivateKey(
  require('../common/fixtures').readKey('ed25519_private.pem', 'ascii'));
const pems = {};
for (const iterations of [1000, 20000, 200000])
  pems[iterations] = encryptedPrivateKeyPem(key, 'pw', iterations);
const host = (n) => Array.from(
  { length: n }, (_, i) => String.fromCodePoint(0x4e00 + i * 7 % 20902)).join('');
const hosts = { 100: host(100), 30000: host(30000), 300000: host(300000) };
const text = 'é€x'.repeat(4 << 20);
const env = Array.from({ length: 1 << 18 }, (_, i) => `K${i}=v${i}`).join('\n');

// [name, sizes, operation]: each result is a string.
const operations = [
  ['prepare', [1, 100, 4096], (n) => JSON.stringify(db.prepare(sql[n]).get())],
  ['exec', [10, 1000, 100000], (n) => {
    db.exec('DELETE FROM t; ' + 'INSERT INTO t VALUES (1);'.repeat(n));
    return JSON.stringify(db.prepare('SELECT count(*) AS n FROM t').get());
  }],
  ['url', [100, 30000, 300000], (n) => new URL(`http://${hosts[n]}.com/p`).host],
  ['setter', [100, 30000, 300000], (n) => {
    const u = new URL('http://a.com/');
    u.hostname = hosts[n];
    return u.href;
  }],
  ['parseEnv', [1000, 100 * KiB, env.length],
   (n) => digest(JSON.stringify(util.parseEnv(env.slice(0, n))))],
  ['transcode', [1000, 100 * KiB, 8 << 20],
   (n) => digest(transcode(Buffer.from(text.slice(0, n)), 'utf8', 'latin1'))],
  ['key', [1000, 20000, 200000], (n) => crypto.createPrivateKey(
    { key: pems[n], passphrase: 'pw' }).asymmetricKeyType],
  ['xof', [32, 100 * KiB, 32 << 20], (n) => digest(
    crypto.createHash('shake256', { outputLength: n }).update('x').digest())],
];

runStressOnThreads(__filename, operations, 100);
