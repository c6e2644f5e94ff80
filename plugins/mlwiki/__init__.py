"""ML Workload Debugging Wiki: one core that parses the wiki once, and thin adapters over it."""

__version__ = "0.1.0"
