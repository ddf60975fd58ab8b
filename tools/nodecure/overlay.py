#!/usr/bin/env python3
"""Copy our new files into build/node (run by make before each build), and
regenerate its makefiles when a gyp file changed since they were written."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
import configure  # noqa: E402
from common import BUILD, log  # noqa: E402


def refresh_makefiles(tree):
  """A commit in build/node that touches node.gyp, uv.gyp, ... (a rebase of
  the patch commits does) makes out/Makefile's own regeneration rule run,
  and upstream's rule runs ./configure.py with sh, which fails. Regenerate
  them here instead, with the arguments of the last configure (recorded in
  config.status)."""
  makefile = tree / 'out' / 'Makefile'
  status = tree / 'config.status'
  if not makefile.exists() or not status.exists():
    return
  m = re.search(r'^Makefile: (.*)$', makefile.read_text(), re.M)
  if not m:
    return
  built = makefile.stat().st_mtime
  inputs = [Path(p.replace('$(srcdir)', str(tree))) for p in m.group(1).split()]
  changed = [p for p in inputs if p.exists() and p.stat().st_mtime > built]
  if changed:
    log('overlay: %s changed: regenerating the makefiles' %
        changed[0].relative_to(tree))
    # config.status: `exec ./configure ARGS`; Debian's source has only
    # configure.py (./configure runs it the same way).
    m = re.search(r'^exec \./configure (.*)$', status.read_text(), re.M)
    subprocess.run([sys.executable, 'configure.py'] + shlex.split(m.group(1)),
                   cwd=tree, check=True, env=common.build_env(),
                   stdout=subprocess.DEVNULL)


if __name__ == '__main__':
  configure.overlay(BUILD / 'node')
  refresh_makefiles(BUILD / 'node')
