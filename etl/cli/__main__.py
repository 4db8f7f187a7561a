"""`python -m etl.cli ...`: the same command line as the `etl` script."""

from etl.cli import cli

cli(prog_name="etl")
