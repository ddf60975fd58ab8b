// Flags: --event-loop-timeout=60000
'use strict';
// SQLite's parser runs no opcodes, so the progress handler that stops
// node:sqlite's statements (test-cure-event-loop-timeout-sync-sqlite.js)
// never saw it: prepare() of the 16 MiB IN list below took about 1.6 s on
// a loaded machine with nothing to stop it. For a text of more than
// 64 KiB, on a connection where no statement is running, the watchdog now
// stops the parse with sqlite3_interrupt() (ParseStop,
// src/node_sqlite_timeout.h,
// patches/node/src-a-timeout-stops-node-sqlite-s-parse-of-a-long-sql-text.patch):
// prepare(), exec() and a tag store's statement throw the TimeoutError
// ("Synchronous sqlite stopped", made only where a call stops), and the
// connection works on. exec() also stops between statements. While a statement runs (an iterator half way)
// nothing is armed, since SQLite's flag would stop that statement too: the
// parse then runs to its end, the budget's TimeoutError comes after it,
// and the iterator goes on. Texts parsed within a budget give the results
// of a run without the option.
require('../common');
const assert = require('assert');
const { DatabaseSync } = require('node:sqlite');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertSyncCallStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;

// Made while the main module runs (no budget): 16 MiB of SQL. SQLite's
// tokenizer checks its interrupt flag at spaces and comments (and at the
// end of the text): ids written ", " apart are stopped at once.
const inList = (n) => {
  const parts = ['SELECT 7 IN (0'];
  let bytes = parts[0].length;
  for (let i = 1; bytes < n; i++) {
    const p = `, ${i}`;
    parts.push(p);
    bytes += p.length;
  }
  return parts.join('') + ') AS found';
};
const longSql = inList(16 << 20);

const db = new DatabaseSync(':memory:');
db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER);
         WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c
           WHERE x < 100) INSERT INTO t (v) SELECT x FROM c;`);
const tags = db.createTagStore();

const results = `(() => {
  const { DatabaseSync } = require('node:sqlite');
  const db = new DatabaseSync(':memory:');
  const K = 64 * 1024;  // kParseStopBytes
  const inList = (n) => {
    let s = 'SELECT 7 IN (0';
    for (let i = 1; s.length < n; i++) s += ',' + i;
    return s + ') AS found';
  };
  const out = [];
  out.push(db.prepare(inList(K + 100)).get());
  out.push(db.prepare(inList(100)).get());
  db.exec('CREATE TABLE u (s TEXT); ' +
          Array.from({ length: 3000 }, (_, i) =>
            "INSERT INTO u VALUES ('" + 'x'.repeat(i % 50) + "');").join(' '));
  out.push(db.prepare('SELECT count(*) AS n, sum(length(s)) AS l FROM u').get());
  try {
    db.prepare('SELECT ' + '('.repeat(K) + '1');
  } catch (e) {
    out.push(e.code, e.message);
  }
  return JSON.stringify(out);
})()`;

const withoutOption = printWithoutOptions(results);

runEachInACallback([
  () => assertSyncCallStopped('prepare() of a 16 MiB IN list', 'sqlite',
                              () => db.prepare(longSql), T),
  () => {
    // The connection works on: the interrupt flag was cleared.
    assert.deepStrictEqual({ ...db.prepare('SELECT sum(v) AS s FROM t').get() },
                           { s: 5050 });
  },
  () => assertSyncCallStopped('exec() of a 16 MiB IN list', 'sqlite',
                              () => db.exec(longSql), T),
  () => {
    // A script of many short statements, each under the progress handler's
    // 1000 opcodes: exec() asks for the stop between statements. Those
    // before it ran, as before any error of exec().
    db.exec('CREATE TABLE u (x INTEGER)');
    assertSyncCallStopped('exec() of a million short statements', 'sqlite',
                          () => db.exec('INSERT INTO u VALUES (1);'.repeat(1e6)),
                          T);
    const { n } = db.prepare('SELECT count(*) AS n FROM u').get();
    assert.ok(n < 1e6, `${n}`);
  },
  () => assertSyncCallStopped('a tag store\'s statement', 'sqlite', () => {
    // The tag's text is the SQL itself: make a template of one string.
    const strings = Object.assign([longSql], { raw: [longSql] });
    tags.get(strings);
  }, T),
  () => {
    assert.deepStrictEqual({ ...db.prepare('SELECT count(*) AS n FROM t').get() },
                           { n: 100 });
  },
  () => {
    // With a statement running, the parse is not armed: it runs to its end,
    // the TimeoutError comes after it (not "Synchronous ..."), and the
    // running statement is not interrupted.
    const it = db.prepare('SELECT v FROM t ORDER BY v').iterate();
    assert.strictEqual(it.next().value.v, 1);
    let error;
    runWithEventLoopTimeout(T, () => {
      try {
        db.prepare(longSql);
        for (;;);  // The TimeoutError comes here, if not at the return.
      } catch (e) {
        error = e;
      }
    });
    assert.strictEqual(error?.code, 'ERR_EVENT_LOOP_TIMEOUT', `${error}`);
    assert.doesNotMatch(error.message, /^Synchronous/);
    assert.strictEqual(it.next().value.v, 2);
    it.return();
  },
  () => {
    // Within a budget (a generous one) the results are those of a run
    // without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
]);
