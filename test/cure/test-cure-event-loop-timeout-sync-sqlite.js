// Flags: --event-loop-timeout=60000
'use strict';
// node:sqlite's DatabaseSync runs SQL on the loop thread: a statement ran as
// long as it ran, with nothing asking for the budget (the recursive count
// below took about 18 s on ./node-baseline, far past the bound of
// assertStopped()). A progress handler now stops it between opcodes
// (src/node_sqlite_timeout.h,
// patches/node/src-node-sqlite-statements-are-stopped-between-opcodes-by-a-timeout.patch):
// the statement throws the TimeoutError ("Synchronous sqlite stopped"), and
// SQLite rolls back what it changed, so a stopped write never lands.
// Statements within a budget give the results of a run without the option.
// Each stop runs with a budget of its own (runWithEventLoopTimeout()), in
// a callback of a long one (see test-cure-event-loop-timeout-structured-clone.js).
const common = require('../common');
const assert = require('assert');
const { DatabaseSync } = require('node:sqlite');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertSyncCallStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;

// A count to 100 million by a recursive query: about 18 s.
const long = `WITH RECURSIVE c(x) AS
  (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000000)
  SELECT count(*) AS n FROM c`;
const longWhere = `(SELECT count(*) FROM (${long})) > 0`;

const db = new DatabaseSync(':memory:');
db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER);
         WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c
           WHERE x < 1000) INSERT INTO t (v) SELECT x FROM c;`);
const sum = () => db.prepare('SELECT sum(v) AS s FROM t').get().s;
const before = sum();

// Queries of several kinds, past many calls of the progress handler, with
// and without the option.
const results = `(() => {
  const { DatabaseSync } = require('node:sqlite');
  const db = new DatabaseSync(':memory:');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT, v REAL)');
  const insert = db.prepare('INSERT INTO t (s, v) VALUES (?, ?)');
  for (let i = 0; i < 20000; i++) insert.run('k' + (i * 7919 % 20000), i / 3);
  const out = [];
  out.push(db.prepare('SELECT count(*) AS n, sum(v) AS s FROM t').get());
  out.push(db.prepare('SELECT s, v FROM t WHERE s LIKE ? ORDER BY s LIMIT 5')
    .all('k1%'));
  out.push(db.prepare(\`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL
    SELECT x + 1 FROM c WHERE x < 200000) SELECT sum(x) AS s FROM c\`).get());
  out.push(db.prepare('UPDATE t SET v = v * 2 WHERE id % 3 = 0').run());
  out.push([...db.prepare('SELECT a.id FROM t a JOIN t b ON a.s = b.s ' +
    'WHERE a.id < 50 ORDER BY a.id').iterate()].length);
  return JSON.stringify(out);
})()`;

// The main module's first evaluation has no budget.
const withoutOption = printWithoutOptions(results);


runEachInACallback([
  () => assertSyncCallStopped('get()', 'sqlite',
                              () => db.prepare(long).get(), T),
  () => assertSyncCallStopped('all()', 'sqlite',
                              () => db.prepare(long).all(), T),
  () => assertSyncCallStopped('iterate()', 'sqlite',
                              () => db.prepare(long).iterate().next(), T),
  () => assertSyncCallStopped('exec()', 'sqlite', () => db.exec(long), T),
  () => {
    // A stopped UPDATE changes nothing.
    assertSyncCallStopped('run() of an UPDATE', 'sqlite', () => db.prepare(
      `UPDATE t SET v = v + 1 WHERE ${longWhere}`).run(), T);
    assert.strictEqual(sum(), before);
    assert.strictEqual(db.isTransaction, false);
  },
  () => {
    // In an explicit transaction: the stopped statement's changes are
    // rolled back; the transaction's earlier ones are the application's to
    // commit or roll back.
    db.exec('BEGIN');
    db.prepare('UPDATE t SET v = 0 WHERE id = 1').run();
    assertSyncCallStopped('run() in a transaction', 'sqlite', () => db.prepare(
      `UPDATE t SET v = v + 1 WHERE ${longWhere}`).run(), T);
    if (db.isTransaction) db.exec('ROLLBACK');
    assert.strictEqual(sum(), before);
  },
  () => {
    // A user-defined function's JavaScript is stopped by V8, inside the
    // statement, as before.
    db.function('spin', () => { for (;;); });
    assert.throws(
      () => runWithEventLoopTimeout(T, () => db.prepare('SELECT spin()').get()),
      (err) => err instanceof TimeoutError &&
               !/^Synchronous sqlite/.test(err.message));
  },
  () => {
    // A stopped statement leaves nothing behind: the database works.
    assert.strictEqual(db.prepare('SELECT count(*) AS n FROM t').get().n, 1000);
    assert.deepStrictEqual(
      { ...db.prepare(`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL
        SELECT x + 1 FROM c WHERE x < 1000) SELECT max(x) AS m FROM c`).get() },
      { m: 1000 });
  },
  () => {
    // Within a budget (a generous one) queries give the results of a run
    // without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
  () => setImmediate(common.mustCall()),
]);
