{
  # The addons of test/cure/test-cure-threadpool-timeout-addon-*.js: each
  # submits threadpool work the way a real addon does, with work that runs
  # far past the test's --threadpool-timeout and then writes its result.
  # tools/nodecure/test.py builds them with node-gyp against build/node.
  'targets': [
    {
      # A raw libuv user: uv_queue_work() with a malloc'd baton that
      # after_work_cb frees (Node-API only for the JS glue).
      'target_name': 'raw_work',
      'sources': [ 'raw_work.c', 'spin.h' ],
    },
    {
      # NAN's AsyncWorker (the V8/node.h C++ API).
      'target_name': 'nan_worker',
      'sources': [ 'nan_worker.cc', 'spin.h' ],
      'include_dirs': [ 'node_modules/nan' ],
    },
    {
      # Node-API async work whose execute writes into the instance data.
      'target_name': 'napi_work',
      'sources': [ 'napi_work.c', 'spin.h' ],
    },
  ],
}
