"""The `interview` command line. Each command group lives in its own module."""
