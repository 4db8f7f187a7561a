"""The library's errors, shared by every stage: one base type, each module's own error a
subclass of it (as dlt types its errors per package), so the command line turns any of them
into a message and an exit status in one place (etl/cli/errors.py) without knowing the
stage, and a notebook can catch `etl.errors.EtlError` alone.

`str(error)` is the whole message, written for the user: what is wrong and what to do.
`exit_code` is the status `etl` exits with when the error ends a command."""

from __future__ import annotations

from collections.abc import Iterable


class EtlError(Exception):
    """Something the library cannot do as asked; str() says what and how to fix it."""

    exit_code = 1


class WarehouseError(EtlError):
    """A request the warehouse cannot answer as asked (an unknown or ambiguous run name).
    candidates: the run ids an ambiguous name could mean (empty otherwise), so that a caller
    can offer them (the explorer links each one)."""

    def __init__(self, message: str, candidates: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.candidates = candidates


def first_line(error: BaseException) -> str:
    """The first line of an exception's message (DuckDB's run on with context lines)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


# How many valid values an unknown-name message lists when none is close to what was typed.
LISTED_AT_MOST = 12


def closest(value: str, valid: Iterable[str], n: int = 3) -> list[str]:
    """The valid values nearest to value (difflib's ratio, case and - / _ / space ignored),
    best first; empty when none is near."""
    import difflib  # only when a name is unknown: keeps `etl --help` light

    def key(text: str) -> str:
        return text.lower().replace("-", "_").replace(" ", "_")

    by_key: dict[str, str] = {}
    for item in sorted(valid):
        by_key.setdefault(key(item), item)
    if key(value) in by_key:  # the same name but for case or - / _ / space
        return [by_key[key(value)]]
    near = difflib.get_close_matches(key(value), list(by_key), n=n, cutoff=0.6)
    if not near and value:  # a prefix typed short ("agent" for "agentic") is near too
        near = [k for k in sorted(by_key) if k.startswith(key(value))][:n]
    return [by_key[k] for k in near]


def _plural(noun: str) -> str:
    return noun + ("es" if noun.endswith(("s", "x", "ch", "sh")) else "s")


class UnknownName(WarehouseError):
    """A value (benchmark, mode, model, scorer, run, column, ...) that names nothing here.
    The message names the closest valid values, or lists them when none is close; `why`
    gives the reason instead when the name exists but cannot be used here. Suggestions are
    drawn from `valid`; the list shown is `listed` (default: valid); `head` replaces the
    message's opening words ("unknown <kind> '<value>'")."""

    exit_code = 2

    def __init__(self, kind: str, value: str, valid: Iterable[str], why: str = "",
                 listed: Iterable[str] | None = None, head: str | None = None) -> None:
        valid = set(valid)
        self.kind, self.value = kind, value
        self.suggestions = [] if why else closest(value, valid)
        self.valid = sorted(valid if listed is None else set(listed))
        message = head or f"unknown {kind} {value!r}"
        if why:
            message = f"{kind} {value!r}: {why}"
        if self.suggestions:
            message += f"; did you mean {' or '.join(self.suggestions)}?"
        elif not message.endswith("."):
            message += "."
        if not self.suggestions and self.valid:
            shown = self.valid[:LISTED_AT_MOST]
            more = f" (and {len(self.valid) - len(shown)} more)" if self.valid[len(shown):] else ""
            message += f" Valid {_plural(kind)}: {', '.join(shown)}{more}."
        elif not self.valid:
            message += f" This warehouse has no {_plural(kind)}."
        super().__init__(message)
