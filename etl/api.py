"""The warehouse for notebooks: `wh = etl.open("warehouse.duckdb")`, then DataFrames.

Every method returns a pandas DataFrame when pandas is installed (`make ingest` installs it;
in a checkout `pip install -e '.[pandas]'`) and a pyarrow Table otherwise (`Warehouse(..., frames=
"arrow")` forces Tables). The file is opened read-only with external access off (the
connection of `etl query`), so a notebook can never change or lock the warehouse for an
ingest. The CLI commands `etl leaderboard` and `etl compare` call the same queries: the
leaderboard listing lives in etl/leaderboard.py, the others in sql/queries/*.sql, and every
value reaches DuckDB as a bound parameter."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from etl.leaderboard import leaderboard_query
from etl.query import open_read_only, require_warehouse
from etl.schema import query_text
from etl.search import SearchQuery, SearchResult, run_search

OUTCOMES = ("a_better", "b_better", "tie", "only_a", "only_b")
SEARCH_COLUMNS = ("benchmark", "mode", "model", "task", "run_id", "qid", "run_index", "msg_idx",
                  "call_idx", "role", "field", "text_chars", "match_at", "matched", "before",
                  "after", "display_name")


class WarehouseError(Exception):
    """A request the warehouse cannot answer as asked (an unknown or ambiguous run name).
    candidates: the run ids an ambiguous name could mean (empty otherwise), so that a caller
    can offer them (the explorer links each one)."""

    def __init__(self, message: str, candidates: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.candidates = candidates


def pandas_available() -> bool:
    return importlib.util.find_spec("pandas") is not None


@dataclass(frozen=True)
class Comparison:
    """What `Warehouse.compare` computes: the per-question table and the paired summary."""

    run_a: str
    run_b: str
    questions: Any
    summary: dict[str, Any] | None


class Warehouse:
    """A read-only view of one warehouse file."""

    def __init__(self, path: str | Path, frames: str = "auto",
                 resources: dict[str, Any] | None = None) -> None:
        if frames not in ("auto", "pandas", "arrow"):
            raise ValueError("frames must be auto, pandas or arrow")
        if frames == "pandas" and not pandas_available():
            raise ImportError("pandas is not installed: `make ingest` installs it, or in the "
                              "checkout pip install -e '.[pandas]'")
        self.path = Path(path)
        self.frames = "pandas" if frames == "auto" and pandas_available() else frames
        # resources: bounds of the connection (memory_limit, threads; see open_read_only).
        self.con = open_read_only(self.path, resources)
        require_warehouse(self.con, self.path)

    # -- plumbing ---------------------------------------------------------------------
    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Warehouse:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _frame(self, table: pa.Table) -> Any:
        return table.to_pandas() if self.frames == "pandas" else table

    def arrow(self, sql: str, params: list[Any] | dict[str, Any] | None = None) -> pa.Table:
        """Run one read query with bound parameters; a pyarrow Table."""
        return self.con.sql(sql, params=params).to_arrow_table()

    def sql(self, sql: str, params: list[Any] | dict[str, Any] | None = None) -> Any:
        """Run one read query with bound parameters (`?` or `$name`); a frame."""
        return self._frame(self.arrow(sql, params))

    def _filtered(self, view: str, filters: dict[str, Any], order: str) -> Any:
        # View, column names and order are fixed by the callers; values are bound.
        kept = {k: v for k, v in filters.items() if v is not None}
        sql = f"SELECT * FROM {view}"
        if kept:
            sql += " WHERE " + " AND ".join(f"{column} = ?" for column in kept)
        return self.sql(f"{sql} ORDER BY {order}", list(kept.values()))

    # -- the questions researchers ask -------------------------------------------------
    def leaderboard(self, benchmark: str | None = None, mode: str | None = None,
                    by: str = "model", scorer: str | None = None) -> Any:
        """The leaderboard listing of `etl leaderboard`: by = model | task | group | ranked |
        common | without_infra; scorer (model / task / group only): that scorer's board
        instead of each run's default (authors_text, authors_text_fallback, set_f1, ...)."""
        _, sql, params = leaderboard_query(by, benchmark, mode, scorer)
        return self.sql(sql, params)

    def results(self, benchmark: str | None = None, mode: str | None = None,
                model: str | None = None, run: str | None = None, qid: str | None = None
                ) -> Any:
        """Result rows (one per run, question and run index) with their error class."""
        return self._filtered(
            "results", {"benchmark": benchmark, "mode": mode, "model": model, "run_id": run,
                        "qid": qid}, "run_id, qid, run_index")

    def messages(self, run: str, qid: str, run_index: int | None = None) -> Any:
        """The trajectory of one question of one run, message by message."""
        return self._filtered("messages", {"run_id": run, "qid": qid, "run_index": run_index},
                              "run_index, msg_idx")

    def tool_calls(self, run: str | None = None, qid: str | None = None,
                   tool: str | None = None) -> Any:
        """Tool calls, filtered by run, question and tool name when given."""
        return self._filtered("tool_calls", {"run_id": run, "qid": qid, "tool": tool},
                              "run_id, qid, run_index, msg_idx, call_idx")

    def model_comparison(self, benchmark: str | None = None, mode: str | None = None,
                         by: str = "model") -> Any:
        """Paired comparisons of every pair of runs of a board: by = model | group | task."""
        view = {"model": "model_comparison", "group": "model_comparison_by_group",
                "task": "model_comparison_by_task"}[by]
        return self._filtered(view, {"benchmark": benchmark, "mode": mode},
                              "benchmark, mode, model_a, model_b")

    def mode_delta(self, benchmark: str | None = None, model: str | None = None,
                   scope: str | None = None) -> Any:
        """Agentic minus one-shot per model, paired, with intervals (mode_delta_paired)."""
        return self._filtered("mode_delta_paired",
                              {"benchmark": benchmark, "model": model, "scope": scope},
                              "benchmark, model, scope, task_group, task")

    def clustered(self, benchmark: str | None = None, mode: str | None = None,
                  by: str = "model") -> Any:
        """Scores with their standard errors naive and clustered by patient and the 95%
        clustered interval (leaderboard_clustered*): by = model | group | task."""
        view, order = {
            "model": ("leaderboard_clustered", "benchmark, mode, score DESC, run_id"),
            "group": ("leaderboard_clustered_by_group", "benchmark, mode, task_group, run_id"),
            "task": ("leaderboard_clustered_by_task",
                     "benchmark, mode, task_group, task, run_id"),
        }[by]
        return self._filtered(view, {"benchmark": benchmark, "mode": mode}, order)

    def reliability(self, benchmark: str | None = None, mode: str | None = None,
                    model: str | None = None) -> Any:
        """pass^k, worst-of-k and flip rate of runs with several runs per question
        (leaderboard_reliability)."""
        return self._filtered("leaderboard_reliability",
                              {"benchmark": benchmark, "mode": mode, "model": model},
                              "benchmark, mode, model, run_id, k")

    def changes(self, benchmark: str | None = None, mode: str | None = None) -> Any:
        """What moved on the leaderboard since the previous ingest (leaderboard_changes)."""
        return self._filtered("leaderboard_changes", {"benchmark": benchmark, "mode": mode},
                              "benchmark, mode, coalesce(rank_after, rank_before), model")

    def resolve_run(self, name: str, benchmark: str | None = None, mode: str | None = None
                    ) -> str:
        """The leaderboard run a name means: a run id, or the one run of the model it names
        (key, display name or alias) within benchmark / mode. Raises WarehouseError when it
        means none or several."""
        rows = self.con.execute(query_text("resolve_run"),
                                {"name": name, "benchmark": benchmark, "mode": mode}).fetchall()
        if not rows:
            raise WarehouseError(f"no leaderboard run matches {name!r}"
                                 + _within(benchmark, mode))
        if len(rows) > 1:
            listed = ", ".join(row[0] for row in rows)
            raise WarehouseError(f"{name!r} matches {len(rows)} leaderboard runs ({listed}); "
                                 "name the benchmark and mode, or give a run id",
                                 tuple(row[0] for row in rows))
        return rows[0][0]

    def comparison(self, a: str, b: str, benchmark: str | None = None,
                   mode: str | None = None, only: str | None = None,
                   mode_b: str | None = None) -> Comparison:
        """Per-question table and paired summary of two runs (run ids or model names).
        mode_b: the mode of b when it differs (agentic against one-shot of one model).
        only: disagreements (a_better or b_better) or one outcome of OUTCOMES."""
        run_a = self.resolve_run(a, benchmark, mode)
        run_b = self.resolve_run(b, benchmark, mode_b or mode)
        if run_a == run_b:
            raise WarehouseError(f"{a!r} and {b!r} are the same run ({run_a})")
        params = {"run_a": run_a, "run_b": run_b}
        table = self.arrow(query_text("compare_questions"), params)
        if only is not None:
            mask = pc.is_in(table["outcome"], value_set=pa.array(wanted_outcomes(only)))
            table = table.filter(mask)
        cursor = self.con.execute(query_text("compare_summary"), params)
        names = [d[0] for d in cursor.description]
        rows = cursor.fetchall()
        summary = dict(zip(names, rows[0], strict=True)) if rows else None
        return Comparison(run_a, run_b, self._frame(table), summary)

    def search(self, phrase: str, benchmark: str | None = None, mode: str | None = None,
               model: str | None = None, task: str | None = None, role: str | None = None,
               match_case: bool = False, include_archived: bool = False, limit: int = 50,
               offset: int = 0) -> Any:
        """Messages whose content (tool results included), reasoning or tool-call arguments
        contain phrase (case-insensitive unless match_case; etl/search.py has the rules), in
        current runs (every run with include_archived), narrowed by benchmark, mode, model,
        task and message role: one row per match with where it is (run_id, qid, run_index,
        msg_idx, call_idx for arguments, field), the position of its first match (match_at,
        characters) and the text around it (before, matched, after). At most limit rows from
        offset on; raises etl.search.SearchError for an empty phrase or an unknown role."""
        result = self.search_page(SearchQuery(phrase, benchmark, mode, model, task, role,
                                              match_case, include_archived, limit, offset))
        return self._frame(pa.Table.from_pylist(result.hits, schema=None) if result.hits
                           else pa.table({c: [] for c in SEARCH_COLUMNS}))

    def search_page(self, query: SearchQuery) -> SearchResult:
        """One page of search matches as dicts, and whether more follow (see search)."""
        return run_search(self.con, query, {"runs": query_text("search_runs"),
                                            "search": query_text("search")})

    def compare(self, a: str, b: str, benchmark: str | None = None, mode: str | None = None,
                only: str | None = None, mode_b: str | None = None) -> Any:
        """The per-question table of two runs (see comparison)."""
        return self.comparison(a, b, benchmark, mode, only, mode_b).questions


def wanted_outcomes(only: str) -> tuple[str, ...]:
    """The outcomes a comparison's `only` keeps: disagreements (a_better or b_better) or one
    outcome of OUTCOMES; WarehouseError for anything else."""
    wanted = ("a_better", "b_better") if only == "disagreements" else (only,)
    if not set(wanted) <= set(OUTCOMES):
        raise WarehouseError(f"unknown outcome {only!r}; expected disagreements or "
                             f"one of {', '.join(OUTCOMES)}")
    return wanted


def _within(benchmark: str | None, mode: str | None) -> str:
    parts = [f"benchmark {benchmark}" if benchmark else "", f"mode {mode}" if mode else ""]
    text = " and ".join(p for p in parts if p)
    return f" within {text}" if text else ""


def open(path: str | Path, frames: str = "auto") -> Warehouse:  # noqa: A001 - etl.open
    """Open a warehouse file read-only for notebooks (see Warehouse)."""
    return Warehouse(path, frames)
