"""run.log counting by blocks equals counting line by line (the rule as first written: each
pattern searched in each line), for any log: Hypothesis builds logs from the driver's line
fragments, blank lines, CR, invalid UTF-8 and lines cut anywhere, and the block size is
forced small so lines meet block edges."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from etl.extract import FileInfo, runmeta
from tests.budgets import examples
from tests.recording import RecordingEmitter

# The line-by-line rule, written here independently of etl/extract/runmeta.py.
PER_LINE = {
    "n_errors": rb"^\s*(?:\[qid=[^\]]*\]\s*ERROR\b|\[?ERROR\]?[:\s])",
    "n_tool_errors": rb"\bTOOL_ERROR\[\d+\]:",
    "n_tool_name_fixes": rb"\bTOOL_NAME_FIX:",
    "n_synthetic_finish": rb"(?i)synthesized ehr\.finish",
    "n_exceptions": rb"^Traceback \(most recent call last\):",
    "n_tool_calls": rb"\bTOOL_CALL\[\d+\]:",
    "n_truncated_results": rb"\bTOOL_RESULT_TRUNCATED\[",
    "n_finish_called": rb"ehr\.finish called - DONE|DONE Round \d+: ehr\.finish called",
    "n_written": rb"^\[qid=[^\]]*\] task \d+/\d+ \| run .* written to ",
    "n_questions_started": rb"^Processing task \d+/\d+ \| question ",
}

FRAGMENTS = [b"[qid=q1] ", b"[qid=", b"]", b" ERROR", b"ERROR", b":", b" ", b"\t", b"\r",
             b"TOOL_ERROR[1]:", b"TOOL_CALL[0]: ehr.x({})", b"TOOL_NAME_FIX:",
             b"TOOL_RESULT_TRUNCATED[", b"Synthesized EHR.finish", b"ehr.finish called - DONE",
             b"DONE Round 3: ehr.finish called", b"Traceback (most recent call last):",
             b"task 5/10 | run 1/1 written to x", b"Processing task 1/2 | question ",
             b"Using AWS Bedrock: m.id @ us-east-1", b"\xff\xfe", b"x" * 40]


def per_line(data: bytes) -> dict[str, int]:
    lines = [line for line in re.split(rb"(?<=\n)", data) if line]
    counts = {k: sum(1 for line in lines if re.search(p, line)) for k, p in PER_LINE.items()}
    counts["n_lines"] = len(lines)
    return counts


logs = st.lists(st.lists(st.sampled_from(FRAGMENTS), max_size=6).map(b"".join),
                max_size=40).map(b"\n".join).flatmap(
    lambda body: st.sampled_from([body, body + b"\n", body + b"\n\n"]))


@settings(max_examples=examples(80), deadline=None)
@given(data=logs, block=st.integers(1, 64))
def test_block_counts_equal_line_counts(tmp_path_factory, data: bytes, block: int) -> None:
    path = Path(tmp_path_factory.mktemp("log")) / "run.log"
    path.write_bytes(data)
    info = FileInfo(file_id="f", path="r/run.log", abs_path=path, real_path=str(path),
                    kind="run_log", run_id="r", size_bytes=len(data))
    old, runmeta.RUN_LOG_BLOCK = runmeta.RUN_LOG_BLOCK, block
    try:
        emit = RecordingEmitter()
        runmeta.extract_run_log(info, emit)
    finally:
        runmeta.RUN_LOG_BLOCK = old
    assert emit.rejects == []
    [stats] = [row for table, row in emit.rows if table == "run_log_stats"]
    expected = per_line(data)
    assert {k: stats[k] for k in expected} == expected
    assert emit.stats == [(expected["n_lines"], hashlib.sha256(data).hexdigest())]
    found = re.search(rb"Using AWS Bedrock: (\S+) @ (\S+)", data)
    assert stats["backend_model_id"] == (found.group(1).decode("utf-8", "replace")
                                         if found else None)
