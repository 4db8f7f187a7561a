"""A results tree of the real EHR-Bench shape for the explorer's layout tests: the 45 tasks of
EHR-Bench (every scale of `etl synth` writes all 45) and 8 models, one more than the seven
`etl synth` writes, with a long name that is not in the built-in list (its display name is
its key: 34 characters on one line). The eighth model's runs are copies of Kimi K2.5's with
every third final answer replaced, so its scores differ; two phrases are planted in its
tool results, one near the start of a result and one past the first 10,000 characters of a
long one, for the search tests. `etl synth` itself is unchanged: every seed still writes
what it wrote."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

EIGHTH_MODEL = "llama_4_maverick_17b_128e_instruct"
COPIED_MODEL = "kimi_k2_5"
PLANTED = "zebra-striped potassium 7.9 Ünïcode (planted)"
PLANTED_DEEP = "deep marker: creatinine 4.2 [planted far]"
DEEP_AT = 12_345  # characters before PLANTED_DEEP in its tool result
WRONG_ANSWER = '{"response": ["Sepsis"]}'


def _is_finish(call: dict[str, Any]) -> bool:
    function = call.get("function") or {}
    return "finish" in str(function.get("name") or call.get("name") or "").lower()


def _eighth_model_run(src: Path, dst: Path, planted: dict[str, Any] | None) -> None:
    """Copy one results.jsonl of the copied model, answer every third record wrongly, and
    (planted given) plant the two phrases in tool results; planted gets where they are."""
    dst.mkdir(parents=True)
    out = []
    n_tool_records = 0
    for i, line in enumerate(src.read_text(encoding="utf-8", errors="replace").split("\n")):
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a damaged line of the demo tree: not needed here
        if not isinstance(record, dict):
            continue
        messages = record.get("messages") or []
        if i % 3 == 0:
            for message in reversed(messages):
                finish = [c for c in message.get("tool_calls") or [] if _is_finish(c)]
                if finish:
                    finish[-1].setdefault("function", {})["arguments"] = WRONG_ANSWER
                    break
        tools = [k for k, m in enumerate(messages) if m.get("role") == "tool"
                 and isinstance(m.get("content"), str)]
        if planted is not None and tools:
            n_tool_records += 1
            if n_tool_records == 1:
                k = tools[0]
                messages[k]["content"] = f"lab panel follows: {PLANTED}; rest unremarkable"
                planted["near"] = {"qid": record["qid"], "msg_idx": k,
                                   "run_index": record.get("run_index") or 1}
            elif n_tool_records == 2:
                k = tools[-1]
                filler = ("row value mg/dL " * (DEEP_AT // 16 + 1))[:DEEP_AT]
                messages[k]["content"] = filler + PLANTED_DEEP + " " + filler
                planted["deep"] = {"qid": record["qid"], "msg_idx": k,
                                   "run_index": record.get("run_index") or 1}
        out.append(json.dumps(record, ensure_ascii=False))
    (dst / "results.jsonl").write_text("\n".join(out) + "\n", encoding="utf-8")


def build_wide_tree(demo_tree: Path, out: Path) -> dict[str, Any]:
    """EHR-Bench of a demo tree (both modes, full1800) under out, plus the eighth model.
    Returns where the phrases were planted (run_id, qid, run_index, msg_idx)."""
    for mode in ("agentic", "oneshot"):
        split = out / "ehr_bench" / mode / "full1800"
        split.mkdir(parents=True)
        for model_dir in sorted((demo_tree / "ehr_bench" / mode / "full1800").iterdir()):
            shutil.copytree(model_dir, split / model_dir.name, symlinks=True)
    planted: dict[str, Any] = {}
    for mode in ("agentic", "oneshot"):
        source = demo_tree / "ehr_bench" / mode / "full1800" / COPIED_MODEL
        _eighth_model_run(source / "results.jsonl",
                          out / "ehr_bench" / mode / "full1800" / EIGHTH_MODEL,
                          planted if mode == "agentic" else None)
    run_id = f"ehr_bench/agentic/full1800/{EIGHTH_MODEL}"
    for where in planted.values():
        where["run_id"] = run_id
    assert set(planted) == {"near", "deep"}, "the copied run has too few tool results"
    return planted
