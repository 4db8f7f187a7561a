"""The load under a small memory budget (etl/pipeline/memory.py).

Trees of the shapes that weigh on the load's memory, each holding more text than the
budget: long strings (tool results of megabytes), many short messages, many copies of each
result (merged, top-level, region shards, steal files, with long repetitive one-shot
timelines), images kept with --keep-images. Each builds under a --memory-limit below its
text, and the database equals the one built at the default budget, table by table and view
by view. When DuckDB still runs out, the ingest names the step and --memory-limit, exits
non-zero and publishes nothing."""

from __future__ import annotations

import base64
import functools
import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest

from etl.pipeline.ingest import IngestOptions, run_ingest
from etl.pipeline.memory import (
    MEMORY_FLOOR_MIB,
    LoadOutOfMemory,
    default_memory_limit,
    suggested_limit,
)
from tests.conftest import run_etl
from tests.small_tree import assert_same_warehouse, write_jsonl

pytestmark = pytest.mark.slow

# The rows of a tree load under a budget well below its text: every row insert spills.
ROWS_LIMIT_MB = 64
# Each tree holds about this much text (the stored texts of the loaded copies).
TEXT_MB = 2.5 * ROWS_LIMIT_MB
# A whole build (the derived steps too) under a budget near its floor: the derived steps
# (the paper's views, the paired comparisons) hold about 140 MB of operator state at once
# on any tree, however small, whatever its text.
BUILD_LIMIT_MB = 176
WORDS = ("creatinine", "heparin", "sepsis", "lactate", "ICU", "transfer", "mg/dL", "stable",
         "中文", "🩺", "noted", "given", "culture", "negative")


@functools.cache
def _pool() -> str:
    words = random.Random(7)
    return " ".join(words.choice(WORDS) for _ in range(600_000))


def _text(rng: random.Random, n_chars: int) -> str:
    """n_chars of words: a slice of one pool of words (cheap for megabytes, and no two
    long texts alike)."""
    pool = _pool()
    if n_chars >= len(pool):
        return (pool * (n_chars // len(pool) + 1))[:n_chars]
    start = rng.randrange(len(pool) - n_chars)
    return pool[start:start + n_chars]


def _finish(qid: str, answer: list[str]) -> dict[str, Any]:
    return {"id": f"finish_{qid}", "type": "function",
            "function": {"name": "ehr.finish",
                         "arguments": orjson.dumps({"response": answer}).decode()}}


def _agentic(qid: str, tool_texts: list[str], task: str = "prescriptions",
             user: Any = None) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are an agent."},
                                      {"role": "user", "content": user or f"ask {qid}"}]
    for i, text in enumerate(tool_texts):
        call = {"id": f"c{i}_{qid}", "type": "function",
                "function": {"name": "ehr.run_sql_query", "arguments": '{"query": "SELECT 1"}'}}
        messages.append({"role": "assistant", "content": f"step {i}", "tool_calls": [call]})
        messages.append({"role": "tool", "content": text, "tool_call_id": call["id"]})
    finish = _finish(qid, ["heparin"])
    messages.append({"role": "assistant", "content": "", "tool_calls": [finish]})
    messages.append({"role": "tool", "content": "done", "tool_call_id": finish["id"]})
    return {"qid": qid, "run_index": 1, "task": task, "label": ["heparin"],
            "status": "success", "completed": True, "stop_reason": "finish_tool_call",
            "subject_id": 10_000 + len(qid), "question": f"question {qid}",
            "messages": messages}


# DuckDB compresses a column 2048 rows (a vector) at a time and holds the vector's strings
# whole while it does: what a budget must hold is 2048 rows of the table, however the rows
# are split between statements. The trees below keep that realistic (long strings among
# many short messages, thumbnails), so it is their total text that exceeds the budget.

def long_strings(root: Path) -> None:
    """Two tool results of 0.5-2 MB in each trajectory of 400 steps."""
    rng = random.Random(1)
    records, total = [], 0
    while total < TEXT_MB * 1e6:
        texts = [_text(rng, rng.randrange(150, 300)) for _ in range(200)]
        for at in (3, 150):
            texts[at] = _text(rng, rng.randrange(500_000, 2_000_000))
        total += sum(map(len, texts))
        records.append(_agentic(f"q{len(records)}", texts))
    write_jsonl(root / "ehr_bench/agentic/full1800/claude_opus_4_6/results.jsonl", records)


def many_short(root: Path) -> None:
    """Hundreds of thousands of messages of a few hundred characters."""
    rng = random.Random(2)
    per_record = 2_000
    n_records = int(TEXT_MB * 1e6 / (per_record * 500)) + 1
    write_jsonl(root / "ehr_bench/agentic/full1800/glm_4_7/results.jsonl",
                [_agentic(f"q{i}", [_text(rng, rng.randrange(300, 700))
                                    for _ in range(per_record)]) for i in range(n_records)])


def many_copies(root: Path) -> None:
    """One-shot results in four or five files each (merged, top-level, region shard, steal
    file and its copy), with long timelines: the question holds it three times, and so does
    the prompt of every model that answers the question."""
    rng = random.Random(3)
    timeline_chars = 4_000
    # two models store every timeline six times a record
    n_questions = int(TEXT_MB * 1e6 / (2 * 6 * timeline_chars)) + 1
    timelines = {f"q{i}": _text(rng, timeline_chars) for i in range(n_questions)}
    for model, copies in (("claude_opus_4_6", True), ("kimi_k2_5", False)):
        run = root / f"ehr_bench/oneshot/full1800/{model}"
        records = []
        for qid, timeline in timelines.items():
            question = f"Task: diagnosis\n{timeline}\n{timeline}\n{timeline}"
            finish = _finish(qid, ["sepsis"])
            records.append({
                "qid": qid, "run_index": 1, "task": "diagnosis", "label": ["sepsis"],
                "question": question, "status": "ok", "completed": True,
                "stop_reason": "finish_tool_call", "subject_id": 20_000,
                "messages": [{"role": "user", "content": question + "\nanswer"},
                             {"role": "assistant", "content": "", "tool_calls": [finish]},
                             {"role": "tool", "content": "Finish (one-shot)",
                              "tool_call_id": finish["id"]}]})
        write_jsonl(run / "results.jsonl", records)
        if copies:
            half = len(records) // 2
            write_jsonl(run / "merged_unique.jsonl", records[::-1])
            write_jsonl(run / "us-east-1/results.jsonl", records[:half])
            write_jsonl(run / "us-west-2/results.jsonl", records[half:])
            write_jsonl(run / "us-west-2/results_steal_01.jsonl", records[-50:])
            write_jsonl(run / "us-west-2/steal_01/results.jsonl", records[-50:])


def images(root: Path) -> None:
    """Multimodal records with four base64 thumbnails each, stored whole (--keep-images)."""
    rng = random.Random(4)
    blob = base64.b64encode(rng.randbytes(1_000_000)).decode()
    records, total = [], 0
    while total < TEXT_MB * 1e6:
        blocks: list[dict[str, Any]] = [{"type": "text", "text": "Look at the X-rays."}]
        for _ in range(4):
            start = rng.randrange(len(blob) - 20_000)
            data = blob[start:start + rng.randrange(4_000, 16_000)]
            blocks.append({"type": "image", "source": {
                "type": "base64", "media_type": "image/jpeg", "data": data}})
            total += len(data)
        record = _agentic(f"m{len(records)}", ["classifier says: effusion"],
                          task="medmod_radiology", user=blocks)
        records.append(record)
    write_jsonl(root / "mm_bench/agentic/full2703/claude_opus_4_6/results.jsonl", records)


SHAPES: dict[str, tuple[Callable[[Path], None], dict[str, Any]]] = {
    "long strings": (long_strings, {}),
    "many short messages": (many_short, {}),
    "many copies of each result": (many_copies, {}),
    "images": (images, {"keep_images": True}),
}


def _stored_text_bytes(db: Path) -> int:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return sum(con.execute(f"SELECT coalesce(sum(strlen({column})), 0) FROM {table}"
                               ).fetchall()[0][0]
                   for table, column in (("messages", "content"), ("results", "question"),
                                         ("images", "data")))
    finally:
        con.close()


@pytest.fixture(scope="module", params=list(SHAPES))
def shaped_tree(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
                ) -> tuple[Path, dict[str, Any]]:
    build, options = SHAPES[request.param]
    root = tmp_path_factory.mktemp("shape") / "tree"
    build(root)
    return root, options


def build_twice(root: Path, work: Path, low_limit: str, **options: Any
                ) -> tuple[Path, Path]:
    """(the database built under low_limit, the one built at the default budget), the
    second from the parse cache of the first (the load is what differs, not the parse)."""
    work.mkdir(exist_ok=True)
    db, low = work / "warehouse.duckdb", work / "low.duckdb"
    run_ingest(root, db, IngestOptions(jobs=1, memory_limit=low_limit, **options))
    shutil.copyfile(db, low)
    db.unlink()  # the next ingest builds anew, from the cache
    summary = run_ingest(root, db, IngestOptions(jobs=1, **options))
    assert summary.n_parsed == 0 and summary.full_reason is not None
    return low, db


def test_rows_load_under_a_budget_below_their_text_as_at_the_default(
        shaped_tree: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    """The row inserts (the derived steps left out: their memory does not grow with the
    text, see the next test) under 64 MB, each tree holding 160 MB of text or more."""
    root, options = shaped_tree
    low, default = build_twice(root, tmp_path / "work", f"{ROWS_LIMIT_MB}MB", derive=False,
                               **options)
    assert _stored_text_bytes(low) > 2 * ROWS_LIMIT_MB * 1e6, "more text than the budget"
    assert_same_warehouse(low, default)
    assert not list((tmp_path / "work").glob("*.tmp-*")), "the spill directory is removed"


def test_a_whole_build_near_the_floor_equals_the_default_build(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    many_copies(root)
    long_strings(root)
    low, default = build_twice(root, tmp_path / "work", f"{BUILD_LIMIT_MB}MB")
    assert _stored_text_bytes(low) > BUILD_LIMIT_MB * 1e6
    assert_same_warehouse(low, default)


def test_out_of_memory_names_the_step_and_publishes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    write_jsonl(root / "ehr_bench/agentic/full1800/claude_opus_4_6/results.jsonl",
                [_agentic(f"q{i}", ["a result"]) for i in range(20)])
    db = tmp_path / "warehouse.duckdb"
    run_ingest(root, db, IngestOptions(jobs=1))
    before = db.stat()
    with pytest.raises(LoadOutOfMemory) as caught:
        run_ingest(root, db, IngestOptions(jobs=1, full=True, memory_limit="4MB"))
    message = str(caught.value)
    assert "ran out of memory while " in message and "--memory-limit" in message
    assert "Nothing was published" in message
    after = db.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino, before.st_size, before.st_mtime_ns)
    assert not list(tmp_path.glob("warehouse.duckdb.tmp-*"))
    # The command line says the same, with the exit status of a failed ingest.
    proc = run_etl("ingest", str(root), "--db", str(db), "--quiet", "--full",
                   "--memory-limit", "4MB", check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "ran out of memory while" in proc.stderr and "--memory-limit" in proc.stderr


def test_the_default_limit_is_a_share_of_the_machine_with_a_floor() -> None:
    gib = 1 << 30
    assert default_memory_limit(64 * gib) == "1638MiB"  # 65536 MiB / 40
    assert default_memory_limit(24 * gib) == "614MiB"
    assert default_memory_limit(8 * gib) == f"{MEMORY_FLOOR_MIB}MiB"
    assert default_memory_limit(0) == f"{MEMORY_FLOOR_MIB}MiB"  # unknown: the floor
    assert suggested_limit("700MB") == "1335MiB"  # twice DuckDB's 667.5 MiB
    assert suggested_limit("1MB") == f"{MEMORY_FLOOR_MIB}MiB"
