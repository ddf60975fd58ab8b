{
  # make test-dist builds both against nodecure's headers (tarball, prefix,
  # mirror) with the node-gyp of package.json and loads them (test.js).
  'targets': [
    {
      # NAN: the V8/node.h C++ API, so NODE_MODULE_VERSION and V8's layout
      # must be those of the headers.
      'target_name': 'nan_addon',
      'sources': [ 'nan_addon.cc' ],
      'include_dirs': [ '<!(node -e "require(\'nan\')")' ],
    },
    {
      # node-addon-api: the C++ wrapper of Node-API most addons use.
      'target_name': 'napi_addon',
      'sources': [ 'napi_addon.cc' ],
      'include_dirs': [ '<!(node -p "require(\'node-addon-api\').include_dir")' ],
      'defines': [ 'NAPI_DISABLE_CPP_EXCEPTIONS', 'NODE_ADDON_API_DISABLE_DEPRECATED' ],
    },
  ],
}
