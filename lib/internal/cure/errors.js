'use strict';

// nodecure: TimeoutError, the global error of every nodecure timeout
// (doc/api/cure.md). V8 throws one where a callback that ran past its
// --event-loop-timeout budget is running; it is created in C++
// (src/node_event_loop_timeout.cc) with this class's prototype.

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

module.exports = {
  TimeoutError,
};
