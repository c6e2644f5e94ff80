#!/usr/bin/env python3
"""Lint the wiki: prints a JSON report with "status": "PASS" or "FAIL"; exit 0 on PASS, 1 on FAIL."""

import sys

import _pyenv

_pyenv.prepare()

from mlwiki.cli.lint import main

if __name__ == "__main__":
    sys.exit(main())
