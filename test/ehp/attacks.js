'use strict';
// The attacks of the EHP suite, after the categories of Node.cure's list
// (Davis et al., USENIX Security '18, Table 2): each is one evil request to
// app.js (or one per threadpool worker), sized so that stock Node is held
// for seconds or for ever. The controls are legitimate heavy-but-bounded
// requests that must NOT be cut off.
//
// An attack:
//   id, title, category   names ('language', 'promise', 'sync', 'pool',
//                          'slow-resource', 'control')
//   control               a legitimate request: it must succeed everywhere
//   request(ctx)          the request: { method, path, body?, type? }
//   small(ctx)            a smaller request that still far exceeds the
//                         repetition run's budget (the repetitions send it
//                         1,000 times); request() when absent
//   smallCount            how many of them each repetition sends at once
//                         (default: as the attack)
//   parallel              requests sent at once (4: one per pool worker)
//   every                 with `count`: send `count` requests, one each
//                         `every` ms, without waiting for the answers
//   expect                what nodecure answers the attacker (a status)
//   needs                 'dns': needs the blackhole resolver (run.js);
//                         'fuse': needs a hung FUSE mount at share/ in the
//                         server's own mount namespace (root, /dev/fuse)
//   keeps                 threads a repetition run may end with above its
//                         level: work abandoned on a server that never
//                         answers waits for it for ever, by design
//   legit                 the paths the legitimate clients ask for, when
//                         the attack needs others than / and a small file
//   fresh                 the repetitions make their requests anew each
//                         time (small() must then differ each call: a cache
//                         would answer a request it has seen)
//   notEhp                why stock Node survives it too: the attack costs
//                         something else (memory), and both binaries must
//                         serve everyone and answer it 200
//
// ctx: { fifo(name) -> a FIFO's name under EHP_FILES, bomb(bytes) -> a gzip
// of that many zeros, host -> a name only the blackhole resolver is asked }
const zlib = require('zlib');

const GiB = 2 ** 30;

// One JSON body of about `mib` MiB of small records.
function items(mib) {
  const record = '{"id":12345,"name":"legitimate item"},';
  const n = Math.floor(mib * 2 ** 20 / record.length);
  return `{"items":[${record.repeat(n)}{"id":0}]}`;
}

// A JSON array of MIB MiB of small objects.
function objects(mib) {
  const record = '{"a":1},';
  return `[${record.repeat(Math.floor(mib * 2 ** 20 / record.length))}{}]`;
}

const bombs = new Map();
function bomb(bytes) {
  if (!bombs.has(bytes)) {
    // Deflated in 256 MiB steps: 2 GiB of zeros is about 2 MiB of gzip.
    const gz = zlib.createGzip({ level: 9 });
    const parts = [];
    gz.on('data', (c) => parts.push(c));
    const zero = Buffer.alloc(2 ** 28);
    for (let left = bytes; left > 0; left -= zero.length) {
      gz.write(left >= zero.length ? zero : zero.subarray(0, left));
    }
    gz.end();
    bombs.set(bytes, new Promise((resolve) => {
      gz.on('end', () => resolve(Buffer.concat(parts)));
    }));
  }
  return bombs.get(bytes);
}

let formulas = 0;  // compile's small formulas, each a new one

const get = (path) => () => ({ method: 'GET', path });
const postJson = (path, body) => () =>
  ({ method: 'POST', path, body: JSON.stringify(body),
     type: 'application/json' });

const postBody = (path, body) => () =>
  ({ method: 'POST', path, body, type: 'application/octet-stream' });
// n order ids, comma-separated as a client writes them.
const ids = (n) => Array.from({ length: n }, (_, i) => 100000 + i).join(', ');

// A name of n combining marks out of canonical order (classes 230, 220).
const marks = (n, order) => 'a' + order.repeat(n / 2);
// A language tag of n distinct variants (five characters each).
function tag(n) {
  const variants = [];
  for (let i = 0; i < n; i++) variants.push(`v${(46656 + i).toString(36)}`);
  return `en-${variants.join('-')}`;
}
// A host label of n ideographs, nearly all distinct.
function ideographs(n) {
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(0x4e00 + (i * 7919) % 20000);
  return s;
}

// `bytes` of noise (incompressible), the same each run.
const noises = new Map();
// Words of 20 letters (xorshift32): text that compresses to about 60%, on
// which brotli at its default quality (11) spends about 1 s a MiB.
const texts = new Map();
function words(bytes) {
  if (!texts.has(bytes)) {
    const buf = Buffer.alloc(bytes);
    let x = 7;
    for (let i = 0; i < bytes; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      x >>>= 0;
      buf[i] = (x & 7) === 0 ? 0x20 : 0x61 + ((x >>> 8) % 20);
    }
    texts.set(bytes, buf);
  }
  return texts.get(bytes);
}

function noise(bytes) {
  if (!noises.has(bytes)) {
    const buf = Buffer.alloc(bytes);
    let x = 12345;
    for (let i = 0; i < bytes; i++) {
      x = (x * 1103515245 + 12345) >>> 0;
      buf[i] = x >>> 24;
    }
    noises.set(bytes, buf);
  }
  return noises.get(bytes);
}

const attacks = [
  // --- The language --------------------------------------------------------
  {
    id: 'redos',
    title: 'ReDoS: validator.rtrim() (CVE-2021-3765) of 60,000 spaces',
    category: 'language',
    request: () => ({ method: 'POST', path: '/profile',
                      body: JSON.stringify({ name: `a${' '.repeat(60000)}a` }),
                      type: 'application/json' }),
    small: () => ({ method: 'POST', path: '/profile',
                    body: JSON.stringify({ name: `a${' '.repeat(8000)}a` }),
                    type: 'application/json' }),
  },
  {
    id: 'loop',
    title: 'while (true) through a bug: pagination with a page size of 0',
    category: 'language',
    request: get('/pages?total=100&size=0'),
  },
  {
    id: 'json-parse',
    title: 'JSON.parse of a 192 MiB body (express.json())',
    category: 'language',
    request: () => ({ method: 'POST', path: '/items', body: items(192),
                      type: 'application/json' }),
    // 32 MiB: 100-200 ms of JSON.parse() on Node 24 here, well past the
    // repetitions' 50 ms. (Node 24 parses twice as fast as 22: its 16 MiB
    // took 47-100 ms, and a timeout that came just after the parse returned
    // was thrown outside the app's error handling, in body-parser's 'end'
    // listener, and ended the server: see doc/ehp.md.)
    small: () => ({ method: 'POST', path: '/items', body: items(32),
                    type: 'application/json' }),
  },
  {
    id: 'json-stringify',
    title: 'JSON.stringify of an export of 2^24 rows',
    category: 'language',
    request: get('/export?rows=16777216'),
  },
  {
    id: 'sort',
    title: 'Array sort of 2^25 scores',
    category: 'language',
    request: get('/sort?n=33554432'),
  },
  {
    id: 'search',
    title: 'String lastIndexOf: a 2,001-character query in 2 MB',
    category: 'language',
    request: get(`/search?text=a&times=2000000&q=${'a'.repeat(2000)}b`),
  },
  {
    id: 'normalize',
    title: 'String normalize (NFKC) of 2^26 ligatures',
    category: 'language',
    request: () => ({ method: 'POST', path: '/normalize',
                      body: JSON.stringify({ text: '\ufb03'.repeat(64),
                                             times: 2 ** 20 }),
                      type: 'application/json' }),
    // 2^22 ligatures (0.15 s upstream). With 2^26, the repetitions' 20 ms
    // budget ran out a second time in Express's error handling, outside any
    // catch, and the server died (doc/ehp.md, "What it does not show").
    small: () => ({ method: 'POST', path: '/normalize',
                    body: JSON.stringify({ text: '\ufb03'.repeat(64),
                                           times: 2 ** 16 }),
                    type: 'application/json' }),
  },
  {
    id: 'collate-marks',
    title: 'Sorting two names of 100,000 combining marks (Intl.Collator)',
    category: 'language',
    request: postJson('/directory', {
      names: [marks(100000, '\u0301\u0316'), marks(100000, '\u0316\u0301')],
    }),
    small: postJson('/directory', {
      names: [marks(30000, '\u0301\u0316'), marks(30000, '\u0316\u0301')],
    }),
  },
  {
    id: 'locale-tag',
    title: 'An Intl.Collator for a language tag of 40,000 variants',
    category: 'language',
    request: postJson('/directory', { names: ['b', 'a'], locale: tag(40000) }),
    small: postJson('/directory', { names: ['b', 'a'], locale: tag(10000) }),
  },
  {
    id: 'segment-words',
    title: 'The keywords of a post of 4 million ideographs (Intl.Segmenter)',
    category: 'language',
    // The step that enters the run segments all of it with ICU's
    // dictionary, about a second on ./node-baseline, to give the first
    // word; ICU's engines now count their steps and stop.
    request: postJson('/keywords', { text: '\u4e00'.repeat(2 ** 22),
                                     locale: 'ja' }),
    small: postJson('/keywords', { text: '\u4e00'.repeat(2 ** 20),
                                   locale: 'ja' }),
  },
  {
    id: 'regexp-compile',
    title: 'A search filter of 100,000 \\p{...} escapes (new RegExp())',
    category: 'language',
    request: postJson('/filter', {
      pattern: '\\p{Script=Greek}\\p{L}\\p{Lu}\\p{N}'.repeat(25000),
      text: 'x',
    }),
    small: postJson('/filter', {
      pattern: '\\p{Script=Greek}\\p{L}\\p{Lu}\\p{N}'.repeat(2500),
      text: 'x',
    }),
  },
  {
    id: 'case-mapping',
    title: 'toLowerCase() of 134 million Latin and Greek letters',
    category: 'language',
    // ICU maps the string in one call: 1.2 to 2 s on ./node-baseline (a
    // final-sigma check per sigma); it is stopped between chunks of 1024
    // code units.
    request: postJson('/slug', { text: 'AΣ', times: 2 ** 26 }),
    small: postJson('/slug', { text: 'AΣ', times: 2 ** 23 }),
  },
  {
    id: 'compile',
    title: 'new Function() of a formula of 4 million terms (24 MB)',
    category: 'language',
    // Parsed and compiled to bytecode in one call, seconds on
    // ./node-baseline; the parser and the bytecode generator poll. Each
    // repetition sends a formula of its own (fresh): V8 caches what
    // new Function() compiled by its source, and a second request for the
    // same one would not compile it again.
    fresh: true,
    request: postJson('/formula', { formula: 'row.a+'.repeat(4e6) + '1' }),
    small: () => postJson('/formula', {
      formula: 'row.a+'.repeat(5e5) + String(formulas++),
    })(),
  },
  {
    id: 'bigint-parse',
    title: 'BigInt() of an amount of 10 million digits',
    category: 'language',
    request: postJson('/total', { amounts: ['7'.repeat(1e7)] }),
    small: postJson('/total', { amounts: ['7'.repeat(2e6)] }),
  },
  {
    id: 'url-host',
    title: 'new URL() of a host of 100,000 distinct ideographs',
    category: 'language',
    request: postJson('/preview', { url: `http://${ideographs(100000)}.com/` }),
    small: postJson('/preview', { url: `http://${ideographs(20000)}.com/` }),
    // Not an EHP on Node 24: the ada 3.4.4 both builds link carries
    // patches/ada (linear IDNA), and the official 24.21.0's ada 4.0.0
    // refuses such a host at once (ERR_INVALID_URL in 11 ms). On Node 22
    // the stock build spent 2.8 s on it (doc/ehp.md).
    notEhp: 'ada\'s IDNA code is linear in both builds (patches/ada), and ' +
            'the official 24.21.0 refuses the host at once',
  },
  // --- Promise chains ------------------------------------------------------
  {
    id: 'await-loop',
    title: 'An await loop that never yields to the event loop',
    category: 'promise',
    request: get('/wait?until=1e15'),
  },
  // --- Synchronous bindings on the event loop ------------------------------
  {
    id: 'sqlite-in-list',
    title: 'An order lookup of 1.6 million ids, one SQLite IN list (14 MB)',
    category: 'sync',
    // SQLite's parser runs no opcodes, so node:sqlite's progress handler
    // never sees it: about 0.7 s for the list. The watchdog stops the parse
    // with sqlite3_interrupt() (ParseStop), which SQLite's tokenizer sees at
    // the next space.
    request: postBody('/orders', ids(1.6e6)),
    small: postBody('/orders', ids(4e5)),
  },
  {
    id: 'readfilesync-fifo',
    title: 'fs.readFileSync() of a FIFO',
    category: 'sync',
    request: (ctx) => get(`/config?name=${ctx.fifo('sync-fifo')}`)(),
  },
  {
    id: 'pbkdf2sync',
    title: 'crypto.pbkdf2Sync() with 2^31-1 iterations',
    category: 'sync',
    request: get('/hash-sync?cost=2147483647'),
  },
  {
    id: 'keygen-sync',
    title: 'crypto.generateKeyPairSync() RSA-30720',
    category: 'sync',
    // OpenSSL asks its progress callback about every 0.75 s at this size:
    // stopped in place, the loop would stay blocked that long past the
    // budget; the search runs on the Priority Executor instead.
    request: get('/keypair-sync?bits=30720'),
    small: get('/keypair-sync?bits=15360'),
  },
  {
    id: 'dh-params-sync',
    title: 'crypto.createDiffieHellman(8192)',
    category: 'sync',
    // A safe prime of 8192 bits takes minutes; OpenSSL calls no callback of
    // Node's while it searches: the search runs on the Priority Executor.
    request: get('/dh-params?bits=8192'),
    small: get('/dh-params?bits=4096'),
  },
  {
    id: 'gunzipsync-bomb',
    title: 'zlib.gunzipSync() of a 2 GiB bomb',
    category: 'sync',
    request: async (ctx) => ({ method: 'POST', path: '/upload-sync',
                               body: await ctx.bomb(2 * GiB) }),
    small: async (ctx) => ({ method: 'POST', path: '/upload-sync',
                             body: await ctx.bomb(GiB / 4) }),
  },
  {
    id: 'brotli-sync',
    title: 'zlib.brotliCompressSync() of 12 MiB of text',
    category: 'sync',
    // At quality 11 brotli emits nothing before it has compressed a whole
    // metablock (up to 16 MiB): the first writeSync() of the JS loop held
    // the loop for about 11 s for 8 MiB. It is stopped between 64 KiB
    // slices of its input.
    request: () => ({ method: 'POST', path: '/compress-sync',
                      body: words(12 * 2 ** 20) }),
    small: () => ({ method: 'POST', path: '/compress-sync',
                    body: words(2 ** 20) }),
  },
  {
    id: 'structured-clone',
    title: 'structuredClone() of an 8 MiB JSON body of small objects',
    category: 'sync',
    // About a million objects: JSON.parse takes tens of milliseconds (and
    // polls), V8's serializer and deserializer a second or more, with no
    // interrupt check of their own before nodecure's poll.
    request: () => ({ method: 'POST', path: '/snapshot',
                      body: objects(8), type: 'application/json' }),
    // 2 MiB: JSON.parse 15-25 ms, the copy 85-135 ms, past the
    // repetitions' 50 ms (at 1 MiB, 97% were copied within it). Not more:
    // a parse that ends just as the budget does (4 MiB) gets its
    // TimeoutError in body-parser's 'end' listener, outside Express's
    // error handling, which ends the server (as json-parse's note says).
    small: () => ({ method: 'POST', path: '/snapshot',
                    body: objects(2), type: 'application/json' }),
  },
  {
    id: 'execsync',
    title: 'child_process.execFileSync() of a tool that takes 60 s',
    category: 'sync',
    request: get('/exec?seconds=60'),
  },
  // --- The threadpool: one evil request per worker --------------------------
  {
    id: 'readfile-fifo',
    title: 'fs.readFile() of a FIFO, x4',
    category: 'pool',
    parallel: 4,
    request: (ctx) => get(`/file?name=${ctx.fifo('pool-fifo')}`)(),
  },
  {
    id: 'pbkdf2',
    title: 'crypto.pbkdf2() with 2^31-1 iterations, x4',
    category: 'pool',
    parallel: 4,
    request: get('/hash?cost=2147483647'),
  },
  {
    id: 'keygen',
    title: 'crypto.generateKeyPair() RSA-16384, x4',
    category: 'pool',
    parallel: 4,
    request: get('/keypair?bits=16384'),
  },
  {
    id: 'randomfill',
    title: 'crypto.randomFill() of 2 GiB, x4',
    category: 'pool',
    parallel: 4,
    request: get(`/token?bytes=${2 * GiB - 1}`),
    small: get(`/token?bytes=${GiB / 4}`),
  },
  {
    id: 'dns',
    title: 'dns.lookup() against an unresponsive resolver, x4',
    category: 'pool',
    parallel: 4,
    needs: 'dns',
    // libuv runs at most half of the pool's threads on slow work such as
    // getaddrinfo(): the lookups starve the other lookups, not the files.
    legit: ['/', '/lookup?host=localhost'],
    request: (ctx) => get(`/lookup?host=${ctx.host()}`)(),
  },
  {
    id: 'brotli-archive',
    title: 'zlib.brotliCompress() at the best quality of 16 MiB of noise, x4',
    category: 'pool',
    parallel: 4,
    // Incompressible data: brotli's slowest path, a second or more per
    // threadpool task. Nothing stops the encoder inside a task: past its
    // budget the task is abandoned and its thread computes on until the
    // block is done. So the repetitions send one 4 MiB upload at a time
    // (~0.2 s of abandoned work each, far past their 20 ms budget).
    request: () => ({ method: 'POST', path: '/archive',
                      body: noise(16 * 2 ** 20) }),
    small: () => ({ method: 'POST', path: '/archive',
                    body: noise(4 * 2 ** 20) }),
    smallCount: 1,
  },
  {
    id: 'gunzip-bomb',
    title: 'zlib.gunzip() of a 64 MiB bomb, x4',
    category: 'pool',
    parallel: 4,
    notEhp: 'asynchronous zlib inflates in chunks of 16 KiB of output, one ' +
            'short threadpool task each: a bomb costs memory and many ' +
            'tasks, never a worker for long',
    request: async (ctx) => ({ method: 'POST', path: '/upload',
                               body: await ctx.bomb(GiB / 16) }),
  },
  // --- The slow resource: the same FIFO again and again ---------------------
  {
    id: 'slow-resource',
    title: 'fs.readFile() of the same FIFO, 12 times, 150 ms apart',
    category: 'slow-resource',
    count: 12,
    every: 150,
    request: (ctx) => get(`/file?name=${ctx.fifo('slow-fifo')}`)(),
  },
  {
    id: 'hung-share',
    title: 'fs.readFileSync() of a file on a network share that stopped answering',
    category: 'slow-resource',
    needs: 'fuse',
    // The open waits in the kernel for a daemon that never answers: no
    // signal but a fatal one ends it. It runs on the Priority Executor and
    // is abandoned at the budget; later calls on the stuck mount fail at once
    // with ETIMEDOUT, and the one abandoned thread waits for ever.
    request: get('/report?name=q3.txt'),
    keeps: 1,
  },
  // --- Controls: heavy but bounded, never cut off ----------------------------
  {
    id: 'control-profile',
    title: 'Control: a profile update with trailing spaces',
    category: 'control',
    control: true,
    request: () => ({ method: 'POST', path: '/profile',
                      body: JSON.stringify({ name: `Ada${' '.repeat(40)}` }),
                      type: 'application/json' }),
  },
  {
    id: 'control-json',
    title: 'Control: an import of 1 MiB of JSON',
    category: 'control',
    control: true,
    request: () => ({ method: 'POST', path: '/items', body: items(1),
                      type: 'application/json' }),
  },
  {
    id: 'control-hash',
    title: 'Control: pbkdf2 with 10,000 iterations, x4, and pbkdf2Sync',
    category: 'control',
    control: true,
    parallel: 4,
    request: (ctx, i) => get(i === 0 ? '/hash-sync?cost=10000' :
      '/hash?cost=10000')(),
  },
  {
    id: 'control-file',
    title: 'Control: a 16 MiB file, x4',
    category: 'control',
    control: true,
    parallel: 4,
    request: get('/file?name=big.bin'),
  },
  {
    id: 'control-exec',
    title: 'Control: a tool that takes 20 ms',
    category: 'control',
    control: true,
    request: get('/exec?seconds=0.02'),
  },
];

for (const a of attacks) {
  a.parallel ??= 1;
  a.count ??= a.parallel;
  a.expect ??= a.control || a.notEhp ? 200 : 503;
}

module.exports = { attacks, bomb };
