"""`python -m railfabric.cli`: the `fabric` command."""

from railfabric.cli import run

run()
