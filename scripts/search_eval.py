#!/usr/bin/env python3
"""Score search on the evaluation set: hit@1, hit@3 and MRR (a benchmark figure, not a test)."""

import sys

import _pyenv

_pyenv.prepare()

from mlwiki.cli.evaluate import main

if __name__ == "__main__":
    sys.exit(main())
