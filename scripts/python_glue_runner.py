#!/usr/bin/env python3
"""Run a wiki action or workflow safely. See --help, or wiki/SCHEMA.md for the action format."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "plugins"))

from mlwiki.cli.run import main

if __name__ == "__main__":
    sys.exit(main())
