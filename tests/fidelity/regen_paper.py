"""Regenerate the paper-table golden files by running the AUTHORS' analysis chain.

    python tests/fidelity/regen_paper.py --authors-src DIR

DIR holds copies of the authors' files from UCSC-VLAA/ClinSeekAgent (never committed here),
at their paths in that repository:
  openresearcher_ehr/analysis/reorganize_results.py                              (257bdab)
  openresearcher_ehr/analysis/statistic_significance/compute_ci_from_per_sample_scores.py
                                                                                 (be191c6)
  openresearcher_ehr/analysis/findings_20260501/scripts/build_report.py          (535426d;
      the module head and build_table1 / build_table3 with the helpers they call suffice)
  openresearcher_ehr/helper/evaluate_results.py                                  (96d40fe;
      parse_json_or_python, extract_finish_predictions_with_source and f1_score suffice)
The Python running this needs numpy, scipy and matplotlib (the authors' imports).

What it does, on the tree tests/fidelity/paper_corpus.py assembles (in a temporary directory):
1. reorganize_results.py main() with its paths pointed at the tree and --out-root at
   a temporary hierarchical/ directory;
2. compute_ci_from_per_sample_scores.py build_table1_ci / build_table2_ci / build_table3_ci
   with its paths pointed there, its slug tables naming the corpus' models and its _fmt_pct
   printing every number at full precision (fractions, repr) instead of rounded percent;
   and, by its own compute_ci / compute_ci_diff / hier_rows_under / mm_*_scores /
   _agent_ehr_bedrock_rows, every other cell the warehouse shows by the same rule (each
   node of the hierarchy, the paired delta of each node both modes have, every AgentEHR
   task);
3. build_report.py build_table1 / build_table3 (the table cells, full precision) with its
   paths pointed there and its rosters naming the corpus' models.
It writes tests/fidelity/paper/golden/: hierarchical/ (reorganize_results.py's output
itself), ci_tables.json, ci_cells.json, report_tables.json.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from paper_corpus import CLASSIFY_DIR, GOLDEN, assemble  # noqa: E402

ANALYSIS = Path("openresearcher_ehr") / "analysis"
FILES = {
    "reorganize": ANALYSIS / "reorganize_results.py",
    "ci": ANALYSIS / "statistic_significance" / "compute_ci_from_per_sample_scores.py",
    "report": ANALYSIS / "findings_20260501" / "scripts" / "build_report.py",
    "evaluate": Path("openresearcher_ehr") / "helper" / "evaluate_results.py",
}


def load(path: Path, name: str, replace: dict[str, str] | None = None) -> types.ModuleType:
    """Import a file as a module; `replace` rewrites module-level path constants (regex ->
    text) before it runs, for files that create directories at import."""
    source = path.read_text(encoding="utf-8")
    for pattern, text in (replace or {}).items():
        source, count = re.subn(pattern, lambda _m, t=text: t, source, count=1, flags=re.M)
        if count != 1:
            raise SystemExit(f"{path}: no line matches {pattern}")
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    exec(compile(source, str(path), "exec"), module.__dict__)  # noqa: S102 - authors' code
    return module


def run_reorganize(src: Path, tree: Path, hier: Path) -> None:
    module = load(src / FILES["reorganize"], "authors_reorganize")
    module.RESULTS_ROOT = tree
    module.EHR_ONESHOT = tree / "ehr_bench/oneshot/full1800"
    module.EHR_AGENTIC = tree / "ehr_bench/agentic/full1800"
    module.MM_ONESHOT_SCORED = tree / "mm_bench/oneshot/scored"
    module.MM_AGENTIC_SCORED = tree / "mm_bench/agentic/scored"
    module.MM_CLASSIFY_DIR = tree / CLASSIFY_DIR
    argv = sys.argv
    sys.argv = ["reorganize_results.py", "--out-root", str(hier)]
    try:
        module.main()
    finally:
        sys.argv = argv


def full_precision(d: dict[str, float]) -> tuple[str, ...]:
    """_fmt_pct's tuple with every number as repr() of the fraction (not rounded percent)."""
    if d["N"] == 0:
        return ("", "", "", "", "0", "")
    return (repr(d["mean"]), repr(d["ci95_radius"]), repr(d["ci95_lower"]),
            repr(d["ci95_upper"]), str(d["N"]), "")


def models_in(hier: Path, bench: str) -> list[str]:
    return sorted({p.name for p in hier.glob(f"*/{bench}/*") if p.is_dir()})


def run_ci(src: Path, tree: Path, hier: Path, out: Path) -> tuple[dict, dict]:
    sys.path.insert(0, str(src / "openresearcher_ehr"))
    module = load(src / FILES["ci"], "authors_ci")
    module.HIER = hier
    module.AGENT_EHR_BEDROCK = tree / "agent_ehr_bench/agentic/subset600"
    module.AGENT_EHR_EXTERNAL = out / "no_external"
    module.OUT_DIR = out
    module.TABLE1_SLUGS = {m: m for m in models_in(hier, "ehr_bench")}
    module.TABLE2_SLUGS = {m: m for m in models_in(hier, "mm_bench")}
    agent = sorted(p.name for p in module.AGENT_EHR_BEDROCK.iterdir())
    module.TABLE3_SOURCES = {m: ("bedrock", m) for m in agent}
    module._fmt_pct = full_precision
    tables = {}
    for name, build in (("table1", module.build_table1_ci), ("table2", module.build_table2_ci),
                        ("table3", module.build_table3_ci)):
        with build().open(newline="") as fh:
            tables[name] = list(csv.DictReader(fh))

    cells: list[dict[str, Any]] = []
    samples: dict[tuple, dict[str, float]] = {}
    for node in sorted(hier.glob("*/*/*/L1.*/**/")):
        rel = node.relative_to(hier).parts
        paradigm, bench, model, layers = rel[0], rel[1], rel[2], rel[3:]
        if not layers or not layers[-1].startswith(("L2.", "L3.", "L4.")):
            continue
        level = {"L2": "group", "L3": "semantic", "L4": "task"}[layers[-1][:2]]
        name = layers[-1][3:]
        scores = module.hier_rows_under(node)
        samples[(paradigm, bench, model, level, name)] = scores
        cells.append({"mode": paradigm, "benchmark": bench, "model": model, "level": level,
                      "name": name, **module.compute_ci(scores.values())})
    for bench, overall in (("ehr_bench", module.ehr_text_scores),
                           ("mm_bench", module.mm_overall_scores)):
        for model in models_in(hier, bench):
            for paradigm in ("agentic", "oneshot"):
                if (hier / paradigm / bench / model).is_dir():
                    scores = overall(model, paradigm)
                    samples[(paradigm, bench, model, "overall", "overall")] = scores
                    cells.append({"mode": paradigm, "benchmark": bench, "model": model,
                                  "level": "overall", "name": "overall",
                                  **module.compute_ci(scores.values())})
    for model in agent:
        for task, scores in sorted(module._agent_ehr_bedrock_rows(model).items()):
            cells.append({"mode": "agentic", "benchmark": "agent_ehr_bench", "model": model,
                          "level": "task", "name": task, **module.compute_ci(scores)})
    deltas = []
    for (paradigm, bench, model, level, name), ag in sorted(samples.items()):
        os_ = samples.get(("oneshot", bench, model, level, name))
        if paradigm != "agentic" or os_ is None:
            continue
        common = sorted(set(ag) & set(os_))  # as build_table1_ci pairs them
        deltas.append({"benchmark": bench, "model": model, "level": level, "name": name,
                       **module.compute_ci_diff([ag[q] for q in common],
                                                [os_[q] for q in common])})
    return tables, {"cells": cells, "deltas": deltas}


def run_report(src: Path, tree: Path, hier: Path, out: Path) -> dict[str, Any]:
    module = load(src / FILES["report"], "authors_build_report", {
        r"^ROOT = Path\(.*\)$": f"ROOT = Path({str(tree)!r})",
        r"^HIER = ROOT / \"hierarchical\"$": f"HIER = Path({str(hier)!r})",
        r"^OUT = Path\(.*\)$": f"OUT = Path({str(out / 'report')!r})",
    })
    module.EHR_MODELS = [(m, m) for m in models_in(hier, "ehr_bench")]
    module.MM_MODELS = [(m, m) for m in models_in(hier, "mm_bench")]
    _, table1 = module.build_table1()
    _, table3 = module.build_table3()
    return {"table1": table1, "table3_mm": table3}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--authors-src", required=True, type=Path,
                        help="directory holding the authors' files at their repository paths")
    args = parser.parse_args()
    for path in FILES.values():
        if not (args.authors_src / path).is_file():
            raise SystemExit(f"{args.authors_src / path} not found")
    with tempfile.TemporaryDirectory() as tmp:
        tree, hier, out = Path(tmp) / "tree", Path(tmp) / "hierarchical", Path(tmp) / "out"
        out.mkdir()
        assemble(tree)
        run_reorganize(args.authors_src, tree, hier)
        tables, cells = run_ci(args.authors_src, tree, hier, out)
        report = run_report(args.authors_src, tree, hier, out)
        if GOLDEN.exists():
            shutil.rmtree(GOLDEN)
        GOLDEN.mkdir(parents=True)
        shutil.copytree(hier, GOLDEN / "hierarchical")
        for name, payload in (("ci_tables.json", tables), ("ci_cells.json", cells),
                              ("report_tables.json", report)):
            (GOLDEN / name).write_text(json.dumps(payload, indent=1, default=str) + "\n")
    print(f"wrote {GOLDEN}")


if __name__ == "__main__":
    main()
