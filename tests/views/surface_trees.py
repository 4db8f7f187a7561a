"""Small results trees in the writers' shapes that hold what makes a leaderboard hard to
show (Hypothesis draws them): several runs of one board missing different questions,
errors and incomplete results, several attempts of a question, questions of one patient and
questions of no known patient, a multimodal board whose runs were scored by different
scorers (the authors' rows for some, none for others), and a scored-only run (a
`scored/<model>` directory whose model has no run of its own).

`surface_trees()` draws a TreeSpec; `write_tree(root, spec)` writes it as files."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import orjson
from hypothesis import strategies as st

TEXT_TASKS = (("labevents", "decision_making"), ("prescriptions", "decision_making"),
              ("ICU_Mortality_7day", "risk_prediction"), ("Readmission_30day",
                                                          "risk_prediction"))
MM_TASKS = ("medmod_phenotyping", "ehrxqa_table", "medmod_in_hospital_mortality")
VOCABULARY = ("sepsis", "anemia", "shock", "pneumonia", "delirium", "obesity")
TEXT_MODELS = ("claude_opus_4_6", "kimi_k2_5", "glm_4_7")
MM_MODELS = ("claude_sonnet_4_6", "qwen3_vl_235b")
SCORED_ONLY_MODEL = "minimax_m2_5"


@dataclass(frozen=True)
class RunSpec:
    """One run: its questions (indexes into the board's pool) and, per question, its attempts'
    statuses; authors: whether the authors' scored rows exist for it (multimodal)."""

    model: str
    questions: tuple[int, ...]
    attempts: tuple[tuple[str, ...], ...]
    authors: bool = False
    scored_only: bool = False


@dataclass(frozen=True)
class TreeSpec:
    text_runs: tuple[RunSpec, ...]
    mm_runs: tuple[RunSpec, ...]
    patients: tuple[int | None, ...]  # the patient of each question of the pools
    seed: int
    extra: dict = field(default_factory=dict)


STATUSES = ("success", "success", "success", "incomplete", "error")


@st.composite
def run_specs(draw: st.DrawFn, model: str, pool: int, text: bool, authors: bool = False,
              scored_only: bool = False) -> RunSpec:
    questions = draw(st.lists(st.integers(0, pool - 1), min_size=2, max_size=pool,
                              unique=True))
    attempts = tuple(
        tuple(draw(st.lists(st.sampled_from(STATUSES if text else ("ok", "ok", "error")),
                            min_size=1, max_size=2)))
        for _ in questions)
    return RunSpec(model, tuple(sorted(questions)), attempts, authors, scored_only)


@st.composite
def surface_trees(draw: st.DrawFn) -> TreeSpec:
    pool = draw(st.integers(4, 7))
    n_text = draw(st.integers(2, 3))
    text_runs = tuple(draw(run_specs(model, pool, True)) for model in TEXT_MODELS[:n_text])
    # a multimodal board: one run with the authors' rows, one without (another default
    # scorer: the board mixes scorers), and a scored-only run
    mm_runs = (draw(run_specs(MM_MODELS[0], pool, False, authors=True)),
               draw(run_specs(MM_MODELS[1], pool, False, authors=draw(st.booleans()))),
               draw(run_specs(SCORED_ONLY_MODEL, pool, False, authors=True,
                              scored_only=True)))
    # some questions share a patient, some have none known
    patients = tuple(draw(st.lists(st.sampled_from((None, 101, 102, 103)), min_size=pool,
                                   max_size=pool)))
    return TreeSpec(text_runs, mm_runs, patients, draw(st.integers(0, 2**16)))


def _finish(answer: list[str]) -> list[dict]:
    call = {"id": "call_finish", "type": "function",
            "function": {"name": "ehr.finish",
                         "arguments": orjson.dumps({"response": answer}).decode()}}
    return [{"role": "user", "content": "question"},
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "content": "Finish", "tool_call_id": "call_finish"}]


def _text_qid(i: int) -> tuple[str, str, str]:
    task, group = TEXT_TASKS[i % len(TEXT_TASKS)]
    return f"{task}_{i:04d}", task, group


def _mm_qid(i: int) -> tuple[str, str]:
    task = MM_TASKS[i % len(MM_TASKS)]
    return f"{task}_{i:05d}_q", task


def _lines(records: list[dict]) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def write_tree(root: Path, spec: TreeSpec) -> None:
    """Write the tree of spec under root (which must not exist)."""
    rng = random.Random(spec.seed)
    for run in spec.text_runs:
        records = []
        for i, statuses in zip(run.questions, run.attempts, strict=True):
            qid, task, group = _text_qid(i)
            gold = rng.sample(VOCABULARY, 2)
            for index, status in enumerate(statuses, start=1):
                answer = rng.sample(VOCABULARY, rng.randint(0, 3))
                record = {"qid": qid, "run_index": index, "task": task, "task_type": group,
                          "label": gold, "status": status,
                          "completed": status == "success",
                          "stop_reason": ("exception" if status == "error"
                                          else "finish_tool_call"),
                          "error": "ReadTimeoutError" if status == "error" else None,
                          "messages": [] if status == "error" else _finish(answer)}
                if spec.patients[i] is not None:
                    record["subject_id"] = spec.patients[i]
                records.append(record)
        directory = root / "ehr_bench" / "agentic" / "full1800" / run.model
        directory.mkdir(parents=True)
        (directory / "results.jsonl").write_bytes(_lines(records))
    for run in spec.mm_runs:
        results, scored = [], []
        for i, statuses in zip(run.questions, run.attempts, strict=True):
            qid, task = _mm_qid(i)
            gold = rng.choice(("yes", "no"))
            for index, status in enumerate(statuses, start=1):
                answer = [rng.choice(("yes", "no"))]
                record = {"qid": qid, "run_index": index, "task": task,
                          "source_benchmark": task.split("_", 1)[0],
                          "label": [{"name": gold}], "status": status,
                          "stop_reason": "exception" if status == "error" else "finish_tool_call",
                          "messages": [] if status == "error" else _finish(answer)}
                if spec.patients[i] is not None:
                    record["subject_id"] = spec.patients[i]
                results.append(record)
                route = ("incomplete" if status == "error"
                         else rng.choice(("set_f1", "llm_judge")))
                hit = float(answer == [gold])
                scored.append({"qid": qid, "run_index": index, "task": task,
                               "gold_names": [gold], "prediction_strs": answer,
                               "status": status, "route": route,
                               "correct": hit if route == "llm_judge" else None,
                               "judge_match": bool(hit) if route == "llm_judge" else None,
                               "precision": hit, "recall": hit, "f1": hit,
                               "subset_match": hit})
        if not run.scored_only:
            directory = root / "mm_bench" / "oneshot" / "full2703" / run.model
            directory.mkdir(parents=True)
            (directory / "results.jsonl").write_bytes(_lines(results))
        if run.authors:
            directory = root / "mm_bench" / "oneshot" / "scored" / run.model
            directory.mkdir(parents=True)
            (directory / "scored.jsonl").write_bytes(_lines(scored))
