#!/usr/bin/env python3
"""Find the wiki page for an error: same index and ranking as the site's search box."""

import sys

import _pyenv

_pyenv.prepare()

from mlwiki.cli.query import main

if __name__ == "__main__":
    sys.exit(main())
