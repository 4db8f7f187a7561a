"""Regenerate the golden files of the fidelity corpus with the benchmark AUTHORS' scorer.

    python tests/fidelity/regen.py --authors-src DIR

DIR holds the authors' files (a checkout or copy of UCSC-VLAA/ClinSeekAgent, at least
clinseekagent/scoring/score_text.py); their code is never copied into this repository. For
every run of tests/fidelity/text/tree this runs, in a subprocess,

    score_text.py --results <run>/results.jsonl --benchmark <benchmark> --output-dir OUT

once as is (golden/<run_id>/default: the authors_text scorer) and once with
--extract-text-answer-without-finish (golden/<run_id>/fallback: authors_text_fallback),
keeps summary.json and per_question.jsonl, and writes golden/<run_id>/best_at_k.json: the
authors' calculate_true_best_at_k of every question's run F1 values for k = 1..the most
runs a question of the run has; and golden_resume/: the default scorer on resume_tree (a
file with retried attempts). tests/scoring/test_fidelity_text.py compares the warehouse to them.
Run tests/fidelity/make_corpus.py first if the corpus changed."""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from make_corpus import BENCH, RESUME_RUN, RESUME_TREE, TREE, corpus  # noqa: E402

TEXT = TREE.parent

GOLDEN = TEXT / "golden"
SCRIPT = Path("clinseekagent") / "scoring" / "score_text.py"
KEEP = ("summary.json", "per_question.jsonl")
GOLDEN_RESUME = TEXT / "golden_resume"


def _load_authors(script: Path):
    spec = importlib.util.spec_from_file_location("authors_score_text", script)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def run_authors(script: Path, results: Path, bench: Path, out: Path, extra: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, str(script), "--results", str(results),
                        "--benchmark", str(bench), "--output-dir", tmp, *extra],
                       check=True, stdout=subprocess.DEVNULL)
        out.mkdir(parents=True)
        for name in KEEP:
            shutil.copy(Path(tmp) / name, out / name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--authors-src", required=True, type=Path,
                        help="directory holding clinseekagent/scoring/score_text.py")
    args = parser.parse_args()
    script = args.authors_src / SCRIPT
    if not script.is_file():
        raise SystemExit(f"{script} not found: --authors-src must hold {SCRIPT}")
    authors = _load_authors(script)
    for directory in (GOLDEN, GOLDEN_RESUME):
        if directory.exists():
            shutil.rmtree(directory)
    run_authors(script, RESUME_TREE / RESUME_RUN / "results.jsonl", BENCH / "ehr_bench.json",
                GOLDEN_RESUME / RESUME_RUN / "default", [])
    for run_id, (bench, _) in sorted(corpus().items()):
        results = TREE / run_id / "results.jsonl"
        for variant, extra in (("default", []), ("fallback",
                                                 ["--extract-text-answer-without-finish"])):
            run_authors(script, results, BENCH / bench, GOLDEN / run_id / variant, extra)
        per_question = [json.loads(line) for line in
                        (GOLDEN / run_id / "default" / "per_question.jsonl").open()]
        runs = [q["runs"] for q in per_question if q["runs"]]
        max_runs = max(len(r) for r in runs)
        best = {}
        if max_runs > 1:
            best = {q["qid"]: [authors.calculate_true_best_at_k(q["runs"], k)
                               for k in range(1, max_runs + 1)]
                    for q in per_question if q["runs"]}
        (GOLDEN / run_id / "best_at_k.json").write_text(
            json.dumps({"max_runs": max_runs, "per_question": best}, indent=2) + "\n")
        print(f"{run_id}: {len(runs)} questions with runs, up to {max_runs} runs")


if __name__ == "__main__":
    main()
