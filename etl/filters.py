"""Every filter a reader takes (benchmark, mode, split, model, scorer, run, task, failure
label), checked against
the warehouse before a query runs: an unknown value raises UnknownName naming the closest
valid values (an empty table for a typo would look like "no data"), and a model given by its
display name or any alias becomes its canonical key through the one table of model names
(sql/queries/model_names.sql). The notebook API (etl/api.py), `etl leaderboard`,
`etl search` and `etl compare` all go through `check_filters`.

Values from a DataFrame or a pyarrow Table (`table["qid"][0]`: a pyarrow scalar, a numpy
integer) are taken as the Python values they hold (`plain`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import duckdb

from etl.errors import UnknownName, WarehouseError
from etl.glossary import scorer_description
from etl.schema import query_text

# The valid values of each filter: small fixed statements over the catalog tables.
VALUES_SQL: dict[str, str] = {
    "benchmark": "SELECT DISTINCT benchmark FROM runs WHERE benchmark IS NOT NULL",
    "mode": "SELECT DISTINCT mode FROM runs WHERE mode IS NOT NULL",
    "split": "SELECT DISTINCT split FROM runs WHERE split IS NOT NULL",
    "run": "SELECT run_id FROM runs",
    # every scorer with rows, and those a leaderboard can be shown with
    "scorer": "SELECT DISTINCT scorer FROM question_scores WHERE scorer IS NOT NULL",
    "board scorer": "SELECT DISTINCT scorer FROM leaderboard_scorers",
    "task": "SELECT DISTINCT task FROM results WHERE task IS NOT NULL",
    # the failure labels of the registry (etl/failures/registry.py, table failures)
    "failure": "SELECT failure FROM failures",
}
SCORER_ROWS_SQL = ("SELECT count(*), string_agg(DISTINCT u.benchmark, ', ' ORDER BY u.benchmark) "
                   "FROM question_scores AS s JOIN runs AS u ON u.run_id = s.run_id "
                   "WHERE s.scorer = ?")


def plain(value: Any) -> Any:
    """The Python value behind a pyarrow scalar (`.as_py()`) or a numpy scalar (`.item()`);
    anything else as it is."""
    if hasattr(value, "as_py"):
        return value.as_py()
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        return value.item()
    return value


def valid_values(con: duckdb.DuckDBPyConnection, kind: str) -> list[str]:
    """Every value the filter `kind` (a VALUES_SQL key) takes in this warehouse."""
    return sorted(row[0] for row in con.execute(VALUES_SQL[kind]).fetchall())


def model_names(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str]]:
    """(spelling, canonical key, kind: key | display | alias) of every model name
    (sql/queries/model_names.sql)."""
    return [tuple(row) for row in con.execute(query_text("model_names")).fetchall()]


def model_key(con: duckdb.DuckDBPyConnection, name: str) -> str:
    """The canonical key of the model `name` names (key, display name or alias, as written
    or in another case). UnknownName with the closest keys and display names when it names
    none; WarehouseError when it names several."""
    names = model_names(con)
    found = {model for spelling, model, _ in names if spelling == name}
    if not found:
        found = {model for spelling, model, _ in names if spelling.lower() == name.lower()}
    if not found:
        raise UnknownName("model", name, [s for s, _, kind in names if kind != "alias"],
                          listed={model for _, model, _ in names})
    if len(found) > 1:
        raise WarehouseError(f"model name {name!r} means {len(found)} models "
                             f"({', '.join(sorted(found))}); give the key")
    return next(iter(found))


def _checked(con: duckdb.DuckDBPyConnection, kind: str, value: Any) -> Any:
    value = plain(value)
    if value is None:
        return None
    valid = valid_values(con, kind)
    if value not in valid:
        raise UnknownName(kind, str(value), valid)
    return value


def check_board_scorer(con: duckdb.DuckDBPyConnection, scorer: Any) -> str | None:
    """A scorer a leaderboard can be shown with (leaderboard_scorers). A scorer that has
    rows but no board is refused with the reason and where its rows are; an unknown one with
    the closest names."""
    scorer = plain(scorer)
    if scorer is None:
        return None
    boards = valid_values(con, "board scorer")
    if scorer in boards:
        return scorer
    n_rows, benchmarks = con.execute(SCORER_ROWS_SQL, [scorer]).fetchall()[0]
    if n_rows:
        why = (f"not a leaderboard scorer, so no board is made with it. "
               f"{scorer_description(scorer)} Its {n_rows} rows ({benchmarks}) are in "
               f"question_scores: etl query \"SELECT * FROM question_scores WHERE scorer = "
               f"'{scorer}'\", or scores(scorer='{scorer}') in a notebook.")
        raise UnknownName("scorer", scorer, boards, why=why)
    raise UnknownName("scorer", str(scorer), boards)


@dataclass(frozen=True)
class Filters:
    """Filter values as the warehouse spells them (model: the canonical key)."""

    benchmark: str | None = None
    mode: str | None = None
    split: str | None = None
    model: str | None = None
    run: str | None = None
    scorer: str | None = None
    task: str | None = None
    failure: str | None = None


def check_filters(con: duckdb.DuckDBPyConnection, *, benchmark: Any = None, mode: Any = None,
                  split: Any = None, model: Any = None, run: Any = None, scorer: Any = None,
                  board_scorer: bool = False, task: Any = None, failure: Any = None
                  ) -> Filters:
    """Each given filter checked against the warehouse (None: not filtered). model is
    resolved to its key; scorer must have rows in question_scores, or a leaderboard board
    when board_scorer. Raises UnknownName (or WarehouseError for an ambiguous model)."""
    model = plain(model)
    return Filters(
        benchmark=_checked(con, "benchmark", benchmark),
        mode=_checked(con, "mode", mode),
        split=_checked(con, "split", split),
        model=None if model is None else model_key(con, str(model)),
        run=_checked(con, "run", run),
        scorer=(check_board_scorer(con, scorer) if board_scorer
                else _checked(con, "scorer", scorer)),
        task=_checked(con, "task", task),
        failure=_checked(con, "failure", failure),
    )
