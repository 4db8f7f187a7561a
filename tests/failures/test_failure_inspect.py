"""Inspect AI logs get failure labels too: a call Inspect marks failed (its ToolCallError) is a
tool error whatever its text, and its result carries it."""

from __future__ import annotations

from pathlib import Path

import duckdb

from tests.inspect_logs import TOOL_ERROR


def test_a_failed_inspect_call_is_a_tool_error(inspect_db: Path) -> None:
    """On the shared Inspect warehouse: its agentic log (6 samples, 3 epochs) offers the
    tool, its one-shot log none."""
    with duckdb.connect(str(inspect_db), read_only=True) as con:
        failed = con.execute(
            "SELECT c.run_id, c.qid, c.run_index, c.msg_idx, c.call_idx FROM tool_calls AS c "
            "JOIN messages AS m ON m.run_id = c.run_id AND m.qid = c.qid "
            "AND m.run_index = c.run_index AND m.msg_idx = c.result_msg_idx "
            "WHERE c.is_error ORDER BY ALL").fetchall()
        labelled = con.execute(
            "SELECT run_id, qid, run_index, msg_idx, call_idx FROM call_failures "
            "WHERE failure = 'tool_error' AND detail = 'other' ORDER BY ALL").fetchall()
        others = con.execute("SELECT count(*) FROM call_failures WHERE failure <> 'tool_error'"
                             ).fetchone()[0]
        carried = con.execute("SELECT count(*) FROM result_failures WHERE failure = "
                              "'tool_error'").fetchone()[0]
        texts = [t for t, in con.execute(
            "SELECT m.content FROM tool_calls AS c JOIN messages AS m ON m.run_id = c.run_id "
            "AND m.qid = c.qid AND m.run_index = c.run_index AND m.msg_idx = c.result_msg_idx "
            "WHERE c.is_error").fetchall()]
    # the mock model calls lookup with a bad code on every third sample (q0, q3), each epoch
    assert len(failed) == 2 * 3 and labelled == failed
    assert others == 0 and carried == len({f[:3] for f in failed})
    assert all(TOOL_ERROR in (t or "") or t == "" for t in texts)
