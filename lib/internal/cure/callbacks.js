'use strict';

// nodecure: marks where each callback from the event loop into JS begins, for
// the --event-loop-timeout watchdog (src/node_timeout_watchdog.h). The
// outermost callback scope is marked in C++; what runs many callbacks inside
// one scope (the nextTick queue, the timer lists, the immediate queue) marks
// each one here, with one store into memory the watchdog samples.

const {
  ArrayPrototypeIndexOf,
  ArrayPrototypePush,
  NumberParseInt,
  ObjectGetOwnPropertySymbols,
  ReflectApply,
  StringPrototypeIndexOf,
  StringPrototypeSlice,
  SymbolPrototypeGetDescription,
  Uint32Array,
} = primordials;

const AsyncContextFrame = require('internal/async_context_frame');

// Indices into the watchdog's shared words (TimeoutWatchdog::Field).
const kCallbackId = 0;
const kCallbackBudget = 1;
const kSleeping = 2;
// Values of kCallbackBudget.
const kUseDefaultBudget = 0;
const kNoBudget = 0xFFFFFFFF;

// `fields`: a Uint32Array over the shared words once this thread's watchdog
// exists, and words of nobody's until then. It is a property of an object
// that the queues hold (internal/process/task_queues, internal/timers), so
// that they end a callback without a call: when the application's code of a
// callback returns, a timeout that fired just then is still pending, and the
// entry check of any function called next (even beginCallback()) would
// throw it into Node's own bookkeeping. The queues therefore store a new id
// first,
//   callbackState.fields[0] = (callbackState.fields[0] + 2) | 1;
// which V8 then sees as another callback: the late request is dropped. Until
// the feature is used on the thread they neither store nor call
// beginCallback(): the timer lists and the immediate queue test
// `callbackState.enabled` per callback; the nextTick queue, the cheapest
// per callback, tests a var of its own (which onEnable() sets when enable()
// runs) once per tick and runs its timed body elsewhere.
// (A plain literal: one with `__proto__: null` is a dictionary-mode object,
// whose property loads cost ~10 ns on the nextTick path.)
const callbackState = {
  fields: new Uint32Array(3),
  enabled: false,
};

// What enable() calls once, after `fields` and `enabled` are set: the
// queues' functions that set their flags.
const enableHooks = [];

// fn() runs when the feature is first used on the thread (at once if it is
// in use already).
function onEnable(fn) {
  if (callbackState.enabled) {
    fn();
  } else {
    ArrayPrototypePush(enableHooks, fn);
  }
}

// A new callback begins: the next odd id, with the default budget. A
// watchdog that went to sleep (after a second without callbacks, e.g.
// during a long main module, or before the feature was first used inside
// a timer) only samples again once woken. The timer lists write these
// lines out (lib/internal/timers.js): a call there costs TurboFan's
// inlining budget.
function beginCallback() {
  const { fields } = callbackState;
  fields[kCallbackId] = (fields[kCallbackId] + 2) | 1;
  fields[kCallbackBudget] = kUseDefaultBudget;
  if (fields[kSleeping] !== 0) wakeWatchdog();
}

// JS began a callback and saw the watchdog asleep (fields[kSleeping]).
function wakeWatchdog() {
  internalBinding('cure').wakeWatchdog();
}

// Times the rest of the running callback afresh with a budget of `ms`
// (kUseDefaultBudget, kNoBudget: none); returns the budget it had, for
// restoring. Between callbacks (the main module's first evaluation, a
// callback that began before the feature was first used), only with
// `open`: a callback is then opened, and what this returns closes it when
// given back (src/node_cure.cc).
function setCallbackBudget(ms, open = false) {
  enable();
  return internalBinding('cure').setCallbackBudget(ms, open);
}

// Budgets of async contexts (runWithEventLoopTimeout(), lib/cure.js): an
// AsyncLocalStorage whose store is the budget, created by the first call, and
// an async_hooks before() that gives each callback that begins in such a
// context (a timer, an I/O callback, a nextTick, a promise reaction...) that
// budget. Until the first call neither exists: other applications' callbacks
// pay nothing.
//
// There is no after(): it would run at the end of the callback, in its
// epoch, where a timeout that fired just then would be thrown into
// async_hooks (fatal). Callbacks that JS or C++ begins start with the default
// budget anyway; the one place a budget would outlive its callback is the
// next promise reaction of the same microtask checkpoint, so a reaction
// without a context budget that follows one with it gets the default back.
let budgetStorage;
let contextBudgetApplied = false;
// With AsyncContextFrame (--experimental-async-context-frame; the default
// from Node.js 24): AsyncResource, executionAsyncResource(), and the key
// under which an AsyncResource keeps the frame it was made in (undefined:
// not looked up yet; null: not found).
let AsyncResource;
let executionAsyncResource;
let resourceFrameKey;

function applyBudget(budget) {
  if (callbackState.fields[kCallbackBudget] !== budget)
    setCallbackBudget(budget);
}

// The frame an AsyncResource was made in, which its runInAsyncScope()
// enters. lib/async_hooks.js keeps it under a symbol of its own.
function resourceFrame(resource) {
  if (resourceFrameKey === undefined) {
    resourceFrameKey = null;
    const keys = ObjectGetOwnPropertySymbols(resource);
    for (let i = 0; i < keys.length; i++) {
      if (SymbolPrototypeGetDescription(keys[i]) === 'context_frame') {
        resourceFrameKey = keys[i];
        break;
      }
    }
  }
  return resourceFrameKey === null ?
    AsyncContextFrame.current() : resource[resourceFrameKey];
}

// The budget of the async context of the callback that begins. Node.js's
// queues and C++ enter a callback's frame before they emit before(), but
// AsyncResource's runInAsyncScope() (AsyncResource.bind(),
// AsyncLocalStorage.bind() and snapshot(), EventEmitterAsyncResource, the
// http Agent's queued requests) emits it first: with AsyncContextFrame,
// the store of the current frame would be the caller's, so read the
// resource's frame. (Without it, AsyncLocalStorage reads the store of the
// resource that before() is for: already right.)
function contextBudget() {
  if (AsyncContextFrame.enabled) {
    const resource = executionAsyncResource();
    if (resource instanceof AsyncResource)
      return resourceFrame(resource)?.get(budgetStorage);
  }
  return budgetStorage.getStore();
}

function enterContextBudget() {
  const budget = contextBudget();
  if (budget !== undefined) {
    applyBudget(budget);
    contextBudgetApplied = true;
  } else if (contextBudgetApplied) {
    applyBudget(kUseDefaultBudget);
    contextBudgetApplied = false;
  }
}

// Calls fn with thisArg and args in an async context whose callbacks have
// `budget` (a value of kCallbackBudget).
function runWithContextBudget(budget, fn, thisArg, args) {
  if (budgetStorage === undefined) {
    const asyncHooks = require('async_hooks');
    ({ AsyncResource, executionAsyncResource } = asyncHooks);
    const { AsyncLocalStorage, createHook } = asyncHooks;
    budgetStorage = new AsyncLocalStorage();
    createHook({ before: enterContextBudget }).enable();
  }
  // The caller set this callback's budget: a callback that begins inside fn
  // without a context budget of its own keeps it.
  contextBudgetApplied = false;
  return budgetStorage.run(budget, ReflectApply, fn, thisArg, args);
}

let eventLoopTimeoutChannel;

// Called from C++ (src/node_event_loop_timeout.cc) once per timeout, after
// the interrupted callback returned, in that callback's async context.
// action: 'throw', or 'report' for a callback that ran on
// (--event-loop-timeout-action=report): `error` was made where it was then,
// not thrown, and a warning names that place. elapsed: how long (ms) the
// callback had run at that point.
function publishEventLoopTimeout(error, budget, action, elapsed) {
  eventLoopTimeoutChannel ??=
    require('diagnostics_channel').channel('cure:event-loop-timeout');
  if (eventLoopTimeoutChannel.hasSubscribers) {
    const frame = AsyncContextFrame.enabled ?
      keptFrame(require('async_hooks').executionAsyncResource()) : undefined;
    if (frame === undefined) {
      eventLoopTimeoutChannel.publish({ error, budget, action, elapsed });
    } else {
      const prior = AsyncContextFrame.exchange(frame);
      try {
        eventLoopTimeoutChannel.publish({ error, budget, action, elapsed });
      } finally {
        AsyncContextFrame.set(prior);
      }
    }
  }
  if (action === 'report') warnEventLoopReport(error, elapsed);
}

// With AsyncContextFrame, the frame that a callback of `resource` ran in,
// where JS keeps it on the resource: an AsyncResource (lib/async_hooks.js,
// Symbol('context_frame')), a Timeout, an Immediate or a nextTick
// (lib/internal/timers.js and lib/internal/process/task_queues.js, each
// module's own Symbol('kAsyncContextFrame')). undefined for any other
// resource: C++ entered the frame of a native one (AsyncWrap) already.
// Only when a timeout is published: the frame current at the overrun may
// be that of an AsyncLocalStorage run() inside the callback, which ended.
function keptFrame(resource) {
  if (resource === null || typeof resource !== 'object') return undefined;
  const keys = ObjectGetOwnPropertySymbols(resource);
  for (let i = 0; i < keys.length; i++) {
    const description = SymbolPrototypeGetDescription(keys[i]);
    if (description === 'context_frame' ||
        description === 'kAsyncContextFrame') {
      return resource[keys[i]];
    }
  }
  return undefined;
}

function warnEventLoopReport(error, elapsed) {
  const stack = `${error.stack}`;
  const frames = StringPrototypeSlice(
    stack, StringPrototypeIndexOf(stack, '\n') + 1);
  require('internal/cure/report').warnReport(
    `event-loop:${frames}`,
    error.code,
    `${error.message}: reported, not stopped ` +
    `(--event-loop-timeout-action=report). It had run ${elapsed} ms here:`,
    frames || '    (no JavaScript frame)');
}

const kActions = ['throw', 'report'];

// --event-loop-timeout-action on this thread: 'throw' or 'report'.
function getEventLoopTimeoutAction() {
  return kActions[internalBinding('cure').getEventLoopTimeoutState()[4]];
}

function setEventLoopTimeoutAction(action) {
  enable();
  internalBinding('cure').setEventLoopTimeoutAction(
    ArrayPrototypeIndexOf(kActions, action));
}

function enable() {
  if (callbackState.enabled) return;
  const binding = internalBinding('cure');
  binding.setEventLoopTimeoutHooks(
    require('internal/cure/errors').TimeoutError.prototype,
    publishEventLoopTimeout);
  callbackState.fields = binding.getCallbackFields();
  callbackState.enabled = true;
  for (let i = 0; i < enableHooks.length; i++) enableHooks[i]();
}

// At startup on every thread (pre-execution): applies --event-loop-timeout,
// --event-loop-turn-timeout and --event-loop-timeout-action.
function setupEventLoopTimeout() {
  const { getOptionValue } = require('internal/options');
  // Validated at startup (src/node_options.cc).
  const ms = NumberParseInt(getOptionValue('--event-loop-timeout'), 10);
  const turnMs =
    NumberParseInt(getOptionValue('--event-loop-turn-timeout'), 10);
  if (getOptionValue('--event-loop-timeout-action') === 'report')
    setEventLoopTimeoutAction('report');
  if (ms > 0) {
    enable();
    internalBinding('cure').setEventLoopTimeout(ms);
  }
  if (turnMs > 0) {
    enable();
    internalBinding('cure').setEventLoopTurnTimeout(turnMs);
  }
}

module.exports = {
  beginCallback,
  callbackState,
  enable,
  getEventLoopTimeoutAction,
  kNoBudget,
  kUseDefaultBudget,
  onEnable,
  runWithContextBudget,
  setCallbackBudget,
  setEventLoopTimeoutAction,
  setupEventLoopTimeout,
  timeoutActions: kActions,
  wakeWatchdog,
};
