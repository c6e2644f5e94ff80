"""The glue runner: validated parameters -> argv (no shell) -> process with timeout -> summary.

Thin CLI in :mod:`mlwiki.cli.run`; actions come from the core, already schema-checked.
"""
