"""Shared paths, settings and helpers of nodecure's build scripts."""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The upstream line a build is made from. DEFAULT_BASE, Node 24, is what
# ./configure and make build: build/, patches/<layer>/, inputs.py, ./node.
# While the next LTS line is ported it is built beside it (./configure
# --base=N, make NODE_BASE=N) in build-N/ from patches/N/<layer>/ and the
# tables of inputs_N.py, linked as ./nodeN, until it passes everything and
# takes the default's place (doc/contributing/rebasing.md). A base exists
# where its inputs file does. NODECURE_BASE carries the choice to every
# script.
DEFAULT_BASE = '24'
BASES = (DEFAULT_BASE,) + tuple(sorted(
    p.stem[len('inputs_'):] for p in Path(__file__).parent.glob('inputs_*.py')))
BASE = os.environ.get('NODECURE_BASE') or DEFAULT_BASE
if BASE not in BASES:
  sys.exit('nodecure: error: NODECURE_BASE=%s: the bases are %s (a new one '
           'needs tools/nodecure/inputs_%s.py: doc/contributing/rebasing.md)'
           % (BASE, ', '.join(BASES), BASE))


def build_dir(base):
  return ROOT / ('build' if base == DEFAULT_BASE else 'build-' + base)


def queue_dir(base):
  """The patch queue of a base: patches/<layer>/ for the default,
  patches/<base>/<layer>/ beside it (a layer both share is a symbolic link
  there)."""
  return ROOT / 'patches' if base == DEFAULT_BASE else ROOT / 'patches' / base


BUILD = build_dir(BASE)
# What make links: ./node and ./node-baseline, or ./node<base> and
# ./node<base>-baseline for a base built beside the default.
NODE_BIN = ROOT / ('node' if BASE == DEFAULT_BASE else 'node' + BASE)
BASELINE_BIN = NODE_BIN.with_name(NODE_BIN.name + '-baseline')
PATCHES = queue_dir(BASE)
CACHE = Path(os.environ.get('NODECURE_CACHE',
                            Path.home() / '.cache' / 'nodecure'))
# Our machines keep copies of inputs that may leave the archive in
# ../shared/cache: tried after the archive, never before, and only where it
# exists. NODECURE_FALLBACK names another directory; empty turns it off.
FALLBACK = os.environ.get('NODECURE_FALLBACK', str(ROOT.parent / 'shared' /
                                                   'cache'))
FALLBACK = Path(FALLBACK) if FALLBACK else None

# The patch queue: patches/<layer>/.patches lists each layer's patches in
# order; the layers apply in this order. The baseline tree gets only the
# layers that make upstream build here, none of nodecure's features.
LAYERS = ['build', 'v8', 'uv', 'node']
BASELINE_LAYERS = ['build']
TAG_UPSTREAM = 'nodecure/upstream'
TAG_BASE = 'nodecure/baseline'

# Our new files, copied into build/node (never replacing an upstream file).
OVERLAY_DIRS = ['deps', 'src', 'lib', 'test', 'doc', 'benchmark', 'typings']

# One compiler for every build (baseline and patched alike), through ccache.
CC = os.environ.get('NODECURE_CC', 'ccache clang-19')
CXX = os.environ.get('NODECURE_CXX', 'ccache clang++-19')


def jobs():
  return int(os.environ.get('JOBS', os.cpu_count() or 2))


def build_env():
  """The environment of every compile: the same in any clone, so a fresh
  checkout elsewhere hits the ccache that an earlier build warmed."""
  env = dict(os.environ)
  env.update({
      'CC': CC, 'CXX': CXX, 'CC_host': CC, 'CXX_host': CXX,
      'CCACHE_BASEDIR': str(ROOT),
      'CCACHE_NOHASHDIR': '1',
      'CCACHE_SLOPPINESS': 'include_file_mtime,include_file_ctime',
      # As the Makefile: no second preprocessor run on a miss.
      'CCACHE_DEPEND': '1',
  })
  env.setdefault('CCACHE_MAXSIZE', '25G')
  return env


def log(msg):
  print('nodecure: ' + msg, flush=True)


def die(msg):
  print('nodecure: error: ' + msg, file=sys.stderr, flush=True)
  sys.exit(1)


def run(cmd, cwd=None, env=None, capture=False, quiet=False, check=True):
  """Run a command; on failure show what it printed and stop."""
  if capture or quiet:
    r = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
  else:
    r = subprocess.run(cmd, cwd=cwd, env=env)
  if check and r.returncode:
    if r.stdout:
      sys.stderr.write(r.stdout[-20000:])
    die('command failed (exit %d): %s' % (r.returncode, ' '.join(map(str, cmd))))
  return r.stdout if capture else r


def series(layer_dir):
  """The patches of one layer, in the order its .patches file gives."""
  order = layer_dir / '.patches'
  if not order.exists():
    return []
  out = []
  for line in order.read_text().splitlines():
    line = line.strip()
    if line and not line.startswith('#'):
      p = layer_dir / line
      if not p.exists():
        die('%s lists %s, which does not exist' % (order, line))
      out.append(p)
  return out


def patches_digest(dirs):
  h = hashlib.sha256()
  for d in dirs:
    for p in series(d):
      h.update(p.name.encode())
      h.update(p.read_bytes())
  return h.hexdigest()[:16]


def tree_key():
  """Identifies the patch queue applied to build/node (configure records
  the upstream source it was unpacked from beside it, so that an update of
  another input, c-ares say, does not re-apply the queue)."""
  return patches_digest([PATCHES / l for l in LAYERS])
