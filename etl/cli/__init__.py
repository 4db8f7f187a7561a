"""Command line: a thin click layer over the etl library, and the only package that imports
click (tests/cli/test_cli_layering.py checks it). One module per command or family:

    ingest.py       etl ingest, etl check
    synth.py        etl synth
    leaderboard.py  etl leaderboard
    compare.py      etl compare
    failures.py     etl failures
    search.py       etl search
    query.py        etl query
    lineage.py      etl lineage
    export.py       etl export
    report.py       etl report
    bench.py        etl bench
    serve.py        etl serve
    serve_bench.py  python -m etl.cli.serve_bench

options.py holds the options several commands share (--db, --format, --columns, --wide)
and errors.py the one place where the library's typed errors become messages and exit
statuses. Each command is imported only when used, so `etl --help` stays fast."""

from __future__ import annotations

import importlib

import click

# command name -> ("module:attribute" of its click.Command, the line `etl --help` shows for
# it). The line lives here so that `etl --help` imports no command module.
COMMANDS: dict[str, tuple[str, str]] = {
    "synth": ("etl.cli.synth:synth", "Write a synthetic ClinSeek results tree."),
    "ingest": ("etl.cli.ingest:ingest_command",
               "Ingest a results tree into the DuckDB warehouse --db."),
    "check": ("etl.cli.ingest:check_command",
              "Report what ingesting a tree would load and reject, writing nothing."),
    "leaderboard": ("etl.cli.leaderboard:leaderboard_command",
                    "Print the leaderboard (per model, task or group; other boards)."),
    "compare": ("etl.cli.compare:compare_command",
                "Compare two leaderboard runs question by question."),
    "failures": ("etl.cli.failures:failures_command",
                 "Why leaderboard runs fail, what they spend, how consistent they are."),
    "search": ("etl.cli.search:search_command",
               "Find the messages, reasoning or tool arguments that contain a phrase."),
    "query": ("etl.cli.query:query_command", "Run read-only SQL against the warehouse."),
    "lineage": ("etl.cli.lineage:lineage_command",
                "Show archived runs and what superseded them, or one archive's diff."),
    "export": ("etl.cli.export:export_command",
               "Export every table and view as Parquet for other engines."),
    "report": ("etl.cli.report:report_command",
               "Write one self-contained HTML report of the warehouse."),
    "bench": ("etl.cli.bench:bench_command",
              "Measure the ingest beside its peers on bench-scale trees."),
    "serve": ("etl.cli.serve:serve_command",
              "Browse the warehouse in a web browser (the local explorer)."),
}


class LazyGroup(click.Group):
    """A group that imports a command's module only to run it (or show its own --help)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        target, summary = COMMANDS[name]
        module, attr = target.split(":")
        command = getattr(importlib.import_module(module), attr)
        command.short_help = summary
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, COMMANDS[name][1]) for name in self.list_commands(ctx)])


@click.group(cls=LazyGroup)
@click.version_option(package_name="clinseek-warehouse")
def cli() -> None:
    """Turn ClinSeek evaluation result trees into one DuckDB warehouse.

    Typical use: `etl ingest RESULTS_ROOT --db warehouse.duckdb`, then
    `etl leaderboard --db warehouse.duckdb` or `etl query --db warehouse.duckdb "SELECT ..."`.
    """


if __name__ == "__main__":
    cli()
