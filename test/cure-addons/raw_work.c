/* raw_work: an addon that uses libuv's threadpool directly, as many addons
 * written before Node-API do.
 *
 *   run(ms, cb): uv_queue_work() with a malloc'd baton. work_cb keeps a
 *   worker busy for `ms` milliseconds, then writes 42 into the baton;
 *   after_work_cb calls cb(result) and frees the baton.
 *
 * It relies on uv_queue_work()'s upstream contract: after_work_cb runs once,
 * after work_cb returned, with status 0 (UV_ECANCELED only after a
 * successful uv_cancel(), which it never calls). So it aborts on any other
 * status: if after_work_cb could run while work_cb still runs, freeing the
 * baton there would let work_cb write into freed memory. Plain
 * uv_queue_work() must therefore never be timed by --threadpool-timeout;
 * only callers of uv_queue_work_timed() opt in. */

#include <node_api.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <uv.h>

#include "spin.h"

typedef struct {
  uv_work_t req;           /* req.data is unused: the baton is the request */
  napi_env env;
  napi_ref cb;
  napi_async_context context;
  uint32_t ms;
  atomic_int done;         /* set by work_cb when it returns */
  int result;              /* 0 until work_cb wrote it */
} baton_t;

#define CHECK_NAPI(call)                                                  \
  do {                                                                    \
    if ((call) != napi_ok) {                                              \
      fprintf(stderr, "raw_work: %s failed (%s:%d)\n", #call, __FILE__,  \
              __LINE__);                                                  \
      fflush(stderr);                                                     \
      abort();                                                            \
    }                                                                     \
  } while (0)

static void work_cb(uv_work_t* req) {
  baton_t* baton = (baton_t*) req;
  spin_ms(baton->ms);
  baton->result = 42;
  baton->done = 1;
}

static void after_work_cb(uv_work_t* req, int status) {
  baton_t* baton = (baton_t*) req;
  napi_handle_scope scope;
  napi_value cb, resource, argv[1];

  if (status != 0 || !baton->done) {
    fprintf(stderr,
            "raw_work: after_work_cb called with status %d (%s) while "
            "work_cb %s; freeing the baton now would let work_cb write into "
            "freed memory: aborting\n",
            status, status ? uv_err_name(status) : "ok",
            baton->done ? "had returned" : "was still running");
    fflush(stderr);
    abort();
  }

  CHECK_NAPI(napi_open_handle_scope(baton->env, &scope));
  CHECK_NAPI(napi_get_reference_value(baton->env, baton->cb, &cb));
  CHECK_NAPI(napi_create_int32(baton->env, baton->result, &argv[0]));
  CHECK_NAPI(napi_get_global(baton->env, &resource));
  /* napi_make_callback(): runs the microtasks and reports an exception as
   * uncaught, like any callback from the loop into JS. */
  napi_make_callback(baton->env, baton->context, resource, cb, 1, argv, NULL);
  CHECK_NAPI(napi_close_handle_scope(baton->env, scope));

  CHECK_NAPI(napi_async_destroy(baton->env, baton->context));
  CHECK_NAPI(napi_delete_reference(baton->env, baton->cb));
  free(baton);
}

static napi_value Run(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], name;
  uv_loop_t* loop;
  baton_t* baton;
  int err;

  CHECK_NAPI(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  baton = calloc(1, sizeof(*baton));
  if (baton == NULL) {
    napi_throw_error(env, NULL, "raw_work: out of memory");
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
  baton->env = env;
  CHECK_NAPI(napi_create_string_utf8(env, "nodecure:raw_work",
                                     NAPI_AUTO_LENGTH, &name));
  CHECK_NAPI(napi_async_init(env, NULL, name, &baton->context));
  CHECK_NAPI(napi_get_uv_event_loop(env, &loop));

  /* The plain, upstream entry point: no budget asked for. */
  err = uv_queue_work(loop, &baton->req, work_cb, after_work_cb);
  if (err != 0) {
    napi_async_destroy(env, baton->context);
    napi_delete_reference(env, baton->cb);
    free(baton);
    napi_throw_error(env, NULL, uv_strerror(err));
  }
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  CHECK_NAPI(napi_create_function(env, "run", NAPI_AUTO_LENGTH, Run, NULL,
                                  &fn));
  CHECK_NAPI(napi_set_named_property(env, exports, "run", fn));
  return exports;
}
