"""A tree of one run of two questions, the smallest an ingest accepts, and the words an
interrupted ingest promises (tests of the refusals and of Ctrl-C)."""

from __future__ import annotations

from pathlib import Path

import orjson

RUN = "ehr_bench/agentic/full1800/claude_opus_4_6"
INTERRUPTED_MESSAGE = "interrupted; the previous database is unchanged"  # the promised words


def write_results(directory: Path, qids: list[str]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "results.jsonl").write_bytes(b"".join(orjson.dumps(
        {"qid": q, "run_index": 1, "task": "labevents", "label": ["a"], "status": "success",
         "completed": True, "messages": []}) + b"\n" for q in qids))


def one_run_tree(root: Path) -> Path:
    write_results(root / RUN, ["q1", "q2"])
    return root
