#!/usr/bin/env python3
"""Copy our new files into build/node (run by make before each build)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import configure  # noqa: E402
from common import BUILD  # noqa: E402

if __name__ == '__main__':
  configure.overlay(BUILD / 'node')
