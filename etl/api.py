"""The warehouse for notebooks: `wh = etl.open("warehouse.duckdb")`, then DataFrames.

Every method returns a pandas DataFrame when pandas is installed (`make ingest` installs it;
in a checkout `pip install -e '.[pandas]'`) and a pyarrow Table otherwise (`etl.open(..., frames=
"arrow")` forces Tables); list columns come back as Python lists in a DataFrame. The file
is opened read-only with external access off (etl/connection.py, the connection of every
reader), so a notebook can never change or lock the warehouse for an ingest. Every filter
is checked against the warehouse (etl/filters.py): a typo raises UnknownName naming the
closest valid values, and a model may be named by its key, display name or any alias. The
CLI commands call the same queries: the leaderboard listing lives in etl/leaderboard.py,
the others in sql/queries/*.sql, and every value reaches DuckDB as a bound parameter."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from etl.connection import open_warehouse
from etl.errors import UnknownName, WarehouseError
from etl.filters import Filters, check_filters, plain
from etl.leaderboard import checked_leaderboard_query
from etl.schema import query_text
from etl.search import SearchQuery, SearchResult, run_search

__all__ = ["OUTCOMES", "Comparison", "NoSuchRun", "UnknownName", "Warehouse", "WarehouseError",
           "open", "query_text", "wanted_outcomes"]

OUTCOMES = ("a_better", "b_better", "tie", "only_a", "only_b")
SEARCH_COLUMNS = ("benchmark", "mode", "model", "task", "run_id", "qid", "run_index", "msg_idx",
                  "call_idx", "role", "field", "text_chars", "match_at", "matched", "before",
                  "after", "display_name")
# split= of results / scores / runs / coverage that takes every split
ALL_SPLITS = "all"


class NoSuchRun(UnknownName):
    """A name that means no leaderboard run (neither a run id nor a model with a run there):
    a comparison that cannot be made, exit status 1 like any failed request."""

    exit_code = 1


def pandas_available() -> bool:
    return importlib.util.find_spec("pandas") is not None


@dataclass(frozen=True)
class Comparison:
    """What `Warehouse.comparison` computes: the per-question table and the paired summary."""

    run_a: str
    run_b: str
    questions: Any
    summary: dict[str, Any] | None


class Warehouse:
    """A read-only view of one warehouse file (see etl.open for the tour of its methods)."""

    def __init__(self, path: str | Path, frames: str = "auto",
                 resources: dict[str, Any] | None = None) -> None:
        if frames not in ("auto", "pandas", "arrow"):
            raise ValueError("frames must be auto, pandas or arrow")
        if frames == "pandas" and not pandas_available():
            raise ImportError("pandas is not installed: `make ingest` installs it, or in the "
                              "checkout pip install -e '.[pandas]'")
        self.path = Path(path)
        self.frames = "pandas" if frames == "auto" and pandas_available() else frames
        # resources: bounds of the connection (memory_limit, threads; see open_warehouse).
        self.con = open_warehouse(self.path, resources)

    # -- plumbing ---------------------------------------------------------------------
    def close(self) -> None:
        """Close the connection (also on leaving a `with` block)."""
        self.con.close()

    def __enter__(self) -> Warehouse:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _frame(self, table: pa.Table) -> Any:
        if self.frames != "pandas":
            return table
        import pandas as pd

        frame = table.to_pandas()
        # pandas would hold a list cell as a numpy array: give Python lists (and dicts).
        for field in table.schema:
            if pa.types.is_list(field.type) or pa.types.is_struct(field.type):
                frame[field.name] = pd.Series(table[field.name].to_pylist(),
                                              index=frame.index, dtype=object)
        return frame

    def arrow(self, sql: str, params: list[Any] | dict[str, Any] | None = None) -> pa.Table:
        """Run one read query with bound parameters; a pyarrow Table.

        Example: wh.arrow("SELECT count(*) AS n FROM results WHERE mode = ?", ["agentic"])"""
        return self.con.sql(sql, params=params).to_arrow_table()

    def sql(self, sql: str, params: list[Any] | dict[str, Any] | None = None) -> Any:
        """Run one read query with bound parameters (`?` or `$name`); a frame.

        Example: wh.sql("SELECT * FROM leaderboard WHERE benchmark = $b", {"b": "ehr_bench"})"""
        return self._frame(self.arrow(sql, params))

    def _filtered(self, view: str, filters: dict[str, Any], order: str) -> Any:
        # View, column names and order are fixed by the callers; values are bound.
        kept = {k: plain(v) for k, v in filters.items() if plain(v) is not None}
        sql = f"SELECT * FROM {view}"
        if kept:
            sql += " WHERE " + " AND ".join(f"{column} = ?" for column in kept)
        return self.sql(f"{sql} ORDER BY {order}", list(kept.values()))

    def _checked(self, **filters: Any) -> Filters:
        return check_filters(self.con, **filters)

    def _scope(self, benchmark: Any, mode: Any, model: Any, run: Any, archived: bool,
               split: Any) -> list[str]:
        """The run ids results / scores / runs / coverage read (api_scope_runs.sql): run
        alone when given; else current runs of full splits unless archived / split ask for
        more, narrowed by benchmark, mode and model."""
        split = plain(split)
        every = split == ALL_SPLITS
        found = self._checked(benchmark=benchmark, mode=mode, model=model, run=run,
                              split=None if every else split)
        if found.run is not None:
            return [found.run]
        params = {"archived": bool(archived), "split": ALL_SPLITS if every else found.split,
                  "benchmark": found.benchmark, "mode": found.mode, "model": found.model}
        return [row[0] for row in
                self.con.execute(query_text("api_scope_runs"), params).fetchall()]

    # -- the questions researchers ask -------------------------------------------------
    def leaderboard(self, benchmark: str | None = None, mode: str | None = None,
                    by: str = "model", scorer: str | None = None) -> Any:
        """The leaderboard listing of `etl leaderboard`: by = model | task | group | ranked |
        common | without_infra; scorer (model / task / group only): that scorer's board
        instead of each run's default (authors_text, authors_text_fallback, set_f1, ...).

        Example: wh.leaderboard("ehr_bench", "agentic", by="ranked")"""
        _, sql, params = checked_leaderboard_query(self.con, by, benchmark, mode, scorer)
        return self.sql(sql, params)

    def results(self, benchmark: str | None = None, mode: str | None = None,
                model: str | None = None, run: str | None = None, qid: str | None = None,
                scorer: str | None = None, archived: bool = False, split: str | None = None
                ) -> Any:
        """Result rows (one per run, question and run index) with the board's score of each
        (score, scorer: the run's default scorer, or `scorer`; NULL for a run on no
        leaderboard) and its error class. gold and prediction_items are lists; label and
        prediction the JSON text of the values as written. Current runs of full splits
        unless archived=True adds the archived runs of those splits or split names another
        split ('all': every split, smoke runs and archives of no known split included);
        run= reads that run whatever it is.

        Example: wh.results(benchmark="ehr_bench", model="Claude Opus 4.6", mode="agentic")"""
        runs = self._scope(benchmark, mode, model, run, archived, split)
        scorer = plain(scorer)
        if scorer is not None:
            scorer = check_filters(self.con, scorer=scorer, board_scorer=True).scorer
        return self._frame(self.arrow(query_text("api_results"),
                                      {"runs": runs, "qid": plain(qid), "scorer": scorer}))

    def scores(self, benchmark: str | None = None, mode: str | None = None,
               model: str | None = None, run: str | None = None, qid: str | None = None,
               scorer: str | None = None, archived: bool = False, split: str | None = None
               ) -> Any:
        """Every scorer's row per result (question_scores: precision, recall, f1, route,
        prediction_source, ...) with the run's benchmark, mode, split and model; gold_names,
        prediction_strs and predictions as lists. Runs chosen as in results(); scorer: any
        scorer with rows (authors_mm_set, authors_text_legacy, scored, ... included).

        Example: wh.scores(benchmark="mm_bench", scorer="authors_mm_set")"""
        runs = self._scope(benchmark, mode, model, run, archived, split)
        found = self._checked(scorer=scorer)
        return self._frame(self.arrow(query_text("api_scores"),
                                      {"runs": runs, "qid": plain(qid),
                                       "scorer": found.scorer}))

    def runs(self, benchmark: str | None = None, mode: str | None = None,
             model: str | None = None, archived: bool = False, split: str | None = None
             ) -> Any:
        """Runs (run_id, benchmark, mode, split, model, is_archived, n_results, ...) with the
        model's display name and, for a run on a leaderboard, its default scorer
        (board_scorer). Current runs of full splits unless archived / split ask for more.

        Example: wh.runs(archived=True, split="all")"""
        return self._frame(self.arrow(query_text("api_runs"), {
            "runs": self._scope(benchmark, mode, model, None, archived, split)}))

    def coverage(self, benchmark: str | None = None, mode: str | None = None,
                 model: str | None = None, run: str | None = None, archived: bool = False,
                 split: str | None = None) -> Any:
        """Per run: questions expected, present, missing, with errors, incomplete, never
        answered (the coverage view). Runs chosen as in results().

        Example: wh.coverage(benchmark="ehr_bench", split="all")"""
        return self._frame(self.arrow(query_text("api_coverage"), {
            "runs": self._scope(benchmark, mode, model, run, archived, split)}))

    def trajectory(self, run: str, qid: str, index: int | None = None) -> Any:
        """One row per message of one question of one run (every attempt, or attempt
        `index` alone: run_index), whole: role, content, reasoning; tool_calls, the list of
        calls an assistant message made, each with its tool, arguments, result (the text the
        tool returned) and is_error; for a tool message the call it answers (answers_tool,
        answers_msg_idx, answers_call_idx) and is_error. qid may come straight from a
        frame: wh.results(...)["qid"][0].

        Example: wh.trajectory("ehr_bench/agentic/full1800/claude_opus_4_6",
                               wh.results(run="ehr_bench/agentic/full1800/claude_opus_4_6")
                               ["qid"][0], index=1)"""
        run = self._checked(run=run).run
        qid, index = plain(qid), plain(index)
        self._check_question(run, qid, index)
        return self._frame(self.arrow(query_text("api_trajectory"),
                                      {"run": run, "qid": qid, "run_index": index}))

    def _check_question(self, run: str, qid: Any, index: Any) -> None:
        """UnknownName when run holds no result or message for qid (attempt index)."""
        attempts = self.con.execute(
            "SELECT DISTINCT run_index FROM results WHERE run_id = ? AND qid = ? UNION "
            "SELECT DISTINCT run_index FROM messages WHERE run_id = ? AND qid = ?",
            [run, qid, run, qid]).fetchall()
        if not attempts:
            qids = [row[0] for row in self.con.execute(
                "SELECT DISTINCT qid FROM results WHERE run_id = ?", [run]).fetchall()]
            raise UnknownName("question", str(qid), qids, head=f"run {run} has no question "
                              f"{qid!r}")
        if index is not None and (index,) not in attempts:
            valid = sorted(str(a[0]) for a in attempts)
            raise UnknownName("run index", str(index), valid, head=f"question {qid!r} of "
                              f"run {run} has no attempt {index}")

    def messages(self, run: str, qid: str, run_index: int | None = None) -> Any:
        """The messages of one question of one run as stored, one row each (trajectory()
        adds each message's tool calls and results).

        Example: wh.messages("ehr_bench/agentic/full1800/claude_opus_4_6", qid)"""
        run = self._checked(run=run).run
        return self._filtered("messages", {"run_id": run, "qid": qid, "run_index": run_index},
                              "run_index, msg_idx")

    def tool_calls(self, run: str | None = None, qid: str | None = None,
                   tool: str | None = None) -> Any:
        """Tool calls, filtered by run, question and tool name when given.

        Example: wh.tool_calls(run="ehr_bench/agentic/full1800/claude_opus_4_6")"""
        run = self._checked(run=run).run
        return self._filtered("tool_calls", {"run_id": run, "qid": qid, "tool": tool},
                              "run_id, qid, run_index, msg_idx, call_idx")

    # -- why agents fail (docs/ANALYSIS.md) ---------------------------------------------
    def _cells(self, name: str, benchmark: Any, mode: Any, model: Any, task: Any,
               by_task: bool) -> Any:
        """One of the per-run (or per-task) failure queries, filters checked and bound."""
        found = self._checked(benchmark=benchmark, mode=mode, model=model, task=task)
        return self._frame(self.arrow(query_text(name), {
            "benchmark": found.benchmark, "mode": found.mode, "model": found.model,
            "task": found.task, "by_task": bool(by_task or found.task is not None)}))

    def failures(self, benchmark: str | None = None, mode: str | None = None,
                 model: str | None = None, task: str | None = None, by_task: bool = False
                 ) -> Any:
        """Why each leaderboard run lost points (failure_profile): per run and failure
        label, the results carrying it (n_results, share of the run's results) and the
        points the run lost on them (points_lost: questions' worth; score_lost: the same
        as a fraction of the run's score). by_task (or task) gives each task's rows. The
        labels in words: table failures, etl.glossary.failure_description.

        Example: wh.failures("ehr_bench", "agentic", model="Claude Opus 4.6")"""
        return self._cells("failures_profile", benchmark, mode, model, task, by_task)

    def failure_kinds(self, benchmark: str | None = None, mode: str | None = None,
                      model: str | None = None, failure: str | None = None) -> Any:
        """The labelled tool calls of the leaderboard runs by label, kind (detail: which SQL
        error, which unknown table, ...) and tool (failure_kinds), most calls first.

        Example: wh.failure_kinds("ehr_bench", "agentic", failure="tool_error")"""
        found = self._checked(benchmark=benchmark, mode=mode, model=model, failure=failure)
        return self._frame(self.arrow(query_text("failures_kinds"), {
            "benchmark": found.benchmark, "mode": found.mode, "model": found.model,
            "failure": found.failure}))

    def efficiency(self, benchmark: str | None = None, mode: str | None = None,
                   model: str | None = None, task: str | None = None, by_task: bool = False
                   ) -> Any:
        """What each leaderboard run spent (efficiency): tool calls, steps and characters
        of tool results per question and per point of score, tokens where records carry
        them, and whether the run is on its board's cost frontier (efficiency_frontier:
        no other run scores as high with fewer calls per attempt).

        Example: wh.efficiency("ehr_bench", "agentic")"""
        return self._cells("failures_efficiency", benchmark, mode, model, task, by_task)

    def consistency(self, benchmark: str | None = None, mode: str | None = None,
                    model: str | None = None, task: str | None = None, by_task: bool = False
                    ) -> Any:
        """How often the attempts of runs with several per question agree on the outcome,
        the answer set and the sequence of tools (attempt_consistency).

        Example: wh.consistency("agent_ehr_bench")"""
        return self._cells("failures_consistency", benchmark, mode, model, task, by_task)

    def comparison_failures(self, a: str, b: str, benchmark: str | None = None,
                            mode: str | None = None, mode_b: str | None = None) -> Any:
        """The questions run A lost and run B won, grouped by the failure labels A's
        attempts carry: how many questions, the points B won on them, the first of them.

        Example: wh.comparison_failures("glm_4_7", "claude_opus_4_6", "ehr_bench", "agentic")"""
        run_a = self.resolve_run(a, benchmark, mode)
        run_b = self.resolve_run(b, benchmark, mode_b or mode)
        if run_a == run_b:
            raise WarehouseError(f"{a!r} and {b!r} are the same run ({run_a})")
        return self._frame(self.arrow(query_text("failures_compare"),
                                      {"run_a": run_a, "run_b": run_b}))

    def model_comparison(self, benchmark: str | None = None, mode: str | None = None,
                         by: str = "model") -> Any:
        """Paired comparisons of every pair of runs of a board: by = model | group | task.

        Example: wh.model_comparison("ehr_bench", "agentic", by="group")"""
        views = {"model": "model_comparison", "group": "model_comparison_by_group",
                 "task": "model_comparison_by_task"}
        if by not in views:
            raise UnknownName("breakdown", by, views)
        found = self._checked(benchmark=benchmark, mode=mode)
        return self._filtered(views[by], {"benchmark": found.benchmark, "mode": found.mode},
                              "benchmark, mode, model_a, model_b")

    def mode_delta(self, benchmark: str | None = None, model: str | None = None,
                   scope: str | None = None) -> Any:
        """Agentic minus one-shot per model, paired, with intervals (mode_delta_paired);
        scope: overall | group | task.

        Example: wh.mode_delta("ehr_bench", "Claude Opus 4.6", scope="overall")"""
        found = self._checked(benchmark=benchmark, model=model)
        return self._filtered("mode_delta_paired",
                              {"benchmark": found.benchmark, "model": found.model,
                               "scope": scope},
                              "benchmark, model, scope, task_group, task")

    def clustered(self, benchmark: str | None = None, mode: str | None = None,
                  by: str = "model") -> Any:
        """Scores with their standard errors naive and clustered by patient and the 95%
        clustered interval (leaderboard_clustered*): by = model | group | task.

        Example: wh.clustered("ehr_bench", by="group")"""
        views = {
            "model": ("leaderboard_clustered", "benchmark, mode, score DESC, run_id"),
            "group": ("leaderboard_clustered_by_group", "benchmark, mode, task_group, run_id"),
            "task": ("leaderboard_clustered_by_task",
                     "benchmark, mode, task_group, task, run_id"),
        }
        if by not in views:
            raise UnknownName("breakdown", by, views)
        view, order = views[by]
        found = self._checked(benchmark=benchmark, mode=mode)
        return self._filtered(view, {"benchmark": found.benchmark, "mode": found.mode}, order)

    def reliability(self, benchmark: str | None = None, mode: str | None = None,
                    model: str | None = None) -> Any:
        """pass^k, worst-of-k and flip rate of runs with several runs per question
        (leaderboard_reliability).

        Example: wh.reliability("ehr_bench")"""
        found = self._checked(benchmark=benchmark, mode=mode, model=model)
        return self._filtered("leaderboard_reliability",
                              {"benchmark": found.benchmark, "mode": found.mode,
                               "model": found.model},
                              "benchmark, mode, model, run_id, k")

    def changes(self, benchmark: str | None = None, mode: str | None = None) -> Any:
        """What moved on the leaderboard since the previous ingest (leaderboard_changes).

        Example: wh.changes("ehr_bench")"""
        found = self._checked(benchmark=benchmark, mode=mode)
        return self._filtered("leaderboard_changes",
                              {"benchmark": found.benchmark, "mode": found.mode},
                              "benchmark, mode, coalesce(rank_after, rank_before), model")

    def resolve_run(self, name: str, benchmark: str | None = None, mode: str | None = None
                    ) -> str:
        """The leaderboard run a name means: a run id, or the one run of the model it names
        (key, display name or alias) within benchmark / mode. Raises WarehouseError when it
        means none (naming the closest runs and models) or several.

        Example: wh.resolve_run("Claude Opus 4.6", "ehr_bench", "agentic")"""
        name = plain(name)
        found = self._checked(benchmark=benchmark, mode=mode)
        try:
            model = self._checked(model=name).model
        except WarehouseError:
            model = None  # not a model name: a run id, or nothing
        rows = self.con.execute(query_text("resolve_run"),
                                {"name": name, "model": model, "benchmark": found.benchmark,
                                 "mode": found.mode}).fetchall()
        if not rows:
            board = self.con.execute(query_text("resolve_run"), {
                "name": None, "model": None, "benchmark": found.benchmark,
                "mode": found.mode}).fetchall()
            raise NoSuchRun("leaderboard run", name,
                            [r[0] for r in board] + [r[3] for r in board],
                            listed=sorted({r[3] for r in board}),
                            head=f"no leaderboard run matches {name!r}"
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
        only: disagreements (a_better or b_better) or one outcome of OUTCOMES.

        Example: wh.comparison("claude_opus_4_6", "claude_sonnet_4_6", "ehr_bench",
                               "agentic").summary"""
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
        offset on; raises etl.search.SearchError for an empty phrase, an unknown role or an
        unknown filter value.

        Example: wh.search("Error executing", role="tool", limit=20)"""
        result = self.search_page(SearchQuery(phrase, benchmark, mode, model, task, role,
                                              match_case, include_archived, limit, offset))
        return self._frame(pa.Table.from_pylist(result.hits, schema=None) if result.hits
                           else pa.table({c: [] for c in SEARCH_COLUMNS}))

    def search_page(self, query: SearchQuery) -> SearchResult:
        """One page of search matches as dicts, and whether more follow (see search).

        Example: wh.search_page(SearchQuery("potassium", limit=5)).hits"""
        return run_search(self.con, query, {"runs": query_text("search_runs"),
                                            "search": query_text("search")})

    def compare(self, a: str, b: str, benchmark: str | None = None, mode: str | None = None,
                only: str | None = None, mode_b: str | None = None) -> Any:
        """The per-question table of two runs (see comparison).

        Example: wh.compare("claude_opus_4_6", "claude_sonnet_4_6", "ehr_bench", "agentic",
                            only="disagreements")"""
        return self.comparison(a, b, benchmark, mode, only, mode_b).questions


def wanted_outcomes(only: str) -> tuple[str, ...]:
    """The outcomes a comparison's `only` keeps: disagreements (a_better or b_better) or one
    outcome of OUTCOMES; UnknownName for anything else."""
    wanted = ("a_better", "b_better") if only == "disagreements" else (only,)
    if not set(wanted) <= set(OUTCOMES):
        raise UnknownName("outcome", only, ("disagreements", *OUTCOMES))
    return wanted


def _within(benchmark: str | None, mode: str | None) -> str:
    parts = [f"benchmark {benchmark}" if benchmark else "", f"mode {mode}" if mode else ""]
    text = " and ".join(p for p in parts if p)
    return f" within {text}" if text else ""


def open(path: str | Path, frames: str = "auto") -> Warehouse:  # noqa: A001 - etl.open
    """Open a warehouse file read-only for notebooks (see etl.open)."""
    return Warehouse(path, frames)
