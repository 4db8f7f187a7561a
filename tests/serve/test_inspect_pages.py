"""Every surface on the rows of Inspect AI logs (written by the real Inspect library,
tests/inspect_logs.py): the explorer's board, trajectory and side-by-side pages (Inspect's
tool error shown as a failed call), search, the report and the export."""

from __future__ import annotations

import html
import json
import urllib.parse

import duckdb
from inspect_ai.log import read_eval_log

from tests.conftest import run_etl
from tests.inspect_logs import TOOL_ERROR
from tests.serving import get, running_server


def _failed_sample(log_path) -> tuple[str, int, str]:
    """(qid, epoch, error text) of a sample of the log whose tool call failed."""
    log = read_eval_log(str(log_path))
    for sample in log.samples:
        for message in sample.messages:
            if message.role == "tool" and message.error is not None:
                return str(sample.id), sample.epoch, message.error.message
    raise AssertionError("the task makes some calls fail")


def _url(base: str, path: str, **params: object) -> str:
    return f"{base}{path}?{urllib.parse.urlencode(params)}"


def test_the_explorer_shows_inspect_runs(inspect_tree, inspect_db) -> None:
    root, logs = inspect_tree
    agentic = logs["agentic"].relative_to(root).as_posix()
    oneshot = logs["oneshot"].relative_to(root).as_posix()
    qid, epoch, error = _failed_sample(logs["agentic"])
    with running_server(inspect_db) as base:
        status, _, body = get(_url(base, "/board", benchmark="clin_lookup", mode="agentic"))
        assert status == 200 and html.escape(agentic) in body.decode()
        status, _, body = get(_url(base, "/trajectory", run=agentic, qid=qid, index=epoch))
        page = body.decode()
        assert status == 200
        assert 'class="call is-error"' in page and html.escape(error) in page
        assert "as written" in page  # the scores of the log, as numbers and as written
        status, _, body = get(_url(base, "/diff", qid=qid, a=agentic, b=oneshot, ia=epoch))
        assert status == 200 and "badge-error" in body.decode()
        status, _, body = get(_url(base, "/search", q=TOOL_ERROR))
        assert status == 200 and html.escape(qid) in body.decode()


def test_search_finds_inspect_messages(inspect_tree, inspect_db) -> None:
    root, logs = inspect_tree
    qid, epoch, error = _failed_sample(logs["agentic"])
    proc = run_etl("search", error, "--db", str(inspect_db), "--role", "tool",
                   "--format", "json")
    hits = json.loads(proc.stdout)
    assert (qid, epoch) in {(h["qid"], h["run_index"]) for h in hits}


def test_the_report_and_the_export_carry_inspect_runs(inspect_tree, inspect_db,
                                                      tmp_path) -> None:
    report = tmp_path / "report.html"
    run_etl("report", "--db", str(inspect_db), "--out", str(report))
    assert "clin_lookup" in report.read_text()
    out = tmp_path / "parquet"
    run_etl("export", "--db", str(inspect_db), "--parquet", str(out))
    con = duckdb.connect()
    try:
        exported = con.execute("SELECT count(*) FROM read_parquet(?)",
                               [str(out / "tables" / "results" / "**" / "*.parquet")]
                               ).fetchall()[0][0]
    finally:
        con.close()
    assert exported == 36


