"""Command line: a thin click layer over the etl library. Each command is imported only when
used, so `etl --help` stays fast. The ingest's commands live in etl/cli/ (where the
library's typed errors become messages and exit statuses); the others still beside the
module they drive."""

from __future__ import annotations

import importlib
import importlib.util

import click

# command name -> "module:attribute" of a click.Command
COMMANDS: dict[str, str] = {
    "synth": "etl.synth.command:synth",
    "ingest": "etl.cli.ingest:ingest_command",
    "check": "etl.cli.ingest:check_command",
    "leaderboard": "etl.leaderboard:leaderboard_command",
    "compare": "etl.compare:compare_command",
    "search": "etl.search:search_command",
    "query": "etl.query:query_command",
    "lineage": "etl.lineage:lineage_command",
    "export": "etl.export:export_command",
    "report": "etl.report:report_command",
    "bench": "etl.bench:bench_command",
    "serve": "etl.serve.command:serve_command",
}


def _available() -> dict[str, str]:
    found = {}
    for name, target in COMMANDS.items():
        module = target.split(":")[0]
        try:
            spec = importlib.util.find_spec(module)
        except ModuleNotFoundError:  # a parent package that is not there yet
            spec = None
        if spec is not None:
            found[name] = target
    return found


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_available())

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = _available().get(name)
        if target is None:
            return None
        module, attr = target.split(":")
        return getattr(importlib.import_module(module), attr)


@click.group(cls=LazyGroup)
@click.version_option(package_name="clinseek-warehouse")
def cli() -> None:
    """Turn ClinSeek evaluation result trees into one DuckDB warehouse.

    Typical use: `etl ingest RESULTS_ROOT --db warehouse.duckdb`, then
    `etl leaderboard --db warehouse.duckdb` or `etl query --db warehouse.duckdb "SELECT ..."`.
    """


if __name__ == "__main__":
    cli()
