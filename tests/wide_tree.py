"""Wide results trees: many runs of small one-shot records, written fast, for the width
checks (tests/pipeline/test_width.py in the suite, `python -m tests.width_bench` at full size).

Each run is a model directory holding one results.jsonl of one-shot records (the shape of
FORMATS.md: a user message, an assistant message with one ehr.finish call, the tool's
answer). The answers are drawn from a seeded generator, so runs differ and the paired
comparisons have work to do."""

from __future__ import annotations

import os
import random
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import orjson

TASKS = ("prescriptions", "labevents", "diagnoses_icd", "procedures_icd", "transfers")
VOCABULARY = ("aspirin", "heparin", "insulin", "warfarin", "metformin", "lisinopril")


def one_shot_record(qid: str, task: str, label: list[str], answer: list[str]) -> dict:
    arguments = orjson.dumps({"response": answer}).decode()
    return {"qid": qid, "run_index": 1, "task": task, "task_type": "decision_making",
            "label": label, "status": "ok", "stop_reason": "finish_tool_call",
            "completed": True, "error": None,
            "messages": [
                {"role": "user", "content": f"question {qid}"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": f"one_shot_{qid}", "type": "function",
                     "function": {"name": "ehr.finish", "arguments": arguments}}]},
                {"role": "tool", "content": "Finish (one-shot)",
                 "tool_call_id": f"one_shot_{qid}"}]}


def write_wide_tree(root: Path, n_runs: int, n_questions: int, split: str = "full1800",
                    benchmark: str = "ehr_bench", mode: str = "oneshot", seed: int = 1) -> None:
    """n_runs model directories under <root>/<benchmark>/<mode>/<split>/, each answering the
    same n_questions questions."""
    rng = random.Random(seed)
    questions = []
    for i in range(n_questions):
        task = TASKS[i % len(TASKS)]
        questions.append((f"{task}_{i:06d}", task, rng.sample(VOCABULARY, 2)))
    board = root / benchmark / mode / split
    for run in range(n_runs):
        directory = board / f"model_{run:05d}"
        directory.mkdir(parents=True)
        lines = [orjson.dumps(one_shot_record(qid, task, label,
                                              rng.sample(VOCABULARY, rng.randint(0, 3))))
                 for qid, task, label in questions]
        (directory / "results.jsonl").write_bytes(b"\n".join(lines) + b"\n")


@dataclass
class Measured:
    """What one command cost: wall seconds, CPU seconds of it and its children, and the
    peak of the summed resident memory of its whole process tree (sampled)."""

    returncode: int
    wall_seconds: float
    cpu_seconds: float
    peak_tree_rss_mb: float
    stderr: str


def _tree_rss_kb(root_pid: int) -> int:
    """Summed VmRSS of root_pid and every descendant, from /proc."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as fh:
                fields = dict(line.split(":", 1) for line in fh if ":" in line)
        except OSError:
            continue
        pid = int(entry)
        parents[pid] = int(fields.get("PPid", "0").strip() or 0)
        rss[pid] = int(fields.get("VmRSS", "0 kB").split()[0]) if "VmRSS" in fields else 0
    total, todo = 0, [root_pid]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo.extend(child for child, parent in parents.items() if parent == pid)
    return total


def measure(command: list[str], interval: float = 0.2) -> Measured:
    """Run command, sampling the resident memory of its process tree every interval."""
    before = os.times()
    started = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    peak = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, _tree_rss_kb(proc.pid))
            stop.wait(interval)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, stderr = proc.communicate()
    stop.set()
    sampler.join()
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system
                                                           - before.children_system)
    return Measured(proc.returncode, time.monotonic() - started, cpu, peak / 1024, stderr)
