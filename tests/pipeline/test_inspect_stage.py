"""Inspect AI logs in the pipeline: a log that grew (a running evaluation flushes finished
samples into it) is parsed only for its new samples and gives the database a full parse
gives; a log found without the inspect extra is a reject saying how to install it."""

from __future__ import annotations

from pathlib import Path

import duckdb
from inspect_ai.log import read_eval_log, write_eval_log

from tests.conftest import run_etl

SAMPLE_TABLES = ("results", "messages", "tool_calls", "question_scores", "token_usage",
                 "call_failures", "result_checks")


def _table(db: Path, table: str) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return sorted(con.execute(f"SELECT * FROM {table}").fetchall(), key=repr)
    finally:
        con.close()


def _one(db: Path, sql: str) -> tuple:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()[0]
    finally:
        con.close()


def test_a_grown_log_parses_only_its_new_samples(inspect_tree, tmp_path) -> None:
    _, logs = inspect_tree
    full = read_eval_log(str(logs["agentic"]))
    tree = tmp_path / "logs"
    tree.mkdir()
    log = tree / "running.eval"
    started = full.model_copy(deep=True)
    started.status, started.results, started.samples = "started", None, full.samples[:8]
    write_eval_log(started, str(log))
    db = tmp_path / "w.duckdb"
    run_etl("ingest", str(tree), "--db", str(db), "--quiet")
    assert _one(db, "SELECT n_read, n_reused, status FROM inspect_logs") == (8, 0, "started")
    assert _one(db, "SELECT count(*) FROM results") == (8,)
    write_eval_log(full, str(log))  # the evaluation finished: 10 more samples, the results
    run_etl("ingest", str(tree), "--db", str(db), "--quiet")
    assert _one(db, "SELECT n_read, n_reused, status FROM inspect_logs") == (10, 8, "success")
    assert _one(db, "SELECT count(*) FROM results") == (18,)
    again = run_etl("ingest", str(tree), "--db", str(db))
    assert "nothing changed" in again.stdout
    fresh = tmp_path / "full.duckdb"
    run_etl("ingest", str(tree), "--db", str(fresh), "--quiet", "--full")
    assert _one(fresh, "SELECT n_read, n_reused FROM inspect_logs") == (18, 0)
    for table in (*SAMPLE_TABLES, "inspect_scorers", "summary_metrics", "runs"):
        assert _table(db, table) == _table(fresh, table), table


def test_without_the_extra_each_log_is_a_reject_naming_it(inspect_tree, tmp_path) -> None:
    root, _ = inspect_tree
    hide = tmp_path / "hide"
    hide.mkdir()
    # a Python that cannot import inspect_ai, the parse workers it spawns included
    (hide / "sitecustomize.py").write_text("import sys\nsys.modules['inspect_ai'] = None\n")
    db = tmp_path / "w.duckdb"
    proc = run_etl("ingest", str(root), "--db", str(db), "--quiet",
                   env={"PYTHONPATH": str(hide), "PATH": "/usr/bin:/bin"})
    warning = [line for line in proc.stderr.splitlines() if "Inspect AI log" in line]
    assert len(warning) == 1 and "[inspect]" in warning[0] and "2 Inspect AI logs" in warning[0]
    con = duckdb.connect(str(db), read_only=True)
    try:
        rejects = con.execute("SELECT path, error FROM rejects ORDER BY path").fetchall()
        assert con.execute("SELECT count(*) FROM results").fetchall() == [(0,)]
    finally:
        con.close()
    assert [p for p, _ in rejects] == sorted(p.relative_to(root).as_posix()
                                             for p in root.rglob("*") if p.is_file())
    assert all("pip install -e '.[inspect]'" in e for _, e in rejects)
    # installed now: the cached rejects are not reused (the key holds inspect_ai's version)
    run_etl("ingest", str(root), "--db", str(db), "--quiet")
    assert _one(db, "SELECT count(*) FROM results") == (36,)
    assert _one(db, "SELECT count(*) FROM rejects") == (0,)
