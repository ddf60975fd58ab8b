'use strict';

// nodecure: TimeoutError, the global error of every nodecure timeout
// (doc/api/cure.md). Every one is made in C++, by one factory
// (src/node_cure_errors.h), with this class's prototype and one of the codes
// that C++ lists once (internalBinding('cure').timeoutErrorCodes); each code
// is registered here with internal/errors' E(), as Node's own are.

const {
  ErrorCaptureStackTrace,
  ObjectDefineProperty,
} = primordials;

class TimeoutError extends Error {
  constructor(message = 'The operation timed out', options = undefined) {
    super(message, options);
    if (options?.code !== undefined) this.code = options.code;
    ErrorCaptureStackTrace(this, TimeoutError);
  }
}

ObjectDefineProperty(TimeoutError.prototype, 'name', {
  __proto__: null,
  value: 'TimeoutError',
  writable: true,
  enumerable: false,
  configurable: true,
});

// codes.ERR_EVENT_LOOP_TIMEOUT and the others: TimeoutErrors of that code,
// with the message given (`new codes.ERR_THREADPOOL_TIMEOUT('...')`).
const { E } = require('internal/errors');
const { timeoutErrorCodes } = internalBinding('cure');
for (let i = 0; i < timeoutErrorCodes.length; i++)
  E(timeoutErrorCodes[i], '%s', TimeoutError);

// Whether `err` is the TimeoutError of --event-loop-timeout (a callback
// past its budget), for Node's own code that goes on after one.
function isEventLoopTimeout(err) {
  return err instanceof TimeoutError && err.code === 'ERR_EVENT_LOOP_TIMEOUT';
}

module.exports = {
  TimeoutError,
  isEventLoopTimeout,
};
