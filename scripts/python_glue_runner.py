#!/usr/bin/env python3
"""Run a wiki action or workflow safely. See --help, or wiki/SCHEMA.md for the action format."""

import sys

import _pyenv

_pyenv.prepare()

from mlwiki.cli.run import main

if __name__ == "__main__":
    sys.exit(main())
