"""The leaderboard views and `etl leaderboard` on a warehouse built in the test.

Runs, results, question_scores and tool_calls are generated at random (fixed seed); every
number the views report is recomputed here in plain Python from the generated rows and
compared to 1e-9."""

from __future__ import annotations

import csv
import io
import math
import random
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest
from click.testing import CliRunner

from etl.cli import cli
from etl.clusters import build_question_clusters
from etl.views import apply_schema, apply_views
from tests import uncertainty_oracle

TOL = 1e-9
Z95 = statistics.NormalDist().inv_cdf(0.975)

TASKS = {
    "ehr_bench": [
        ("ICU_Mortality_7day", "risk_prediction"),
        ("Readmission_30day", "risk_prediction"),
        ("labevents", "decision_making"),
        ("prescriptions", "decision_making"),
    ],
    "agent_ehr_bench": [("labevents", "decision_making"), ("transfers", "decision_making")],
    "mm_bench": [
        ("ehrxqa_table", "ehrxqa"),
        ("ehrxqa_image", "ehrxqa"),
        ("medmod_phenotyping", "medmod"),
    ],
}
TOOLS = ["ehr.load_ehr", "ehr.run_sql_query", "ehr.finish", "browser.search"]


@dataclass
class Run:
    run_id: str
    benchmark: str
    mode: str
    split: str
    model: str
    archived: bool = False
    authors: str | None = None  # scorer of the authors' rows planted for this run
    results: list[dict[str, Any]] = field(default_factory=list)
    expected: int = 0

    @property
    def on_leaderboard(self) -> bool:
        return not self.archived and (
            self.split in ("full1800", "subset600", "full2703") or self.split.startswith("full")
        )


def _plan() -> list[Run]:
    models = ["claude_opus_4_6", "kimi_k2_5", "brand_new_model"]
    runs = []
    for mode in ("agentic", "oneshot"):
        for model in models:
            run_id = f"ehr_bench/{mode}/full1800/{model}"
            runs.append(Run(run_id, "ehr_bench", mode, "full1800", model))
    for model in models[:2]:
        runs.append(
            Run(f"agent_ehr_bench/agentic/subset600/{model}", "agent_ehr_bench", "agentic",
                "subset600", model)
        )
    # mm_bench: opus has the authors' rows (scored / rescored), kimi's one-shot run only
    # set_f1 rows; kimi's agentic run has scored rows but no rescored ones: the authors'
    # analysis falls back to them (build_figures_and_report.py build_mm_qualitative).
    runs.append(Run("mm_bench/oneshot/full2703/claude_opus_4_6", "mm_bench", "oneshot",
                    "full2703", "claude_opus_4_6", authors="scored"))
    runs.append(Run("mm_bench/agentic/full2703/claude_opus_4_6", "mm_bench", "agentic",
                    "full2703", "claude_opus_4_6", authors="rescored"))
    runs.append(Run("mm_bench/oneshot/full2703/kimi_k2_5", "mm_bench", "oneshot", "full2703",
                    "kimi_k2_5"))
    runs.append(Run("mm_bench/agentic/full2703/kimi_k2_5", "mm_bench", "agentic", "full2703",
                    "kimi_k2_5", authors="scored"))
    # A split named full* that is not one of the three known ones is a full split too.
    runs.append(Run("ehr_bench/agentic/full3600/claude_sonnet_4_6", "ehr_bench", "agentic",
                    "full3600", "claude_sonnet_4_6"))
    # Excluded: a smoke split and archived full runs (one scoring higher than everything).
    runs.append(Run("ehr_bench/agentic/smoke20/claude_opus_4_6", "ehr_bench", "agentic",
                    "smoke20", "claude_opus_4_6"))
    runs.append(Run("_archive/ehr_bench_opus46_1800_pre_ssl_retry", "ehr_bench", "agentic",
                    "full1800", "claude_opus_4_6", archived=True))
    runs.append(Run("_archive/mm_agentic_opus_scored_novocab", "mm_bench", "agentic",
                    "full2703", "claude_opus_4_6", archived=True, authors="rescored"))
    return runs


@dataclass
class Warehouse:
    path: Path
    runs: list[Run]
    scores: list[dict[str, Any]]
    tool_calls: list[dict[str, Any]]
    empty_run: Run


def _insert(con: duckdb.DuckDBPyConnection, table: str, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    columns = list(rows[0])
    placeholders = ", ".join("?" for _ in columns)
    con.executemany(
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({placeholders})",
        [[row[c] for c in columns] for row in rows],
    )


def build_warehouse(path: Path, seed: int = 20240607) -> Warehouse:
    rng = random.Random(seed)
    runs = _plan()
    empty_run = Run("mm_bench/agentic/full2703/glm_4_7", "mm_bench", "agentic", "full2703",
                    "glm_4_7")
    scores: list[dict[str, Any]] = []
    tool_calls: list[dict[str, Any]] = []
    for run in runs:
        n_questions = rng.randint(6, 14)
        run.expected = n_questions + rng.choice([0, 0, 1, 3])
        for q in range(n_questions):
            task, group = rng.choice(TASKS[run.benchmark])
            qid = f"q{q:03d}"
            # a few patients ask several questions; some questions have no known patient
            subject = rng.choice([None, 1, 2, 3, 4, 5, 6])
            for run_index in range(1, rng.choice([1, 1, 2, 3]) + 1):
                statuses = ["success"] * 8 + ["error"] + (
                    ["incomplete"] if run.mode == "agentic" else []
                )
                result = {
                    "run_id": run.run_id, "benchmark": run.benchmark, "mode": run.mode,
                    "split": run.split, "model": run.model, "task": task, "task_group": group,
                    "qid": qid, "run_index": run_index, "status": rng.choice(statuses),
                    "subject_id": subject,
                }
                run.results.append(result)
                key = {"run_id": run.run_id, "qid": qid, "run_index": run_index, "task": task}
                # set_f1 for (almost) every result; error / incomplete rows get a non-zero f1
                # here so the test sees that the view scores them 0 anyway.
                if rng.random() > 0.05:
                    scores.append({**key, "scorer": "set_f1", "f1": rng.random(), "correct": None,
                                   "route": None, "judge_match": None})
                # the authors' text scorer (default for text benchmarks), independently drawn
                if rng.random() > 0.05:
                    scores.append({**key, "scorer": "authors_text", "f1": rng.random(),
                                   "correct": None, "route": None, "judge_match": None})
                if run.authors:
                    route = rng.choice(["set_f1", "llm_judge", "llm_judge", "incomplete"])
                    # Set rows carry a correct flag too (subset match); only judge rows'
                    # correct is their score.
                    correct = float(rng.random() < 0.6)
                    scores.append({**key, "scorer": run.authors, "f1": rng.random(),
                                   "correct": correct, "route": route,
                                   "judge_match": correct == 1.0 if route == "llm_judge" else None})
                for _ in range(rng.randint(0, 4)):
                    tool_calls.append({"run_id": run.run_id, "qid": qid, "run_index": run_index,
                                       "tool": rng.choice(TOOLS), "is_error": rng.random() < 0.1})
        if run.archived:  # an archived run that would top the board if it were not excluded
            for row in scores:
                if row["run_id"] == run.run_id:
                    row["f1"] = 1.0
    con = duckdb.connect(str(path))
    apply_schema(con)
    _insert(con, "models", [{"model": "claude_opus_4_6", "display_name": "Claude Opus 4.6"},
                            {"model": "kimi_k2_5", "display_name": "Kimi K2.5"}])
    _insert(con, "runs", [
        {"run_id": r.run_id, "benchmark": r.benchmark, "mode": r.mode, "split": r.split,
         "model": r.model, "is_archived": r.archived, "expected_questions": r.expected}
        for r in [*runs, empty_run]
    ])
    _insert(con, "results", [row for run in runs for row in run.results])
    _insert(con, "question_scores", scores)
    _insert(con, "tool_calls", tool_calls)
    apply_views(con)
    build_question_clusters(con)  # as the ingest does after the views
    con.close()
    return Warehouse(path, runs, scores, tool_calls, empty_run)


# ---------------------------------------------------------------- independent expectations


def _score_source(run: Run) -> str:
    """The default scorer: the authors' text scorer for text benchmarks; for mm_bench the
    authors' fallback: rescored rows, else scored rows, whatever the mode; else set_f1."""
    if run.benchmark != "mm_bench":
        return "authors_text"
    if run.authors in ("rescored", "scored"):
        return run.authors
    return "set_f1"


def _unified(row: dict[str, Any]) -> float:
    if row["scorer"] in ("set_f1", "authors_text"):
        return row["f1"]
    if row["route"] == "llm_judge":
        return row["correct"]
    if row["route"] == "incomplete":
        return 0.0
    return row["f1"]


def question_scores(wh: Warehouse, run: Run, scorer: str | None = None
                    ) -> dict[str, tuple[str, str, float]]:
    """qid -> (task, task_group, mean over its runs of the result score). authors_text
    never looks at the status; every other scorer scores error and incomplete results 0."""
    source = scorer or _score_source(run)
    by_key = {
        (s["qid"], s["run_index"]): _unified(s)
        for s in wh.scores
        if s["run_id"] == run.run_id and s["scorer"] == source
    }
    per_question: dict[str, list[float]] = {}
    meta: dict[str, tuple[str, str]] = {}
    for result in run.results:
        if result["status"] in ("error", "incomplete") and source != "authors_text":
            score = 0.0
        else:
            score = by_key.get((result["qid"], result["run_index"]), 0.0)
        per_question.setdefault(result["qid"], []).append(score)
        meta[result["qid"]] = (result["task"], result["task_group"])
    return {q: (*meta[q], sum(v) / len(v)) for q, v in per_question.items()}


def patient(run: Run, qid: str) -> tuple[str, Any]:
    """The cluster of a question: its patient, else the question itself."""
    subject = next(r["subject_id"] for r in run.results if r["qid"] == qid)
    return ("qid", qid) if subject is None else ("subject", subject)


def expected_leaderboard(wh: Warehouse) -> dict[str, dict[str, Any]]:
    rows = {}
    for run in wh.runs:
        if not run.on_leaderboard:
            continue
        scored = question_scores(wh, run)
        values = [score for _, _, score in scored.values()]
        mean = sum(values) / len(values)
        half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
        # the default interval: clustered by patient (a question of unknown patient is its
        # own cluster)
        clustered = uncertainty_oracle.clustered_row(
            values, [patient(run, qid) for qid in scored])
        rows[run.run_id] = {
            "benchmark": run.benchmark, "mode": run.mode, "model": run.model,
            "n_questions": len(values), "score": mean,
            "ci_naive_low": max(0.0, mean - half), "ci_naive_high": min(1.0, mean + half),
            "ci_low": clustered["ci_low"], "ci_high": clustered["ci_high"],
            "n_clusters": clustered["n_clusters"], "score_source": _score_source(run),
        }
    for row in rows.values():
        row["rank"] = 1 + sum(
            1 for other in rows.values()
            if (other["benchmark"], other["mode"]) == (row["benchmark"], row["mode"])
            and other["score"] > row["score"]
        )
    return rows


def expected_breakdown(wh: Warehouse, by: str) -> dict[tuple[str, str], dict[str, Any]]:
    """(run_id, task or task_group) -> {n_questions, score}."""
    buckets: dict[tuple[str, str], list[float]] = {}
    for run in wh.runs:
        if not run.on_leaderboard:
            continue
        for task, group, score in question_scores(wh, run).values():
            buckets.setdefault((run.run_id, task if by == "task" else group), []).append(score)
    return {k: {"n_questions": len(v), "score": sum(v) / len(v)} for k, v in buckets.items()}


@pytest.fixture(scope="module")
def wh(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return build_warehouse(tmp_path_factory.mktemp("lb") / "warehouse.duckdb")


def _query(wh: Warehouse, sql: str) -> list[dict[str, Any]]:
    with duckdb.connect(str(wh.path), read_only=True) as con:
        cursor = con.execute(sql)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _close(actual: Any, expected: Any) -> bool:
    if isinstance(expected, float):
        return actual is not None and abs(actual - expected) <= TOL
    return actual == expected


# ---------------------------------------------------------------- the views


def test_leaderboard_view_matches_independent_computation(wh: Warehouse) -> None:
    expected = expected_leaderboard(wh)
    actual = {row["run_id"]: row for row in _query(wh, "SELECT * FROM leaderboard")}
    # Archived, smoke and question-less runs are absent; every current full run is there.
    assert set(actual) == set(expected)
    for run_id, want in expected.items():
        for column, value in want.items():
            assert _close(actual[run_id][column], value), (run_id, column, actual[run_id][column])
        assert 0.0 <= actual[run_id]["score"] <= 1.0


def test_data_exercises_the_rules(wh: Warehouse) -> None:
    # Guard against a generator that silently stops planting the cases the views must handle.
    lb_results = [r for run in wh.runs if run.on_leaderboard for r in run.results]
    assert any(r["status"] == "error" for r in lb_results)
    assert any(r["status"] == "incomplete" for r in lb_results)
    assert any(r["run_index"] > 1 for r in lb_results)
    assert {_score_source(r) for r in wh.runs if r.on_leaderboard} == {
        "authors_text", "set_f1", "scored", "rescored"}
    assert any(not r.on_leaderboard for r in wh.runs)


def test_by_task_and_by_group_views(wh: Warehouse) -> None:
    for by, view in (("task", "leaderboard_by_task"), ("group", "leaderboard_by_group")):
        column = "task" if by == "task" else "task_group"
        expected = expected_breakdown(wh, by)
        actual = {(r["run_id"], r[column]): r for r in _query(wh, f"SELECT * FROM {view}")}
        assert set(actual) == set(expected)
        for key, want in expected.items():
            assert actual[key]["n_questions"] == want["n_questions"]
            assert _close(actual[key]["score"], want["score"]), key


def test_mode_delta(wh: Warehouse) -> None:
    overall = expected_leaderboard(wh)
    groups = expected_breakdown(wh, "group")
    by_mode: dict[tuple[str, str, str], dict[str, float]] = {}
    for run in wh.runs:
        if not run.on_leaderboard:
            continue
        by_mode.setdefault((run.benchmark, run.model, "overall"), {})[run.mode] = overall[
            run.run_id]["score"]
        for (run_id, group), value in groups.items():
            if run_id == run.run_id:
                by_mode.setdefault((run.benchmark, run.model, group), {})[run.mode] = value["score"]
    actual = {(r["benchmark"], r["model"], r["task_group"]): r
              for r in _query(wh, "SELECT * FROM mode_delta")}
    assert set(actual) == set(by_mode)
    both = 0
    for key, scores in by_mode.items():
        row = actual[key]
        agentic, oneshot = scores.get("agentic"), scores.get("oneshot")
        assert _close(row["agentic_score"], agentic) if agentic is not None else (
            row["agentic_score"] is None)
        assert _close(row["oneshot_score"], oneshot) if oneshot is not None else (
            row["oneshot_score"] is None)
        if agentic is not None and oneshot is not None:
            both += 1
            assert _close(row["delta"], agentic - oneshot)
        else:
            assert row["delta"] is None
    assert both > 0


def test_coverage(wh: Warehouse) -> None:
    actual = {r["run_id"]: r for r in _query(wh, "SELECT * FROM coverage")}
    assert set(actual) == {run.run_id for run in wh.runs} | {wh.empty_run.run_id}
    for run in [*wh.runs, wh.empty_run]:
        present = len({r["qid"] for r in run.results})
        row = actual[run.run_id]
        assert row["expected_questions"] == run.expected
        assert row["present"] == present
        assert row["missing"] == max(run.expected - present, 0)
        assert row["errors"] == sum(r["status"] == "error" for r in run.results)
        assert row["incomplete"] == sum(r["status"] == "incomplete" for r in run.results)
    assert any(actual[run.run_id]["missing"] > 0 for run in wh.runs)


def test_tool_usage(wh: Warehouse) -> None:
    expected: dict[tuple[str, str], int] = {}
    lb_runs = {run.run_id: run for run in wh.runs if run.on_leaderboard}
    for call in wh.tool_calls:
        if call["run_id"] in lb_runs:
            key = (call["run_id"], call["tool"])
            expected[key] = expected.get(key, 0) + 1
    actual = {(r["run_id"], r["tool"]): r for r in _query(wh, "SELECT * FROM tool_usage")}
    assert set(actual) == set(expected)
    for (run_id, tool), n_calls in expected.items():
        questions = len({r["qid"] for r in lb_runs[run_id].results})
        assert actual[(run_id, tool)]["n_calls"] == n_calls
        assert _close(actual[(run_id, tool)]["calls_per_question"], n_calls / questions)


# ---------------------------------------------------------------- the command


def _run(args: list[str]) -> Any:
    return CliRunner().invoke(cli, ["leaderboard", *args])


def test_json_format_and_filters(wh: Warehouse) -> None:
    expected = expected_leaderboard(wh)
    for benchmark, mode in (("ehr_bench", "agentic"), ("mm_bench", "oneshot")):
        result = _run(["--db", str(wh.path), "--benchmark", benchmark, "--mode", mode,
                       "--format", "json"])
        assert result.exit_code == 0, result.output
        rows = orjson.loads(result.output)
        want = {k: v for k, v in expected.items()
                if (v["benchmark"], v["mode"]) == (benchmark, mode)}
        assert {row["run_id"] for row in rows} == set(want)
        assert [row["rank"] for row in rows] == sorted(row["rank"] for row in rows)
        for row in rows:
            assert _close(row["score"], want[row["run_id"]]["score"])
            assert _close(row["ci_low"], want[row["run_id"]]["ci_low"])


def test_csv_format_by_task_and_group(wh: Warehouse) -> None:
    for by, column in (("task", "task"), ("group", "task_group")):
        result = _run(["--db", str(wh.path), "--by", by, "--benchmark", "ehr_bench",
                       "--format", "csv"])
        assert result.exit_code == 0, result.output
        rows = list(csv.DictReader(io.StringIO(result.output)))
        expected = {k: v for k, v in expected_breakdown(wh, by).items()
                    if k[0].startswith("ehr_bench/")}
        assert {(r["run_id"], r[column]) for r in rows} == set(expected)
        for row in rows:
            want = expected[(row["run_id"], row[column])]
            assert int(row["n_questions"]) == want["n_questions"]
            assert abs(float(row["score"]) - want["score"]) <= TOL


def test_table_format_is_aligned_and_rounded(wh: Warehouse) -> None:
    result = _run(["--db", str(wh.path), "--benchmark", "ehr_bench", "--mode", "agentic"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    header, rule, body = lines[0], lines[1], lines[2:-1]
    assert "score" in header and "95% CI" in header and "model" in header
    # Every row has its column separators exactly where the header has them.
    separators = [i for i, ch in enumerate(rule) if ch == "+"]
    for line in [header, *body]:
        assert [i for i, ch in enumerate(line) if ch == "|"] == separators, line
    expected = [v for v in expected_leaderboard(wh).values()
                if (v["benchmark"], v["mode"]) == ("ehr_bench", "agentic")]
    assert len(body) == len(expected)
    for want in expected:
        line = next(line for line in body if f" {want['model']} " in line)
        assert f"{want['score']:.3f}" in line
        assert f"[{want['ci_low']:.3f}, {want['ci_high']:.3f}]" in line


def test_markdown_format(wh: Warehouse) -> None:
    result = _run(["--db", str(wh.path), "--by", "group", "--format", "md"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert all(line.startswith("|") and line.endswith("|") for line in lines)
    assert len(lines) == 2 + len(expected_breakdown(wh, "group"))
    assert "task_group" in lines[0]


def test_works_while_another_process_holds_the_file_read_only(wh: Warehouse) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import duckdb, sys; c = duckdb.connect(sys.argv[1], read_only=True); "
         "c.execute('SELECT count(*) FROM leaderboard').fetchall(); print('ready', flush=True); "
         "sys.stdin.read()",
         str(wh.path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        result = _run(["--db", str(wh.path), "--format", "json"])
        assert result.exit_code == 0, result.output
        assert len(orjson.loads(result.output)) == len(expected_leaderboard(wh))
    finally:
        holder.communicate("")
    # ... and next to a read-only connection in this very process.
    with duckdb.connect(str(wh.path), read_only=True):
        result = _run(["--db", str(wh.path), "--format", "csv"])
        assert result.exit_code == 0, result.output


def test_command_never_writes_the_database(wh: Warehouse) -> None:
    before = wh.path.read_bytes()
    assert _run(["--db", str(wh.path)]).exit_code == 0
    assert wh.path.read_bytes() == before


def test_missing_database_gives_a_clear_message(tmp_path: Path) -> None:
    missing = tmp_path / "nope.duckdb"
    result = _run(["--db", str(missing)])
    assert result.exit_code != 0
    assert "not found" in result.output and "etl ingest" in result.output
    assert "Traceback" not in result.output
    assert not missing.exists()


def test_database_without_views_gives_a_clear_message(tmp_path: Path) -> None:
    db = tmp_path / "tables_only.duckdb"
    with duckdb.connect(str(db)) as con:
        apply_schema(con)
    result = _run(["--db", str(db)])
    assert result.exit_code != 0
    assert "no leaderboard views" in result.output
    assert "Traceback" not in result.output


def test_no_matching_rows(wh: Warehouse) -> None:
    # Known values whose combination has no board: an empty listing.
    result = _run(["--db", str(wh.path), "--benchmark", "agent_ehr_bench", "--mode", "oneshot",
                   "--format", "json"])
    assert result.exit_code == 0
    assert orjson.loads(result.output) == []
    # An unknown value is refused instead of printing an empty board (tests/cli/test_filters.py
    # has the messages).
    typo = _run(["--db", str(wh.path), "--benchmark", "no_such_bench", "--format", "json"])
    assert typo.exit_code == 2 and "unknown benchmark 'no_such_bench'" in typo.output


def test_help() -> None:
    result = _run(["--help"])
    assert result.exit_code == 0
    for option in ("--db", "--benchmark", "--mode", "--by", "--format", "warehouse.duckdb"):
        assert option in result.output
    for fmt in ("table", "csv", "json", "md"):
        assert fmt in result.output


# ---------------------------------------------------------------- through the real ingest


def _record(rng: random.Random, qid: str, run_index: int, task: str, gold: list[str],
            error: bool) -> dict[str, Any]:
    if error:
        return {"qid": qid, "run_index": run_index, "task": task, "label": gold,
                "messages": [], "status": "error", "completed": False,
                "stop_reason": "exception", "error": "ThrottlingException"}
    vocabulary = [*gold, "aspirin", "heparin", "Sodium ", "potassium"]
    answer = rng.sample(vocabulary, rng.randint(0, 3))
    finish = {"id": f"call_{qid}_{run_index}", "type": "function",
              "function": {"name": "ehr.finish",
                           "arguments": orjson.dumps({"response": answer}).decode()}}
    return {"qid": qid, "run_index": run_index, "task": task, "label": gold,
            "status": "success", "completed": True, "stop_reason": "finish_tool_call",
            "error": None,
            "messages": [{"role": "system", "content": "You are an agent."},
                         {"role": "user", "content": "question"},
                         {"role": "assistant", "content": "", "tool_calls": [finish]},
                         {"role": "tool", "content": "done", "tool_call_id": finish["id"]}]}


def _authors_f1(record: dict[str, Any]) -> float:
    # The authors' scoring rule of DESIGN.md, written out again here, independent of
    # etl.scoring: items lower-cased, NOT stripped ("Sodium " is not "sodium"); an error
    # row has no finish call, so no prediction.
    if not record["messages"]:
        return 0.0
    gold = {x.lower() for x in record["label"]}
    call = record["messages"][2]["tool_calls"][0]
    answer = orjson.loads(call["function"]["arguments"])["response"]
    pred = {x.lower() for x in answer}
    hits = len(gold & pred)
    if not pred or not hits:
        return 0.0
    precision, recall = hits / len(pred), hits / len(gold)
    return 2 * precision * recall / (precision + recall)


def test_ingested_tree_leaderboard_matches_result_files(tmp_path: Path) -> None:
    from etl.pipeline import ingest
    rng = random.Random(11)
    root = tmp_path / "tree"
    run_dirs = {
        "ehr_bench/agentic/full1800/claude_opus_4_6": True,
        "ehr_bench/agentic/full1800/kimi_k2_5": True,
        "ehr_bench/agentic/smoke20/claude_opus_4_6": False,
        "_archive/ehr_bench_opus46_1800_pre_ssl_retry": False,
    }
    expected: dict[str, float] = {}
    for run_id, on_board in run_dirs.items():
        per_question: dict[str, list[float]] = {}
        lines = []
        for q in range(8):
            qid = f"q{q}"
            for run_index in range(1, rng.choice([1, 2]) + 1):
                record = _record(rng, qid, run_index, "prescriptions",
                                 rng.sample(["aspirin", "heparin", "sodium"], 2),
                                 error=rng.random() < 0.15)
                lines.append(orjson.dumps(record))
                per_question.setdefault(qid, []).append(_authors_f1(record))
        (root / run_id).mkdir(parents=True)
        (root / run_id / "results.jsonl").write_bytes(b"\n".join(lines) + b"\n")
        if on_board:
            means = [sum(v) / len(v) for v in per_question.values()]
            expected[run_id] = sum(means) / len(means)
    db = tmp_path / "warehouse.duckdb"
    ingest.run_ingest(root, db, ingest.IngestOptions(jobs=1))
    result = _run(["--db", str(db), "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = orjson.loads(result.output)
    assert {row["run_id"]: row["rank"] for row in rows} == {
        run_id: 1 + sum(other > score for other in expected.values())
        for run_id, score in expected.items()
    }
    for row in rows:
        assert _close(row["score"], expected[row["run_id"]]), row


# ---------------------------------------------------------------- every scorer's board


def _expected_board(wh: Warehouse, scorer: str) -> dict[str, tuple[int, float]]:
    out = {}
    for run in wh.runs:
        if not run.on_leaderboard:
            continue
        if scorer in ("scored", "rescored") and _score_source(run) != scorer:
            continue  # the authors' file scorers are offered where they are the default
        values = [v for _, _, v in question_scores(wh, run, scorer).values()]
        out[run.run_id] = (len(values), sum(values) / len(values))
    return out


def test_all_scorers_board_matches_independent_computation(wh: Warehouse) -> None:
    actual = _query(wh, "SELECT * FROM leaderboard_all_scorers")
    for scorer in ("authors_text", "set_f1"):
        got = {r["run_id"]: r for r in actual if r["scorer"] == scorer}
        want = _expected_board(wh, scorer)
        assert set(got) == set(want), scorer
        for run_id, (n, score) in want.items():
            assert got[run_id]["n_questions"] == n
            assert _close(got[run_id]["score"], score), (scorer, run_id)
            assert got[run_id]["is_default"] == (_score_source(
                next(r for r in wh.runs if r.run_id == run_id)) == scorer)
    # exactly one default row per run, and those rows are the leaderboard
    defaults = [r for r in actual if r["is_default"]]
    board = {r["run_id"]: r for r in _query(wh, "SELECT * FROM leaderboard")}
    assert sorted(r["run_id"] for r in defaults) == sorted(board)
    for r in defaults:
        assert r["scorer"] == board[r["run_id"]]["scorer"] == board[r["run_id"]]["score_source"]
        assert _close(r["score"], board[r["run_id"]]["score"])


def test_scorer_option_shows_another_board(wh: Warehouse) -> None:
    want = {k: v for k, v in _expected_board(wh, "set_f1").items()
            if k.startswith("ehr_bench/")}
    result = _run(["--db", str(wh.path), "--benchmark", "ehr_bench", "--scorer", "set_f1",
                   "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = orjson.loads(result.output)
    assert {r["run_id"] for r in rows} == set(want)
    for row in rows:
        assert row["scorer"] == "set_f1"
        assert _close(row["score"], want[row["run_id"]][1])
        mode = row["run_id"].split("/")[1]  # ranks are within (benchmark, mode, scorer)
        assert row["rank"] == 1 + sum(other[1] > want[row["run_id"]][1]
                                      for run_id, other in want.items()
                                      if run_id.split("/")[1] == mode)
    by_group = _run(["--db", str(wh.path), "--by", "group", "--scorer", "authors_text",
                     "--benchmark", "mm_bench", "--format", "json"])
    assert by_group.exit_code == 0, by_group.output
    assert {r["scorer"] for r in orjson.loads(by_group.output)} == {"authors_text"}
