"""The one place where the library's errors become messages and exit statuses.

The library raises typed errors (etl/errors.py EtlError and each module's subclass: the
ingest's IngestError family, QueryRefused, WarehouseUnavailable, UnknownName, ReportError,
ExportError, SearchError, SynthError, BenchError, ...); each carries the exit status it ends
a command with. Every command is an EtlCommand, whose invocation turns any of them into
one message on stderr and that status, so no command catches errors of its own and no
library module knows about click. DuckDB errors that escape a library function are shown
the same way (exit 1), never as a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

import click
import duckdb

from etl.errors import EtlError, first_line
from etl.pipeline.errors import Interrupted
from etl.terminal import printable

# How click itself prefixes an error message.
CLICK_PREFIX = "Error: "


class CommandError(click.ClickException):
    """A library error as click shows it: prefix + message on stderr, the error's status."""

    def __init__(self, message: str, exit_code: int, prefix: str = CLICK_PREFIX) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.prefix = prefix

    def show(self, file: IO[Any] | None = None) -> None:
        # A message may quote a name from the tree: its control characters are escaped.
        click.echo(printable(f"{self.prefix}{self.format_message()}"), err=True)


@contextmanager
def library_errors(prefix: str = CLICK_PREFIX) -> Iterator[None]:
    """Turn the library's errors raised inside into CommandError (message, exit status)."""
    try:
        yield
    except Interrupted as error:  # Ctrl-C: the message is the whole output
        raise CommandError(str(error), error.exit_code, prefix="") from None
    except EtlError as error:
        raise CommandError(str(error), error.exit_code, prefix) from None
    except duckdb.Error as error:
        raise CommandError(f"DuckDB: {first_line(error)}", 1, prefix) from None


class EtlCommand(click.Command):
    """A click command whose callback runs inside library_errors. error_prefix: what the
    messages start with (click's "Error: " unless the command has its own)."""

    def __init__(self, *args: Any, error_prefix: str = CLICK_PREFIX, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.error_prefix = error_prefix

    def invoke(self, ctx: click.Context) -> Any:
        with library_errors(self.error_prefix):
            return super().invoke(ctx)
