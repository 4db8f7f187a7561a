"""Regenerate the fidelity corpus' golden outputs by running the AUTHORS' scorers on its inputs.

    python tests/fidelity/regen_mm.py --authors-src DIR

DIR holds copies of the authors' files from UCSC-VLAA/ClinSeekAgent (never committed here):
  score_multimodal.py            clinseekagent/scoring/score_multimodal.py (335f1fb)
  score_text.py                  clinseekagent/scoring/score_text.py (1f33262)
  evaluate_results_09dce89.py    openresearcher_ehr/helper/evaluate_results.py at 09dce89
What it writes (the golden files the tests read):
  mm/tree/mm_bench/<mode>/scored/<model>/{scored.jsonl,summary.json[,summary.md]}
      score_file() with vocabulary mapping off (--no-vocab: the embedding model is not
      available here) and the LLM judge replaced by a deterministic stand-in verdict
      (stripped, lower-cased answer == gold), since Bedrock is not reachable;
  scores_json/tree/ehr_bench/agentic/full1800/<model>/...
      claude_opus_4_6: score_text.py --output-dir (summary.json, per_question.jsonl, summary.txt)
      glm_4_7, minimax_m2_5: score_text.py --output scores.json
      kimi_k2_5, qwen3_235b: the legacy evaluate_results.py --output scores.json (flat);
  then plants disagreements into copies (glm_4_7 mm summary, minimax_m2_5, qwen3_235b) and
  lists them in */planted.json.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import subprocess
import sys
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
TEXT_DIR = "ehr_bench/agentic/full1800"


def _stub_bedrock() -> None:
    backend = types.ModuleType("bedrock_backend")

    class BedrockAsyncGenerator:  # the judge never calls it: judge_once is replaced
        def __init__(self, **kwargs: object) -> None:
            self.kwargs = kwargs

    backend.BedrockAsyncGenerator = BedrockAsyncGenerator  # type: ignore[attr-defined]
    run_text = types.ModuleType("run_text")
    run_text.configure_bedrock_auth = lambda *a, **k: None  # type: ignore[attr-defined]
    run_text.resolve_bedrock_model_id = lambda model_id: model_id  # type: ignore[attr-defined]
    sys.modules["bedrock_backend"] = backend
    sys.modules["run_text"] = run_text


def _load(path: Path, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _set(document: dict, path: list[str], delta: float) -> dict:
    node = document
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = node[path[-1]] + delta
    return document


def _plant(file: Path, edits: list[tuple[list[str], float]], root: Path) -> list[dict]:
    document = json.loads(file.read_text())
    for keys, delta in edits:
        _set(document, keys, delta)
    file.write_text(json.dumps(document, indent=2))
    return [{"path": file.relative_to(root).as_posix(), "json_path": "$." + ".".join(keys)}
            for keys, _ in edits]


def regen_mm(src: Path) -> None:
    _stub_bedrock()
    scorer = _load(src / "score_multimodal.py", "authors_score_multimodal")

    async def judge_once(gen: object, prompt: str, max_retries: int = 3) -> dict:
        raise AssertionError("replaced per row below")

    async def worker(sem, gen, region_tag, idx, total, row, subtype, gold_name, prediction_str,
                     progress_every):  # the stand-in verdict for the Bedrock judge
        match = prediction_str.strip().lower() == gold_name.strip().lower()
        return {"match": match, "reason": "stand-in judge", "raw": ""}

    scorer.judge_once = judge_once
    scorer._worker = worker
    if not hasattr(scorer, "render_markdown"):
        scorer.render_markdown = lambda summary, path: ""
    root = HERE / "mm" / "tree"
    for results in sorted(root.glob("mm_bench/*/full2703/*/results.jsonl")):
        mode, model = results.parts[-4], results.parts[-2]
        out = root / "mm_bench" / mode / "scored" / model
        asyncio.run(scorer.score_file(results, out, "judge", "us-east-1", None, 4, None,
                                      False, vocab_matcher=None))
        # summary.md is a rendering only (not read by the warehouse): not kept when the copy
        # in DIR has no render_markdown of its own
        if (out / "summary.md").stat().st_size == 0:
            (out / "summary.md").unlink()
    planted = _plant(root / "mm_bench/agentic/scored/glm_4_7/summary.json",
                     [(["per_task_unified", "medmod_radiology", "f1"], 0.1),
                      (["len1_count"], 1)], root)
    (HERE / "mm" / "planted.json").write_text(json.dumps(planted, indent=2) + "\n")


def regen_text(src: Path) -> None:
    root = HERE / "scores_json" / "tree"
    bench = HERE / "scores_json" / "benchmark"
    run = root / TEXT_DIR

    def score_text(model: str, *args: str) -> None:
        subprocess.run([sys.executable, str(src / "score_text.py"), "--results",
                        str(run / model / "results.jsonl"), "--benchmark",
                        str(bench / "ehr_bench_test.json"), *args],
                       check=True, capture_output=True)

    def legacy(model: str) -> None:
        subprocess.run([sys.executable, str(src / "evaluate_results_09dce89.py"), "--results",
                        str(run / model / "results.jsonl"), "--benchmark",
                        str(bench / "ehr_bench_test.json"), "--output",
                        str(run / model / "scores.json")], check=True, capture_output=True)

    score_text("claude_opus_4_6", "--output-dir", str(run / "claude_opus_4_6"))
    for model in ("glm_4_7", "minimax_m2_5"):
        score_text(model, "--output", str(run / model / "scores.json"))
    for model in ("kimi_k2_5", "qwen3_235b"):
        legacy(model)
    planted = _plant(run / "minimax_m2_5/scores.json",
                     [(["per_task", "labevents", "f1"], 0.05),
                      (["per_task_type", "risk_prediction", "browser_tool_pct"], 3.0),
                      (["overall", "turns_avg"], 0.5)], root)
    planted += _plant(run / "qwen3_235b/scores.json",
                      [(["ICU_Readmission", "tool_calls_avg"], 1.0),
                       (["prescriptions_atc", "recall"], -0.25)], root)
    (HERE / "scores_json" / "planted.json").write_text(json.dumps(planted, indent=2) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--authors-src", required=True, type=Path,
                        help="directory with the authors' score_multimodal.py, score_text.py "
                             "and evaluate_results_09dce89.py")
    args = parser.parse_args()
    regen_mm(args.authors_src)
    regen_text(args.authors_src)


if __name__ == "__main__":
    main()
