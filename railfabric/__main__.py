"""`python -m railfabric`: the `fabric` command."""

from railfabric.cli import run

run()
