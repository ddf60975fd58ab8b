/* napi_work: Node-API async work whose execute writes into the addon's
 * instance data (napi_set_instance_data()), as addons that keep per-env
 * state do.
 *
 *   run(ms, cb): execute keeps a worker busy for `ms` milliseconds, then
 *   writes 42 into the instance data; complete calls cb(status, value) with
 *   its napi_status and the value that execute wrote (0 before it did).
 *
 * Node-API's contract: complete runs once execute returned, and the
 * Environment's teardown (a worker_thread's end) waits for outstanding async
 * work before it runs the instance-data finalizer and deletes the napi_env.
 * The finalizer prints to stderr whether some execute was still running:
 *
 *   finalize: execute done
 *   finalize: execute RUNNING (...)   <- the bug: teardown raced execute
 *
 *   readOnce(fd, interruptible, cb): execute calls read(fd, buf, 1) once,
 *   without retrying EINTR, as some addons do; complete calls
 *   cb(status, n, errno) with read()'s result. Upstream never interrupts
 *   it with a signal; with `interruptible` execute first lets nodecure's
 *   interrupt signal in (uv_threadpool_set_interruptible(1), uv/timeout.h),
 *   as an addon may to be stopped.
 */

#include <node_api.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <uv.h>
#include <uv/timeout.h>

#include "spin.h"

typedef struct {
  atomic_int submitted;  /* run() calls */
  atomic_int running;    /* submitted, execute not yet returned */
  atomic_int value;      /* written by execute */
} instance_t;

typedef struct {
  napi_async_work work;
  napi_ref cb;
  instance_t* instance;
  uint32_t ms;
} baton_t;

typedef struct {
  napi_async_work work;
  napi_ref cb;
  int32_t fd;
  bool interruptible;
  int32_t n;       /* read()'s result */
  int32_t error;   /* its errno, or 0 */
} read_baton_t;

#define CHECK_NAPI(call)                                                   \
  do {                                                                     \
    if ((call) != napi_ok) {                                               \
      fprintf(stderr, "napi_work: %s failed (%s:%d)\n", #call, __FILE__,  \
              __LINE__);                                                   \
      fflush(stderr);                                                      \
      abort();                                                             \
    }                                                                      \
  } while (0)

static void Finalize(napi_env env, void* data, void* hint) {
  instance_t* instance = data;
  int running = atomic_load(&instance->running);
  (void) env;
  (void) hint;
  if (running == 0) {
    fprintf(stderr, "finalize: execute done (%d run)\n",
            atomic_load(&instance->submitted));
    free(instance);
  } else {
    /* Leaked on purpose: the execute still running writes into it. */
    fprintf(stderr, "finalize: execute RUNNING (%d of %d still running)\n",
            running, atomic_load(&instance->submitted));
  }
  fflush(stderr);
}

/* On a threadpool thread: no Node-API call allowed here. */
static void Execute(napi_env env, void* data) {
  baton_t* baton = data;
  (void) env;
  spin_ms(baton->ms);
  atomic_store(&baton->instance->value, 42);
  atomic_fetch_sub(&baton->instance->running, 1);
}

/* On the loop's thread: calls `cb` with `argc` int32 arguments and
 * releases it and `work`. While the Environment tears down, calling into
 * JS may fail: then cb is not called, and the work is still deleted. */
static void CallBackAndDelete(napi_env env, napi_ref cb_ref,
                              napi_async_work work, size_t argc,
                              const int32_t* values) {
  napi_value cb, global, argv[3];
  size_t i;
  int ok = argc <= 3 &&
           napi_get_reference_value(env, cb_ref, &cb) == napi_ok &&
           napi_get_global(env, &global) == napi_ok;
  for (i = 0; ok && i < argc; i++)
    ok = napi_create_int32(env, values[i], &argv[i]) == napi_ok;
  if (ok) napi_call_function(env, global, cb, argc, argv, NULL);
  napi_delete_reference(env, cb_ref);
  napi_delete_async_work(env, work);
}

static void Complete(napi_env env, napi_status status, void* data) {
  baton_t* baton = data;
  const int32_t values[] = { (int32_t) status,
                             atomic_load(&baton->instance->value) };
  CallBackAndDelete(env, baton->cb, baton->work, 2, values);
  free(baton);
}

static napi_value Run(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], name;
  baton_t* baton;
  void* instance;

  CHECK_NAPI(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  CHECK_NAPI(napi_get_instance_data(env, &instance));
  baton = calloc(1, sizeof(*baton));
  if (baton == NULL) {
    napi_throw_error(env, NULL, "napi_work: out of memory");
    return NULL;
  }
  if (argc < 2 ||
      napi_get_value_uint32(env, argv[0], &baton->ms) != napi_ok ||
      napi_create_reference(env, argv[1], 1, &baton->cb) != napi_ok) {
    free(baton);
    napi_throw_type_error(env, NULL, "run(ms, cb) expects a number and a "
                                     "function");
    return NULL;
  }
  baton->instance = instance;
  CHECK_NAPI(napi_create_string_utf8(env, "nodecure:napi_work",
                                     NAPI_AUTO_LENGTH, &name));
  CHECK_NAPI(napi_create_async_work(env, NULL, name, Execute, Complete, baton,
                                    &baton->work));
  atomic_fetch_add(&baton->instance->submitted, 1);
  atomic_fetch_add(&baton->instance->running, 1);
  CHECK_NAPI(napi_queue_async_work(env, baton->work));
  return NULL;
}

/* On a threadpool thread: one read(), no retry. */
static void ExecuteRead(napi_env env, void* data) {
  read_baton_t* baton = data;
  char c;
  ssize_t n;
  (void) env;
  if (baton->interruptible) uv_threadpool_set_interruptible(1);
  n = read(baton->fd, &c, 1);
  baton->n = (int32_t) n;
  baton->error = n < 0 ? errno : 0;
}

static void CompleteRead(napi_env env, napi_status status, void* data) {
  read_baton_t* baton = data;
  const int32_t values[] = { (int32_t) status, baton->n, baton->error };
  CallBackAndDelete(env, baton->cb, baton->work, 3, values);
  free(baton);
}

static napi_value ReadOnce(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], name;
  read_baton_t* baton;

  CHECK_NAPI(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  baton = calloc(1, sizeof(*baton));
  if (baton == NULL) {
    napi_throw_error(env, NULL, "napi_work: out of memory");
    return NULL;
  }
  if (argc < 3 ||
      napi_get_value_int32(env, argv[0], &baton->fd) != napi_ok ||
      napi_get_value_bool(env, argv[1], &baton->interruptible) != napi_ok ||
      napi_create_reference(env, argv[2], 1, &baton->cb) != napi_ok) {
    free(baton);
    napi_throw_type_error(env, NULL, "readOnce(fd, interruptible, cb) "
                                     "expects a number, a boolean and a "
                                     "function");
    return NULL;
  }
  CHECK_NAPI(napi_create_string_utf8(env, "nodecure:napi_read",
                                     NAPI_AUTO_LENGTH, &name));
  CHECK_NAPI(napi_create_async_work(env, NULL, name, ExecuteRead,
                                    CompleteRead, baton, &baton->work));
  CHECK_NAPI(napi_queue_async_work(env, baton->work));
  return NULL;
}

/* Context-aware: each Environment (the main thread's, each worker's) gets
 * its own instance data. */
NAPI_MODULE_INIT() {
  napi_value fn;
  instance_t* instance = calloc(1, sizeof(*instance));
  if (instance == NULL) {
    napi_throw_error(env, NULL, "napi_work: out of memory");
    return NULL;
  }
  CHECK_NAPI(napi_set_instance_data(env, instance, Finalize, NULL));
  CHECK_NAPI(napi_create_function(env, "run", NAPI_AUTO_LENGTH, Run, NULL,
                                  &fn));
  CHECK_NAPI(napi_set_named_property(env, exports, "run", fn));
  CHECK_NAPI(napi_create_function(env, "readOnce", NAPI_AUTO_LENGTH, ReadOnce,
                                  NULL, &fn));
  CHECK_NAPI(napi_set_named_property(env, exports, "readOnce", fn));
  return exports;
}
