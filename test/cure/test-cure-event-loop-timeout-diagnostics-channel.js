// Flags: --event-loop-timeout=50
'use strict';
// Each event-loop timeout is published on the cure:event-loop-timeout
// diagnostics_channel once the interrupted callback has returned, with the
// error it threw, in that callback's async context: an AsyncLocalStorage
// store tells which client caused it.
const common = require('../common');
const assert = require('assert');
const dc = require('diagnostics_channel');
const { AsyncLocalStorage } = require('async_hooks');

const client = new AsyncLocalStorage();
// Each TimeoutError caught so far, with the client whose callback threw it.
const clients = new Map();

dc.subscribe('cure:event-loop-timeout', common.mustCall((message) => {
  assert.ok(message.error instanceof TimeoutError);
  assert.strictEqual(message.error.code, 'ERR_EVENT_LOOP_TIMEOUT');
  assert.strictEqual(message.budget, 50);
  // Published after the callback returned: it has caught the error already.
  assert.ok(clients.has(message.error));
  assert.strictEqual(client.getStore(), clients.get(message.error));
}, 2));

client.run('timer client', () => {
  setTimeout(common.mustCall(() => {
    try {
      for (;;);
    } catch (err) {
      clients.set(err, 'timer client');
    }
    // A promise reaction of another client.
    client.run('promise client', () => {
      Promise.resolve()
        .then(() => { for (;;); })
        .catch(common.mustCall((err) => clients.set(err, 'promise client')));
    });
  }), 1);
});
