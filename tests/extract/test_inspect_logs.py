"""Inspect AI logs, written by the real Inspect library (tests/inspect_logs.py), ingested:
the warehouse's boards equal the metrics Inspect computed and wrote into each log, and its
results, messages, tool calls, scores and token usage equal what Inspect's own reader
(read_eval_log) returns, sample by sample."""

from __future__ import annotations

import json
import math
import shutil
import zipfile
from pathlib import Path

import duckdb
import pytest
from inspect_ai.log import read_eval_log
from inspect_ai.scorer import value_to_float

from tests.conftest import run_etl
from tests.inspect_logs import TOOL_ERROR


def _rows(db: Path, sql: str, params: list | None = None) -> list[dict]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        cur = con.execute(sql, params or [])
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
    finally:
        con.close()


def _run_id(root: Path, log: Path) -> str:
    return log.relative_to(root).as_posix()


@pytest.mark.parametrize("which", ["agentic", "oneshot"])
def test_each_board_equals_the_metrics_inspect_wrote(inspect_tree, inspect_db, which) -> None:
    root, logs = inspect_tree
    log = read_eval_log(str(logs[which]))
    run_id = _run_id(root, logs[which])
    boards = {r["scorer"]: r for r in _rows(
        inspect_db, "SELECT scorer, score, is_default FROM leaderboard_all_scorers "
        "WHERE run_id = ?", [run_id])}
    assert set(boards) == {s.name for s in log.results.scores}
    for score in log.results.scores:  # every scorer: its accuracy is the board's score
        assert boards[score.name]["score"] == pytest.approx(
            score.metrics["accuracy"].value, abs=1e-9)
    headline = log.results.scores[0]  # the first scorer is the log's headline, the default
    assert [name for name, b in boards.items() if b["is_default"]] == [headline.name]
    (board,) = _rows(inspect_db, "SELECT * FROM leaderboard_clustered WHERE run_id = ?",
                     [run_id])
    assert board["score"] == pytest.approx(headline.metrics["accuracy"].value, abs=1e-9)
    inspect_stderr = headline.metrics["stderr"].value
    if which == "agentic":  # match: Inspect's plain stderr (n - 1) / sqrt(n)
        assert board["se_naive"] == pytest.approx(inspect_stderr, abs=1e-9)
    else:
        # partial_credit: stderr(cluster="subject_id"), which multiplies the clustered
        # variance by C / (C - 1); the warehouse's se_clustered does not (STATISTICS.md)
        c = board["n_clusters"]
        assert c == len({s.metadata["subject_id"] for s in log.samples})
        assert board["se_clustered"] * math.sqrt(c / (c - 1)) == pytest.approx(
            inspect_stderr, abs=1e-9)


@pytest.mark.parametrize("which", ["agentic", "oneshot"])
def test_rows_equal_what_read_eval_log_returns(inspect_tree, inspect_db, which) -> None:
    root, logs = inspect_tree
    log = read_eval_log(str(logs[which]), resolve_attachments=True)
    run_id = _run_id(root, logs[which])
    results = {(r["qid"], r["run_index"]): r for r in _rows(
        inspect_db, "SELECT * FROM results WHERE run_id = ?", [run_id])}
    assert len(results) == len(log.samples) == 18
    to_float = value_to_float()
    for sample in log.samples:
        key = (str(sample.id), sample.epoch)
        result = results[key]
        assert result["task"] == log.eval.task
        assert result["subject_id"] == sample.metadata["subject_id"]
        assert result["status"] == "success"
        assert json.loads(result["label"]) == sample.target
        assert json.loads(result["prediction"]) == sample.output.completion
        assert result["n_messages"] == len(sample.messages)
        assert result["question"] == sample.input
        messages = _rows(inspect_db, "SELECT * FROM messages WHERE run_id = ? AND qid = ? "
                         "AND run_index = ? ORDER BY msg_idx", [run_id, *key])
        assert [m["role"] for m in messages] == [m.role for m in sample.messages]
        for row, message in zip(messages, sample.messages, strict=True):
            error = getattr(message, "error", None)
            # a failed call's tool message has no text: the error is what the model was told
            assert row["content"] == (error.message if error and not message.text
                                      else message.text)
            assert row["tool_call_id"] == getattr(message, "tool_call_id", None)
        calls = _rows(inspect_db, "SELECT * FROM tool_calls WHERE run_id = ? AND qid = ? "
                      "AND run_index = ? ORDER BY msg_idx, call_idx", [run_id, *key])
        expected = [(i, c) for i, m in enumerate(sample.messages)
                    for c in getattr(m, "tool_calls", None) or []]
        assert len(calls) == len(expected) == result["n_tool_calls"]
        answers = {m.tool_call_id: m for m in sample.messages if m.role == "tool"}
        for row, (msg_idx, call) in zip(calls, expected, strict=True):
            assert (row["msg_idx"], row["call_id"], row["tool"]) == (msg_idx, call.id,
                                                                     call.function)
            assert json.loads(row["arguments"]) == call.arguments
            assert row["is_error"] == (answers[call.id].error is not None)
        scores = {r["scorer"]: r for r in _rows(
            inspect_db, "SELECT * FROM question_scores WHERE run_id = ? AND qid = ? "
            "AND run_index = ?", [run_id, *key])}
        assert set(scores) == set(sample.scores)
        for name, score in sample.scores.items():
            assert scores[name]["value"] == to_float(score.value)
            assert json.loads(scores[name]["raw_value"]) == score.value
        usage = _rows(inspect_db, "SELECT * FROM token_usage WHERE run_id = ? AND qid = ? "
                      "AND run_index = ? AND scope = 'sample'", [run_id, *key])
        assert {(u["model"], u["input_tokens"], u["output_tokens"], u["total_tokens"])
                for u in usage} == {(m, u.input_tokens, u.output_tokens, u.total_tokens)
                                    for m, u in sample.model_usage.items()}
        per_message = _rows(inspect_db, "SELECT sum(output_tokens) AS n FROM token_usage "
                            "WHERE run_id = ? AND qid = ? AND run_index = ? "
                            "AND scope = 'message'", [run_id, *key])
        assert per_message[0]["n"] == sum(u.output_tokens
                                          for u in sample.model_usage.values())


def test_a_tool_error_is_a_failed_call_with_its_text(inspect_tree, inspect_db) -> None:
    root, logs = inspect_tree
    log = read_eval_log(str(logs["agentic"]))
    errors = [m.error.message for s in log.samples for m in s.messages
              if m.role == "tool" and m.error is not None]
    assert errors  # the task makes some calls fail
    failed = _rows(inspect_db, "SELECT m.content FROM tool_calls AS c JOIN messages AS m "
                   "ON m.run_id = c.run_id AND m.qid = c.qid AND m.run_index = c.run_index "
                   "AND m.msg_idx = c.result_msg_idx WHERE c.is_error AND c.run_id = ?",
                   [_run_id(root, logs["agentic"])])
    assert sorted(r["content"] for r in failed) == sorted(errors)
    assert all(TOOL_ERROR in r["content"] for r in failed)


def test_each_log_is_a_run_with_the_keys_it_holds(inspect_tree, inspect_db) -> None:
    root, logs = inspect_tree
    runs = {r["run_id"]: r for r in _rows(inspect_db, "SELECT * FROM runs")}
    assert set(runs) == {_run_id(root, p) for p in logs.values()}
    agentic, oneshot = runs[_run_id(root, logs["agentic"])], runs[_run_id(root,
                                                                          logs["oneshot"])]
    assert (agentic["benchmark"], agentic["mode"], agentic["split"], agentic["model"]) == (
        "clin_lookup", "agentic", "full6", "model")
    assert (oneshot["mode"], oneshot["model"], oneshot["expected_questions"]) == (
        "oneshot", "claude_opus_4_6", 6)
    assert {r["n_results"] for r in runs.values()} == {18}
    aliases = dict((r["alias"], r["model"]) for r in _rows(
        inspect_db, "SELECT alias, model FROM model_aliases WHERE alias LIKE 'mockllm/%'"))
    assert aliases == {"mockllm/model": "model", "mockllm/claude-opus-4-6": "claude_opus_4_6"}
    assert _rows(inspect_db, "SELECT count(*) AS n FROM rejects")[0]["n"] == 0


def test_the_user_names_benchmark_task_and_patient(inspect_tree, tmp_path) -> None:
    root, logs = inspect_tree
    db = tmp_path / "keys.duckdb"
    run_etl("ingest", str(root), "--db", str(db), "--quiet",
            "--inspect-benchmark", "clin_lookup=ehr_bench", "--inspect-task-key", "task",
            "--cluster-key", "no_such_key")
    log = read_eval_log(str(logs["agentic"]))
    tasks = {(r["qid"], r["task"]) for r in _rows(
        db, "SELECT DISTINCT qid, task FROM results WHERE run_id = ?",
        [_run_id(root, logs["agentic"])])}
    assert tasks == {(str(s.id), s.metadata["task"]) for s in log.samples}
    assert {r["benchmark"] for r in _rows(db, "SELECT benchmark FROM runs")} == {"ehr_bench"}
    # a cluster key no sample has: every question is its own cluster
    clusters = _rows(db, "SELECT n_questions, n_clusters FROM leaderboard_clustered")
    assert clusters and all(c["n_clusters"] == c["n_questions"] for c in clusters)
    bad = run_etl("ingest", str(root), "--db", str(tmp_path / "bad.duckdb"),
                  "--inspect-benchmark", "clin_lookup", check=False)
    assert bad.returncode == 2 and "TASK=BENCHMARK" in bad.stderr


def _rewrite_member(src: Path, dst: Path, member: str, data: bytes) -> None:
    """A copy of an .eval zip with one entry's bytes replaced."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info, data if info.filename == member else zin.read(info))


def test_damaged_logs_are_rejects_naming_the_file_the_rest_loads(inspect_tree,
                                                                   tmp_path) -> None:
    root, logs = inspect_tree
    tree = tmp_path / "logs"
    shutil.copytree(root, tree)
    good = logs["agentic"]
    damaged = tree / "damaged"
    damaged.mkdir()
    data = good.read_bytes()
    (damaged / "truncated.eval").write_bytes(data[: len(data) // 2])  # a killed copy
    _rewrite_member(good, damaged / "bad-sample.eval", "samples/q1_epoch_2.json",
                    b'{"id": "q1", "epoch": 2, "messages": "not a list"')
    newer = json.loads(logs["oneshot"].read_text())
    newer["version"] = 99  # a format this inspect_ai does not know
    (damaged / "newer.json").write_text(json.dumps(newer))
    (damaged / "notes.json").write_text('{"version": "draft", "comment": "not a log"}')
    db = tmp_path / "w.duckdb"
    run_etl("ingest", str(tree), "--db", str(db), "--quiet")
    rejects = {r["path"]: r for r in _rows(db, "SELECT path, line_no, error FROM rejects "
                                               "WHERE severity = 'error'")}
    assert set(rejects) == {f"damaged/{name}" for name in
                            ("truncated.eval", "bad-sample.eval", "newer.json")}
    for path, reject in rejects.items():
        assert path in reject["error"]
    assert "version 99" in rejects["damaged/newer.json"]["error"]
    assert "sample q1 epoch 2" in rejects["damaged/bad-sample.eval"]["error"]
    counts = {r["run_id"]: r["n"] for r in _rows(
        db, "SELECT run_id, count(*) AS n FROM results GROUP BY run_id")}
    # the two good logs whole, the log with one bad sample without it
    assert counts == {_run_id(root, logs["agentic"]): 18, _run_id(root, logs["oneshot"]): 18,
                      "damaged/bad-sample.eval": 17}
    kinds = {r["path"]: r["kind"] for r in _rows(db, "SELECT path, kind FROM files")}
    assert kinds["damaged/notes.json"] == "other"


def test_a_json_log_with_a_bad_sample_loads_the_others(inspect_tree, tmp_path) -> None:
    root, logs = inspect_tree
    data = json.loads(logs["oneshot"].read_text())
    data["samples"][4]["epoch"] = "not an epoch"
    bad_id = data["samples"][4]["id"]
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "one-bad.json").write_text(json.dumps(data))
    db = tmp_path / "w.duckdb"
    run_etl("ingest", str(tmp_path / "logs"), "--db", str(db), "--quiet")
    (reject,) = _rows(db, "SELECT path, line_no, error FROM rejects")
    assert reject["path"] == "one-bad.json" and reject["line_no"] == 5
    assert f"sample {bad_id}" in reject["error"]
    assert _rows(db, "SELECT count(*) AS n FROM results")[0]["n"] == 17


def test_usage_per_run_sums_the_tokens_inspect_recorded(inspect_tree, inspect_db) -> None:
    root, logs = inspect_tree
    for path in logs.values():
        log = read_eval_log(str(path))
        (row,) = _rows(inspect_db, "SELECT * FROM usage_per_run WHERE run_id = ?",
                       [_run_id(root, path)])
        totals = [u for s in log.samples for u in s.model_usage.values()]
        assert row["n_results_with_usage"] == len(log.samples)
        assert row["total_tokens"] == sum(u.total_tokens for u in totals)
        assert row["input_tokens"] == sum(u.input_tokens for u in totals)
        # Inspect's own run total (stats.model_usage) says the same
        assert row["output_tokens"] == sum(u.output_tokens
                                           for u in log.stats.model_usage.values())
