"""Layer 7, the command line: argparse and printing, one module per verb family; the only layer that may import
every other. See docs/architecture.md."""
