"""The load stage, property-based.

Any sequence of appends, rewrites, truncations, deletions, new files and touches, each
followed by an ingest that updates the published database in place of rebuilding it, ends
in the database a full rebuild (`--full`) of the final tree gives, table by table and view
by view (tests/pipeline/test_load.py's snapshot: every column but the ingest bookkeeping).

The oracle is the cold build: the same tree, a fresh database, no parse cache. Hypothesis
draws the mutations from a menu of the files a live evaluation changes: the preferred copy
of a run and its region shard, a symlinked multimodal run's shard and steal files, a score
file, an archived run, a run that appears; records draw qids from a small pool so newer
attempts, duplicate copies and preferred copies that move between files all happen."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from etl.pipeline.ingest import IngestOptions, run_ingest
from tests.budgets import examples
from tests.small_tree import (
    AGENTIC,
    ARCHIVE,
    MM_RAW,
    ONESHOT,
    assert_same_warehouse,
    build_tree,
    record,
)

RESULT_FILES = (
    f"{AGENTIC}/results.jsonl",
    f"{AGENTIC}/us-east-1/results.jsonl",
    f"{ONESHOT}/results.jsonl",
    f"{MM_RAW}/us-west-2/results.jsonl",
    f"{MM_RAW}/us-west-2/results_steal_01.jsonl",
    f"{MM_RAW}/us-west-2/steal_01/results.jsonl",
    f"{ARCHIVE}/results.jsonl",
    "ehr_bench/agentic/full1800/glm_4_7/results.jsonl",  # a run that may appear
)
SCORE_FILE = "mm_bench/agentic/scored/glm_4_7/rescored.jsonl"
QIDS = ("q0", "q1", "q2", "q3", "m0", "m1")
ANSWERS = (["aspirin"], ["heparin"], ["aspirin", "heparin"], [])


def _task_of(path: str) -> str:
    return "medmod_phenotyping" if path.startswith("mm_bench") else "prescriptions"


records = st.builds(
    lambda qid, run_index, answer: (qid, run_index, answer),
    st.sampled_from(QIDS), st.sampled_from((1, 1, 2)), st.sampled_from(ANSWERS))

mutation = st.one_of(
    st.tuples(st.just("append"), st.sampled_from(RESULT_FILES), st.lists(records, min_size=1,
                                                                           max_size=3),
              st.booleans()),
    st.tuples(st.just("rewrite"), st.sampled_from(RESULT_FILES), st.lists(records, max_size=3),
              st.booleans()),
    st.tuples(st.just("truncate"), st.sampled_from(RESULT_FILES), st.integers(0, 3),
              st.booleans()),
    # The same records in the same places, other answers: a repaired or re-scored file.
    st.tuples(st.just("edit"), st.sampled_from(RESULT_FILES), st.sampled_from(ANSWERS),
              st.booleans()),
    st.tuples(st.just("delete"), st.sampled_from((*RESULT_FILES, SCORE_FILE)), st.none(),
              st.booleans()),
    st.tuples(st.just("scores"), st.just(SCORE_FILE), st.lists(st.sampled_from(QIDS),
                                                               max_size=4), st.booleans()),
    st.tuples(st.just("touch"), st.sampled_from((*RESULT_FILES, SCORE_FILE)), st.none(),
              st.booleans()),
)


def _line(path: str, item: tuple[str, int, list[str]]) -> bytes:
    qid, run_index, answer = item
    return orjson.dumps(record(qid, run_index, answer, task=_task_of(path))) + b"\n"


def _bump_mtime(path: Path, seconds: int) -> None:
    """A later mtime than any before (the test runs faster than the mtime clock ticks)."""
    st_ = path.stat()
    os.utime(path, ns=(st_.st_atime_ns, st_.st_mtime_ns + seconds * 1_000_000_000))


def apply(root: Path, step: tuple[str, str, Any, bool], tick: int) -> None:
    """One mutation; the flag leaves an unterminated half line at the end of what it wrote
    (a writer still on it, or killed mid-line)."""
    kind, rel, arg, half = step
    path = root / rel
    tail = _line(rel, ("q9", 1, ["aspirin"]))[:25] if half else b""
    if kind == "delete":
        path.unlink(missing_ok=True)
        return
    if kind == "touch":
        if path.exists():
            _bump_mtime(path, tick)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "append":
        with path.open("ab") as fh:
            fh.write(b"".join(_line(rel, item) for item in arg) + tail)
    elif kind == "rewrite":
        path.write_bytes(b"".join(_line(rel, item) for item in arg) + tail)
    elif kind == "edit":
        if not path.exists():
            return
        out = []
        for raw in path.read_bytes().splitlines(keepends=True):
            try:
                rec = orjson.loads(raw)
                out.append(_line(rel, (rec["qid"], rec.get("run_index", 1), arg)))
            except (orjson.JSONDecodeError, KeyError, TypeError):
                out.append(raw)
        path.write_bytes(b"".join(out) + tail)
    elif kind == "truncate":
        if not path.exists():
            return
        lines = path.read_bytes().splitlines(keepends=True)
        path.write_bytes(b"".join(lines[:arg]) + tail)
    elif kind == "scores":
        path.write_bytes(b"".join(orjson.dumps(
            {"qid": q, "run_index": 1, "task": "medmod_phenotyping", "route": "set_f1",
             "f1": (i % 3) / 2, "precision": 0.5, "recall": 0.5, "correct": i % 2}) + b"\n"
            for i, q in enumerate(arg)))
    _bump_mtime(path, tick)


def ingest(root: Path, db: Path, quiet: float, **options: Any) -> Any:
    return run_ingest(root, db, IngestOptions(jobs=1,
                                              in_progress_seconds=quiet, **options))


# Budget: an example is 3 to 5 ingests. make test's 8 fixed sequences hold 36 mutations,
# every kind at least twice, half lines and whole; make fuzz draws 100 random ones.
@settings(max_examples=examples(8, 100), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.lists(st.lists(mutation, min_size=1, max_size=3), min_size=1, max_size=3),
       quiet=st.sampled_from((0.0, 3600.0)))
def test_any_changes_then_incremental_equals_full(tmp_path_factory: Any,
                                                  steps: list[list[tuple]],
                                                  quiet: float) -> None:
    work = tmp_path_factory.mktemp("prop")
    root, db = work / "tree", work / "warehouse.duckdb"
    build_tree(root)
    ingest(root, db, quiet)
    tick = 1
    for mutations in steps:
        for step in mutations:
            apply(root, step, tick)
            tick += 1
        summary = ingest(root, db, quiet)
        assert summary.unchanged or summary.full_reason is None, summary.full_reason
    full = work / "full.duckdb"
    ingest(root, full, quiet, full=True)
    assert_same_warehouse(db, full)
