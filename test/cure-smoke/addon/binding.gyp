{
  'targets': [
    {
      # Node-API: the ABI-stable interface most addons use.
      'target_name': 'napi_addon',
      'sources': [ 'napi_addon.cc' ],
    },
    {
      # The V8/node.h C++ API: only loads if NODE_MODULE_VERSION, V8's and
      # libuv's layouts are upstream's.
      'target_name': 'v8_addon',
      'sources': [ 'v8_addon.cc' ],
    },
  ],
}
