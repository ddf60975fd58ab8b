// Flags: --event-loop-timeout=60000
'use strict';
// A Session's changeset() and patchset() read back every row that the
// session recorded, with a statement of SQLite's own per table stepped once
// per row, and build the set between: O(rows that requests wrote). Those
// statements run on the connection, so the progress handler that stops a
// statement of node:sqlite (src/node_sqlite_timeout.h) sees their opcodes,
// and the call fails with SQLITE_INTERRUPT, which the error path turns into
// the TimeoutError ("Synchronous sqlite stopped", made only where such a
// call stops). The session is as it was: within a budget its sets are those
// of a run without the option.
const common = require('../common');
const assert = require('assert');
const { createHash } = require('crypto');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertSyncCallStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;

// A table, a session on it, then `rows` rows inserted and a third of them
// updated.
const setUp = `(rows) => {
  const { DatabaseSync } = require('node:sqlite');
  const db = new DatabaseSync(':memory:');
  db.exec('CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)');
  const session = db.createSession();
  db.exec(\`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c
                                     WHERE x < \${rows})
           INSERT INTO t SELECT x, 'value ' || x FROM c\`);
  db.exec("UPDATE t SET v = v || ' updated' WHERE id % 3 = 0");
  return session;
}`;
const digests = `((session) => {
  const { createHash } = require('crypto');
  const digest = (b) => createHash('sha256').update(b).digest('hex');
  return JSON.stringify([digest(session.changeset()), digest(session.patchset())]);
})`;

const withoutOption = printWithoutOptions(`${digests}((${setUp})(20000))`);
const small = eval(setUp)(20000);
// A million rows: made while the main module runs (no budget).
const large = eval(setUp)(1e6);
const largeDigest = (set) => createHash('sha256').update(set).digest('hex');

let largeChangeset;
runEachInACallback([
  () => {
    // Read back in full first (no budget) for the comparison below.
    largeChangeset = largeDigest(
      runWithEventLoopTimeout(0, () => large.changeset()));
  },
  () => assertSyncCallStopped('changeset() of a million rows', 'sqlite',
                              () => large.changeset(), T),
  () => assertSyncCallStopped('patchset() of a million rows', 'sqlite',
                              () => large.patchset(), T),
  common.mustCall(() => {
    assert.strictEqual(
      runWithEventLoopTimeout(60_000, () => eval(digests)(small)),
      withoutOption);
    // The stopped session gives its set in full once it has the time.
    assert.strictEqual(
      largeDigest(runWithEventLoopTimeout(60_000, () => large.changeset())),
      largeChangeset);
  }),
]);
