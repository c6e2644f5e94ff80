"""Command-line adapters over the core: each ``main(argv) -> int``."""
