"""The tree: which runs exist, where their files go, and what each file holds.

One function per family of run directory; each writes through `writer` so the truth file
knows every line. Damage (--damage) is planted by `emit` at fixed positions of fixed files
(DAMAGE below), chosen so that a lossy damage never hides a result the score files count."""

from __future__ import annotations

import json
import random
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from etl.synth import helper_outputs, spec
from etl.synth.content import (
    Filler,
    Images,
    Question,
    Timelines,
    mm_questions,
    stream,
    text_questions,
)
from etl.synth.plan import Sizes, plan_run
from etl.synth.records import Plan, RecordMaker
from etl.synth.runlog import RunLog
from etl.synth.scoring import (
    mm_rescore,
    mm_scored_rows,
    mm_summary,
    summary_markdown,
    task_vocabularies,
    text_scores,
    text_scores_legacy,
    text_summary_table,
)
from etl.synth.writer import Dir, JsonlFile, Ledger, dumps_ascii, dumps_utf8

RAW = f"_multi_eval_raw/full5_{spec.STAMP}"
# where the authors' machine had things (paths inside manifest.json, cmd.txt, run.log)
HOST_REPO = "/fsx-shared/juncheng/ClinSeekAgent"
HOST_PYBIN = "/fsx-shared/juncheng/OpenResearcher/.venv/bin/python"
HOST_RAW_ROOT = f"{HOST_REPO}/openresearcher_ehr/results/multi_eval/full5_{spec.STAMP}"
HOST_MM_DATA = ("/fsx-shared/juncheng/EHR/data/EHR_multimodal_bench_tests/"
                "combined_test_set_nonempty.jsonl")
# run_multi_model_eval.py defaults that end up in every shard's command line
DRIVER_BENCH_ROOT = (
    "/fsx-shared/juncheng/EHR/data/EHR_multimodal_bench/extracted/EHRXQAAgentBench_v3:"
    "/fsx-shared/juncheng/EHR/data/EHR_multimodal_bench/extracted/MedModAgentBench_v3")
DRIVER_EHR_EHRXQA = "http://127.0.0.1:5103/mcp"
DRIVER_EHR_MEDMOD = "http://127.0.0.1:5104/mcp"
DRIVER_IMAGE_MCP = "http://127.0.0.1:5203/mcp"
DRIVER_CONCURRENCY = 6
DRIVER_MAX_PARALLEL_SHARDS = 6
EXTERNAL_SUBDIR = "agentehr_eval/subset600"

# logical path -> damage to plant there ("kind@index", index "end" = after the last record)
DAMAGE: dict[str, tuple[str, ...]] = {
    "ehr_bench/agentic/full1800/kimi_k2_5/results.jsonl":
        ("two_objects@3", "garbage@5", "truncated@end"),
    "ehr_bench/oneshot/full1800/glm_4_7/results.jsonl":
        ("nan:hadm_id@2", "invalid_utf8@4", "array@6"),
    "agent_ehr_bench/agentic/subset600/gpt_oss_120b/results.jsonl":
        ("inf:hadm_id@1", "no_qid@3", "garbage@7", "array@9"),
    "mm_bench/agentic/full2703/kimi_k2_5/merged_unique.jsonl":
        ("two_objects@2", "no_qid@4", "truncated@end"),
    "mm_bench/oneshot/full2703/claude_sonnet_4_6/results.jsonl":
        ("blank@3", "invalid_utf8@5", "blank@end"),
    "mm_bench/agentic/scored/claude_opus_4_6/rescored.jsonl": ("nan:mapping_similarity@1",),
}
CRLF_FILES = {"ehr_bench/agentic/smoke20/claude_opus_4_6/results.jsonl"}
BOM_FILES = {"ehr_bench/oneshot/smoke20/kimi_k2_5/results.jsonl"}
GARBAGE = (b"Traceback (most recent call last):  File \"run_text.py\", line 812, in <module>",
           b"<<<<<<< HEAD", b"\x00\x00\x00\x00 partial write")


@dataclass
class Ctx:
    seed: int
    scale: spec.Scale
    damage: bool
    maker: RecordMaker
    sizes: Sizes
    ledger: Ledger
    progress: Callable[[str], None]
    ehr_qs: list[Question] = field(default_factory=list)
    agent_qs: list[Question] = field(default_factory=list)
    mm_qs: list[Question] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=list)
    archives: list[dict[str, Any]] = field(default_factory=list)
    questions: dict[str, Question] = field(default_factory=dict)
    # per run_id: what its metadata files state (run_logs, regions, backend ids)
    meta: dict[str, dict[str, Any]] = field(default_factory=dict)
    raw_runs: list[dict[str, Any]] = field(default_factory=list)

    def note_meta(self, run_id: str, region: str | None, model_id: str | None,
                  log: dict[str, Any] | None = None) -> None:
        m = self.meta.setdefault(run_id, {"run_logs": [], "regions": set(), "ids": set()})
        if region:
            m["regions"].add(region)
        if model_id:
            m["ids"].add(model_id)
        if log is not None:
            m["run_logs"].append(log)

    def rng(self, *key: object) -> random.Random:
        return stream(self.seed, *key)

    def add_run(self, run_id: str, benchmark: str | None, mode: str | None,
                split: str | None, model: str | None, expected: int,
                archive_name: str | None = None) -> None:
        m = self.meta.get(run_id, {"run_logs": [], "regions": set(), "ids": set()})
        self.runs.append({"run_id": run_id, "benchmark": benchmark, "mode": mode,
                          "split": split, "model": model,
                          "model_dir": run_id.rsplit("/", 1)[-1],
                          "is_archived": archive_name is not None,
                          "archive_name": archive_name, "expected_questions": expected,
                          # what run.log / status / manifest / region_map / cmd.txt state
                          "run_logs": sorted(m["run_logs"], key=lambda x: x["path"]),
                          "meta_regions": sorted(m["regions"]),
                          "meta_backend_model_ids": sorted(m["ids"])})
        self.progress(run_id)


def emit(ctx: Ctx, f: JsonlFile, recs: Sequence[dict[str, Any]],
         raws: Sequence[bytes | None] | None = None) -> None:
    """Write records to f, planting the damage DAMAGE lists for f (with --damage)."""
    plan: dict[str, list[str]] = {}
    if ctx.damage:
        for item in DAMAGE.get(f.path, ()):
            kind, at = item.split("@")
            plan.setdefault(at, []).append(kind)
    recs = list(recs)
    raws = list(raws) if raws is not None else [None] * len(recs)
    tail = plan.get("end", [])
    last = recs.pop() if "truncated" in tail and recs else None
    i = 0
    while i < len(recs):
        kinds = plan.get(str(i), [])
        rec = recs[i]
        if "two_objects" in kinds and i + 1 < len(recs):
            f.two_objects(rec, recs[i + 1])
            i += 2
            continue
        for k in kinds:
            if k == "garbage":
                f.garbage(GARBAGE[i % len(GARBAGE)])
            elif k == "no_qid":
                f.without_qid(rec)
            elif k == "blank":
                f.blank()
        if any(k.startswith(("nan:", "inf:")) for k in kinds):
            k = next(k for k in kinds if k.startswith(("nan:", "inf:")))
            f.with_nan(rec, k[4:], b"NaN" if k.startswith("nan") else b"Infinity")
        elif "invalid_utf8" in kinds:
            f.invalid_utf8(rec)
        elif "array" in kinds:
            f.json_array(rec)
        else:
            f.record(rec, raws[i])
        i += 1
    if "blank" in tail:
        f.blank()
    if last is not None:
        f.truncated(last)
    f.close()


def jsonl(ctx: Ctx, d: Dir, name: str, kind: str, run_id: str | None,
          ascii_: bool = False) -> JsonlFile:
    path = d.path_of(name)
    return JsonlFile(d, name, kind, run_id, dumps_ascii if ascii_ else dumps_utf8,
                     crlf=ctx.damage and path in CRLF_FILES, bom=ctx.damage and path in BOM_FILES)


def write_run_log(ctx: Ctx, d: Dir, run_id: str, log: RunLog, rows: Sequence[dict[str, Any]],
                  order: dict[str, int], name: str = "run.log") -> None:
    """run.log of the process that wrote rows (in file order); the truth keeps its counts."""
    for rec in rows:
        log.record(rec, order.get(str(rec.get("qid")), 1))
    text = log.text()
    path = d.write_text(name, text, "run_log", run_id)
    ctx.note_meta(run_id, log.region, log.model_id, log.truth(path, text))


def aux_files(ctx: Ctx, d: Dir, run_id: str, model: str, script: str,
              rows: Sequence[dict[str, Any]], qids: Sequence[str], mcp: bool,
              multimodal: bool = False) -> None:
    """run.log, cmd.txt, pid.txt (and MCP server logs) of a single-process agentic run,
    started by hand: `python clinseekagent/<script> ... > run.log 2>&1`."""
    model_id = spec.BACKEND_IDS.get(model, model)
    region = spec.REGIONS[0]  # DEFAULT_BEDROCK_REGION of run_text.py
    order = {q: i + 1 for i, q in enumerate(dict.fromkeys(qids))}
    rpq = max((int(r.get("runs_per_question") or 1) for r in rows), default=1)
    data = ("data/ClinSeek-Bench/inputs/mm_bench.jsonl" if multimodal else
            f"data/ClinSeek-Bench/inputs/{run_id.split('/', 1)[0]}.json")
    out_dir = f"{HOST_REPO}/results/{d.logical}"
    log = RunLog("mm" if multimodal else "text", model_id, region, data_path=data,
                 output_dir=out_dir, n_queries=len(order), runs_per_question=rpq,
                 rng=ctx.rng("runlog", run_id))
    write_run_log(ctx, d, run_id, log, rows, order)
    argv = ["python", f"clinseekagent/{script}", "--backend", "bedrock", "--bedrock_model_id",
            model_id, "--bedrock_region", region, "--enable_ehr", "--data_path", data,
            "--output_dir", out_dir, "--runs_per_question", str(rpq)]
    d.write_text("cmd.txt", shlex.join(argv) + "\n", "cmd", run_id)
    ctx.note_meta(run_id, region, model_id)
    d.write_text("pid.txt", f"{4000 + len(order)}\n", "pid", run_id)
    if mcp:
        d.write_text("mcp_ehr.log", "INFO mcp server listening on :8765\nINFO session closed\n",
                     "mcp_log", run_id)


# ---- plans ------------------------------------------------------------------------
def text_plans(ctx: Ctx, key: str, qs: Sequence[Question], model: str, mode: str,
               runs_per_question: int = 1, zero: Sequence[str] | None = None
               ) -> list[tuple[Question, int, Plan]]:
    mean = ctx.sizes.agentic if mode == "agentic" else ctx.sizes.oneshot
    rng = ctx.rng("payload", key)
    style = ("anthropic" if model in spec.ANTHROPIC else "dict" if model == "kimi_k2_5"
             else "list")
    return plan_run(ctx.seed, key, qs, lambda q: spec.text_quality(model, mode, q.group), mode,
                    lambda: ctx.sizes.draw(rng, mean), runs_per_question, zero, style,
                    shapes=True)


def mm_plans(ctx: Ctx, key: str, qs: Sequence[Question], model: str, mode: str
             ) -> list[tuple[Question, int, Plan]]:
    mean = ctx.sizes.mm_agentic if mode == "agentic" else ctx.sizes.mm_oneshot
    rng = ctx.rng("payload", key)
    style = "anthropic" if model in spec.ANTHROPIC else "list"
    return plan_run(ctx.seed, key, qs, lambda q: spec.mm_quality(model, mode, q.group), mode,
                    lambda: ctx.sizes.draw(rng, mean), 1, None, style)


def note_shapes(ctx: Ctx, run_id: str, plans: list[tuple[Question, int, Plan]]) -> None:
    """The truth lists every planted writer habit (Plan.shape) by result."""
    for q, run_index, plan in plans:
        if plan.shape is not None:
            ctx.ledger.shapes.append({"run_id": run_id, "qid": q.qid, "run_index": run_index,
                                      "shape": plan.shape})


def agentic_records(ctx: Ctx, key: str, model: str, plans: list[tuple[Question, int, Plan]],
                    runs_per_question: int = 1, *, old_style: bool = False,
                    multimodal: bool = False) -> list[dict[str, Any]]:
    rng = ctx.rng("records", key)
    index = {qid: i + 1 for i, qid in enumerate(dict.fromkeys(q.qid for q, _, _ in plans))}
    with_names = old_style or model in ("glm_4_7", "minimax_m2_5")
    return [ctx.maker.agentic(q, model, p, rng, run_index=ri,
                              runs_per_question=runs_per_question, q_index=index[q.qid],
                              old_style=old_style, with_names=with_names,
                              multimodal=multimodal) for q, ri, p in plans]


def completion_order(ctx: Ctx, key: str, recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows are written in completion order, not input order."""
    out = list(recs)
    ctx.rng("order", key).shuffle(out)
    return out


def resumed(ctx: Ctx, key: str, recs: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """A resumed writer: n rows first written as failed attempts, the final row appended
    later (same qid and run_index twice in one file; the later line wins)."""
    rng = ctx.rng("resume", key)
    out = list(recs)
    for rec in rng.sample(recs, min(n, len(recs) // 3)):
        early = {k: v for k, v in rec.items() if k != "error"}
        early.update(messages=[], completed=False, status="error", stop_reason="exception",
                     error="ReadTimeoutError: Read timed out. (read timeout=120)")
        out.insert(rng.randrange(max(1, out.index(rec) + 1)), early)
        out.remove(rec)
        out.append(rec)
    return out


# ---- ehr_bench / agent_ehr_bench -------------------------------------------------------
def smoke(qs: list[Question], n: int) -> list[Question]:
    step = max(1, len(qs) // n)
    return qs[::step][:n]


def text_agentic_run(ctx: Ctx, d: Dir, run_id: str, bench: str, split: str, model: str,
                     qs: list[Question], *, runs_per_question: int = 1,
                     old_style: bool = False, resume: int = 0, scores: bool = False,
                     aux: bool = False, archive: str | None = None,
                     plan_key: str | None = None) -> list[dict[str, Any]]:
    key = plan_key or run_id
    plans = text_plans(ctx, key, qs, model, "agentic", runs_per_question)
    note_shapes(ctx, run_id, plans)
    recs = agentic_records(ctx, run_id, model, plans, runs_per_question, old_style=old_style)
    final = list(recs)
    rows = completion_order(ctx, run_id, recs)
    if resume:
        rows = resumed(ctx, run_id, rows, resume)
    emit(ctx, jsonl(ctx, d, "results.jsonl", "results_top", run_id), rows)
    if ctx.maker.trajectory_shape.copies and archive is None:
        more_copies(ctx, d, run_id, final, shards=True)
    if run_id == HELPER_OUTPUTS_RUN:
        helper_files(ctx, d, run_id, rows)
    if aux:
        aux_files(ctx, d, run_id, model, "run_text.py", rows, [q.qid for q in qs], mcp=True)
    if scores:
        text_score_files(ctx, d, run_id, final, qs)
    ctx.add_run(run_id, bench, "agentic", split, model,
                expected_count(ctx, bench, split), archive)
    return final


# Of a region shard of a run with more copies (more_copies), the share of its rows another
# shard's worker stole.
STOLEN_SHARE = 0.2


def more_copies(ctx: Ctx, d: Dir, run_id: str, final: list[dict[str, Any]],
                shards: bool) -> None:
    """The copies a sharded, work-stealing writer leaves beside a run's results.jsonl (the
    many-copies shape): merged_unique.jsonl (every result, in another completion order),
    region shards `<region>/results.jsonl` (round-robin; with shards False the run already
    has them), and the first shard's stolen tail twice, as results_steal_01.jsonl and
    steal_01/results.jsonl, as run_multi_model_eval.py's try_steal_work leaves it."""
    merged = completion_order(ctx, f"{run_id}/merged", final)
    emit(ctx, jsonl(ctx, d, "merged_unique.jsonl", "results_merged", run_id), merged)
    regions = spec.REGIONS[:2]
    for ri, region in enumerate(regions):
        mine = [r for n, r in enumerate(final) if n % len(regions) == ri]
        n_steal = int(len(mine) * STOLEN_SHARE) if ri == 0 else 0
        stolen = mine[len(mine) - n_steal:]
        rd = d.sub(region)
        if shards:
            own = completion_order(ctx, f"{run_id}/{region}", mine[:len(mine) - n_steal])
            emit(ctx, jsonl(ctx, rd, "results.jsonl", "results_shard", run_id), own)
        if stolen:
            emit(ctx, jsonl(ctx, rd, "results_steal_01.jsonl", "results_steal", run_id), stolen)
            emit(ctx, jsonl(ctx, rd.sub("steal_01"), "results.jsonl", "results_steal_copy",
                            run_id), stolen)


# The run whose directory also holds what the authors' helper scripts write beside a
# results.jsonl (etl/synth/helper_outputs.py), one number of each summary planted off.
HELPER_OUTPUTS_RUN = "agent_ehr_bench/agentic/subset600/claude_opus_4_6"


def helper_files(ctx: Ctx, d: Dir, run_id: str, rows: list[dict[str, Any]]) -> None:
    """score_diagnoses_ccs_results.py (scores.json, task_scores.jsonl),
    analyze_tool_call_averages.py (tool.json, success-only), repair_diagnoses_ccs_results.py
    (results.repaired.jsonl + its summary), over the lines as written."""
    scores = helper_outputs.ccs_scores(rows)
    plant(ctx, d.path_of("scores.json"), scores, ("score", "avg", "recall"))
    d.write_json("scores.json", scores, "scores_json", run_id)
    details = helper_outputs.ccs_task_scores(rows)
    d.write_bytes("task_scores.jsonl", b"".join(dumps_utf8(r) + b"\n" for r in details),
                  "ccs_task_scores", run_id, len(details))
    tools = helper_outputs.tool_json(rows)
    plant(ctx, d.path_of("tool.json"), tools, ("summary", "total_tool_calls"))
    d.write_json("tool.json", tools, "tool_json", run_id)
    fixed, summary = helper_outputs.repaired(rows)
    d.write_bytes("results.repaired.jsonl", b"".join(dumps_utf8(r) + b"\n" for r in fixed),
                  "repaired_results", run_id, len(fixed))
    d.write_json("results.repaired.summary.json", summary, "repair_summary", run_id)


def qa_raw_run(ctx: Ctx, root: Dir) -> None:
    """Raw rows of eval_ehrbench_qa.py (an external one-shot model): gold in ground_truth,
    no label, no status; every 12th row failed; one row without any gold."""
    model = "medgemma_27b_it"
    run_id = f"ehr_bench/oneshot/full1800/{model}"
    rng = ctx.rng("qa", run_id)
    rows = []
    for n, q in enumerate(ctx.ehr_qs):
        error = "APIConnectionError: Connection error." if n % 12 == 5 else None
        answer = [] if error else (list(q.gold) if rng.random() < 0.45 else q.wrong[:1])
        rows.append(helper_outputs.qa_row(q.qid, q.task, q.group, None if n == 7 else q.label,
                                          answer, str(q.inputs.get("question", "")), error, n))
    emit(ctx, jsonl(ctx, root.sub(run_id), "results.jsonl", "results_top", run_id), rows)
    ctx.add_run(run_id, "ehr_bench", "oneshot", "full1800", model, len(ctx.ehr_qs))


def mm_scored_only_run(ctx: Ctx, root: Dir) -> None:
    """A scored-only one-shot run (analysis/ingest_external_results.py): scored.jsonl and
    summary.json in mm_bench/oneshot/scored/<model>, no results anywhere in the tree."""
    model = "glm_4_7"
    run_id = f"mm_bench/oneshot/scored/{model}"
    plans = mm_plans(ctx, run_id, ctx.mm_qs, model, "oneshot")
    rng = ctx.rng("records", run_id)
    final = [ctx.maker.oneshot(q, model, p, rng, region=spec.REGIONS[0], run_index=r)
             for q, r, p in plans]
    mm_score_dir(ctx, root.sub(run_id), run_id, final, False, True, "GLM-4.7 one-shot", None)
    ctx.add_run(run_id, "mm_bench", "oneshot", "full2703", model, len(ctx.mm_qs))


def mm_classifier_file(ctx: Ctx, root: Dir) -> None:
    """The multimodal task classifier's output the paper's tables are cut by."""
    d = root.sub(CLASSIFIER_DIR)
    rows = [helper_outputs.classification_row(q.qid, q.task, n)
            for n, q in enumerate(ctx.mm_qs)]
    d.write_bytes(f"classification_{spec.STAMP}.jsonl",
                  b"".join(dumps_utf8(r) + b"\n" for r in rows), "mm_classification", None,
                  len(rows))


# reorganize_results.py reads it from analysis/mm_bench_classify/ of the repository; in a
# tree, any directory of that name holds it
CLASSIFIER_DIR = "analysis/mm_bench_classify"


# Which shape of text-scorer output each scored text run gets (the rest: scores.json from
# --output plus per_question.jsonl from --output-dir into the same directory).
SCORE_SHAPES = {"ehr_bench/agentic/full1800/claude_sonnet_4_6": "output_dir",
                "ehr_bench/oneshot/full1800/claude_opus_4_6": "flat"}


def text_score_files(ctx: Ctx, d: Dir, run_id: str, final: list[dict[str, Any]],
                     qs: list[Question]) -> None:
    """score_text.py over the run's benchmark questions (qs), in one of three shapes:
    output_dir (summary.json + per_question.jsonl + summary.txt), output (scores.json, here
    with per_question.jsonl beside it) or flat (the legacy evaluate_results.py scores.json
    {task: {...}}, its own gold rule, no per_question.jsonl)."""
    shape = SCORE_SHAPES.get(run_id, "output")
    if shape == "flat":
        flat = text_scores_legacy(final, qs)
        d.write_json("scores.json", flat, "scores_json", run_id)
        ctx.ledger.score_shapes.append({"path": d.path_of("scores.json"), "shape": "flat",
                                        "writer_rule": "evaluate_results_legacy"})
        return
    scores, per_question = text_scores(final, qs)
    if run_id == "ehr_bench/agentic/full1800/claude_opus_4_6":
        plant(ctx, d.path_of("scores.json"), scores, ("per_task_type", "decision_making", "f1"))
    name = "summary.json" if shape == "output_dir" else "scores.json"
    d.write_json(name, scores, "summary" if shape == "output_dir" else "scores_json", run_id)
    ctx.ledger.score_shapes.append({"path": d.path_of(name), "shape": shape,
                                    "writer_rule": "score_text_current"})
    if shape == "output_dir":
        d.write_text("summary.txt", text_summary_table(scores), "text", run_id)
    f = jsonl(ctx, d, "per_question.jsonl", "per_question", run_id)
    for row in per_question:
        f.record(row)
    f.close()


def plant(ctx: Ctx, path: str, obj: dict[str, Any], keys: tuple[str, ...]) -> None:
    """Change one summary number away from what the rows give; the truth lists it."""
    holder = obj
    for k in keys[:-1]:
        holder = holder[k]
    true = holder[keys[-1]]
    reported = true + 1 if isinstance(true, int) else round(true + 0.0173, 6)
    holder[keys[-1]] = reported
    ctx.ledger.disagreements.append({"path": path, "json_path": "$." + ".".join(keys),
                                     "reported": reported, "true": true})


def expected_count(ctx: Ctx, bench: str | None, split: str | None) -> int:
    if split and split.startswith("smoke"):
        return int("".join(c for c in split if c.isdigit()))
    return {"ehr_bench": len(ctx.ehr_qs), "agent_ehr_bench": len(ctx.agent_qs),
            "mm_bench": len(ctx.mm_qs)}.get(bench or "", 0)


def text_oneshot_run(ctx: Ctx, d: Dir, run_id: str, split: str, model: str,
                     qs: list[Question], *, plan_key: str | None = None,
                     zero: Sequence[str] | None = None, scores: bool = False,
                     archive: str | None = None) -> list[dict[str, Any]]:
    plans = text_plans(ctx, plan_key or run_id, qs, model, "oneshot", 1, zero)
    note_shapes(ctx, run_id, plans)
    regions = (spec.REGIONS[:2] if model in spec.MULTI_REGION_ONESHOT else spec.REGIONS[:1])
    if model == "claude_opus_4_6":  # an EU shard: its records carry eu.anthropic... ids
        regions = (spec.REGIONS[0], spec.REGIONS[2])
    region_map(ctx, d, run_id, model, regions)
    rng = ctx.rng("records", run_id)
    final: list[dict[str, Any]] = []
    top_recs: list[dict[str, Any]] = []
    top_raw: list[bytes | None] = []
    for ri, region in enumerate(regions):
        mine = [(q, r, p) for n, (q, r, p) in enumerate(plans) if n % len(regions) == ri]
        recs = [ctx.maker.oneshot(q, model, p, rng, region=region, run_index=r)
                for q, r, p in mine]
        final += recs
        recs = completion_order(ctx, f"{run_id}/{region}", recs)
        shard = jsonl(ctx, d.sub(region), "results.jsonl", "results_shard", run_id, True)
        for rec in recs:
            shard.record(rec)
            top_recs.append(rec)
            top_raw.append(dumps_ascii(rec))
        shard.close()
    # the runner's merge step: shards concatenated in region order
    emit(ctx, jsonl(ctx, d, "results.jsonl", "results_top", run_id, True), top_recs, top_raw)
    if ctx.maker.trajectory_shape.copies and archive is None:
        more_copies(ctx, d, run_id, final, shards=False)
    if scores:
        text_score_files(ctx, d, run_id, final, qs)
    ctx.add_run(run_id, "ehr_bench", "oneshot", split, model,
                expected_count(ctx, "ehr_bench", split), archive)
    return final


def region_map(ctx: Ctx, d: Dir, run_id: str, model: str, regions: Sequence[str]) -> None:
    """run_text_curated.py: `json.dumps(dict(targets), indent=2)`, {region: model_id}, no
    trailing newline."""
    d.write_text("region_map.json", json.dumps({r: spec.backend_id(model, r) for r in regions},
                                               indent=2), "region_map", run_id)
    for r in regions:
        ctx.note_meta(run_id, r, spec.backend_id(model, r))


# ---- mm_bench ---------------------------------------------------------------------
def mm_score_dir(ctx: Ctx, d: Dir, run_id: str, final: list[dict[str, Any]], vocab: bool,
                 with_rows: bool, title: str, plant_keys: tuple[str, ...] | None,
                 *, scorer_vocab: bool = True) -> None:
    """A scored directory. vocab=False: score_multimodal.py output (scored.jsonl +
    summary.json; scorer_vocab=False is a --no-vocab run). vocab=True: rescore_mm_vocab.py
    run over that scored.jsonl (rescored.jsonl + summary_vocab.json)."""
    rows = mm_scored_rows(final, vocab=scorer_vocab)
    if vocab:
        rows, summary = mm_rescore(rows, task_vocabularies(final))
    else:
        summary = mm_summary(rows, vocab=scorer_vocab)
    name = "summary_vocab" if vocab else "summary"
    if plant_keys:
        plant(ctx, d.path_of(f"{name}.json"), summary, plant_keys)
    d.write_json(f"{name}.json", summary, name, run_id)
    d.write_text(f"{name}.md", summary_markdown(title, summary), "markdown", run_id)
    if with_rows:
        kind = "rescored" if vocab else "scored"
        emit(ctx, jsonl(ctx, d, f"{kind}.jsonl", kind, run_id), rows)
        ctx.ledger.mm_score_sources[run_id] = kind


# The agentic raw-run model whose scored directory has scored.jsonl but no rescored.jsonl.
MM_SCORED_ONLY = "gpt_oss_120b"


def mm_oneshot_run(ctx: Ctx, root: Dir, model: str) -> None:
    run_id = f"mm_bench/oneshot/full2703/{model}"
    d = root.sub(run_id)
    plans = mm_plans(ctx, run_id, ctx.mm_qs, model, "oneshot")
    rng = ctx.rng("records", run_id)
    if model in spec.MM_ONESHOT_SHARDED:
        regions = spec.REGIONS[:2]
        region_map(ctx, d, run_id, model, regions)
    else:
        regions = spec.REGIONS[:1]
    final: list[dict[str, Any]] = []
    top: list[dict[str, Any]] = []
    for ri, region in enumerate(regions):
        recs = [ctx.maker.oneshot(q, model, p, rng, region=region, run_index=r)
                for n, (q, r, p) in enumerate(plans) if n % len(regions) == ri]
        final += recs
        recs = completion_order(ctx, f"{run_id}/{region}", recs)
        top += recs
        if model in spec.MM_ONESHOT_SHARDED:
            shard = jsonl(ctx, d.sub(region), "results.jsonl", "results_shard", run_id, True)
            for rec in recs:
                shard.record(rec)
            shard.close()
    emit(ctx, jsonl(ctx, d, "results.jsonl", "results_top", run_id, True), top)
    ctx.add_run(run_id, "mm_bench", "oneshot", "full2703", model, len(ctx.mm_qs))
    sd = root.sub(f"mm_bench/oneshot/scored/{model}")
    keys = {"claude_sonnet_4_6": ("unified_f1",),
            "claude_opus_4_6": ("per_task_len1", "medmod_decompensation", "correct")}
    mm_score_dir(ctx, sd, run_id, final, False, model != "qwen3_vl_235b",
                 f"{spec.BACKEND_IDS[model]} one-shot", keys.get(model))


def mm_agentic_opus(ctx: Ctx, root: Dir) -> list[dict[str, Any]]:
    model = "claude_opus_4_6"
    run_id = f"mm_bench/agentic/full2703/{model}"
    d = root.sub(run_id)
    plans = mm_plans(ctx, run_id, ctx.mm_qs, model, "agentic")
    final = agentic_records(ctx, run_id, model, plans, multimodal=True)
    rows = resumed(ctx, run_id, completion_order(ctx, run_id, final), 2)
    emit(ctx, jsonl(ctx, d, "results.jsonl", "results_top", run_id), rows)
    aux_files(ctx, d, run_id, model, "run_multimodal.py", rows, [q.qid for q in ctx.mm_qs],
              mcp=True, multimodal=True)
    d.write_text("mcp_image.log", "INFO image tool server ready\n", "mcp_log", run_id)
    ctx.add_run(run_id, "mm_bench", "agentic", "full2703", model, len(ctx.mm_qs))
    mm_score_dir(ctx, root.sub(f"mm_bench/agentic/scored/{model}"), run_id, final, True, True,
                 "Claude Opus 4.6 agentic (vocab)", None)
    return final


def shard_cmd(s: str, region: str, model_id: str) -> list[str]:
    """run_multi_model_eval.py build_cmd() with the driver's defaults (enable_ehr and
    enable_image on, thinking off)."""
    shard_dir = f"{HOST_RAW_ROOT}/{s}/{region}"
    return [HOST_PYBIN, f"{HOST_REPO}/openresearcher_ehr/deploy_agent_mm.py",
            "--data_path", f"{shard_dir}/input.jsonl", "--output_dir", shard_dir,
            "--bedrock_model_id", model_id, "--bedrock_region", region,
            "--bench_root", DRIVER_BENCH_ROOT, "--max_rounds", "200",
            "--max_concurrency", str(DRIVER_CONCURRENCY), "--runs_per_question", "1",
            "--max_tool_result_chars", "100000", "--image_max_edge", "1568", "--verbose",
            "--enable_ehr", "--ehr_mcp_url", DRIVER_EHR_EHRXQA,
            "--ehr_mcp_url_ehrxqa", DRIVER_EHR_EHRXQA, "--ehr_mcp_url_medmod", DRIVER_EHR_MEDMOD,
            "--enable_image", "--image_mcp_url", DRIVER_IMAGE_MCP, "--disable_thinking"]


def raw_aggregate(shards: list[dict[str, Any]]) -> dict[str, Any]:
    """run_multi_model_eval.py aggregate(): per model, shards in region order, primary
    results.jsonl then results_steal_*.jsonl; each qid credited to the first file that has
    it; salvage / name_fix counted in the shard's run.log and run_steal_*.log."""
    by_model: dict[str, list[dict[str, Any]]] = {}
    for sh in shards:
        by_model.setdefault(sh["friendly_name"], []).append(sh)
    per_shard: dict[tuple[str, str], dict[str, Any]] = {}
    for group in by_model.values():
        seen: set[str] = set()
        for sh in sorted(group, key=lambda x: x["region"]):
            cnt: dict[str, int] = {}
            rows = stolen = 0
            for recs, is_steal in ((sh["own"], False), (sh["stolen"], True)):
                for r in recs:
                    qid = r.get("qid")
                    if qid is not None:
                        if qid in seen:
                            continue
                        seen.add(qid)
                    rows += 1
                    stolen += is_steal
                    key = r.get("status") or "unknown"
                    cnt[key] = cnt.get(key, 0) + 1
            per_shard[(sh["model_tag"], sh["region"])] = {
                "rows": rows, "stolen": stolen, "cnt": cnt}
    summary_rows = []
    per_model: dict[str, dict[str, int]] = {}
    totals: dict[str, int] = {}
    for sh in shards:
        agg = per_shard[(sh["model_tag"], sh["region"])]
        row = {"friendly_name": sh["friendly_name"], "model_tag": sh["model_tag"],
               "region": sh["region"], "model_id": sh["model_id"],
               "input_rows": sh["input_rows"], "results_rows": agg["rows"],
               "stolen_unique": agg["stolen"], "success": agg["cnt"].get("success", 0),
               "incomplete": agg["cnt"].get("incomplete", 0),
               "error": agg["cnt"].get("error", 0), "salvage": sh["salvage"],
               "name_fix": sh["name_fix"], "returncode": 0}
        summary_rows.append(row)
        bucket = per_model.setdefault(sh["friendly_name"], {})
        for k in ("input_rows", "results_rows", "success", "incomplete", "error", "salvage",
                  "name_fix", "stolen_unique"):
            bucket[k] = bucket.get(k, 0) + row[k]
            totals[k] = totals.get(k, 0) + row[k]
    return {"generated_at": f"{spec.STAMP[:4]}-04-21T18:02:44.913377+00:00",
            "shards": summary_rows, "per_model": per_model, "totals": totals}


def raw_summary_md(out: dict[str, Any]) -> str:
    """aggregate()'s summary.md companion."""
    md = [f"# Multi-model eval summary \u2014 {out['generated_at']}", "",
          "## Per-shard (unique qids attributed to each shard)", "",
          "| model | region | model_id | in | out | stolen | success | incomplete | error "
          "| salvage | name_fix | rc |",
          "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in sorted(out["shards"], key=lambda x: (x["friendly_name"], x["region"])):
        md.append("| {friendly_name} | {region} | `{model_id}` | {input_rows} | "
                  "{results_rows} | {stolen_unique} | {success} | {incomplete} | "
                  "{error} | {salvage} | {name_fix} | {returncode} |".format(**r))
    md += ["", "## Per-model totals", "",
           "| model | in | out | success | incomplete | error | salvage | name_fix |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, c in out["per_model"].items():
        md.append(f"| {name} | {c['input_rows']} | {c['results_rows']} | {c['success']} | "
                  f"{c['incomplete']} | {c['error']} | {c['salvage']} | {c['name_fix']} |")
    return "\n".join(md) + "\n"


def mm_raw_run(ctx: Ctx, root: Dir) -> None:
    """The five-model work-stealing run of run_multi_model_eval.py and the symlinks that
    expose it. Shards: one per (model, OK region), regions sorted, input rows round-robin."""
    full = root.sub("mm_bench/agentic/full2703")
    raw = full.sub(RAW)
    shards: list[dict[str, Any]] = []
    for model in spec.MM_RAW_MODELS:
        s = spec.slug(model)
        model_id = spec.BACKEND_IDS[model]
        run_id = f"mm_bench/agentic/full2703/{model}"
        full.symlink(model, f"{RAW}/{s}", False)
        d = Dir(raw.phys / s, run_id, ctx.ledger)  # logical path: through the symlink
        d.phys.mkdir()
        plans = mm_plans(ctx, run_id, ctx.mm_qs, model, "agentic")
        assigned = agentic_records(ctx, run_id, model, plans, multimodal=True)
        # Kimi: one shard process stopped before writing its last question (the real run
        # answered 2,695 of 2,703): in its input.jsonl, in no results file
        lost = {str(assigned[-1]["qid"])} if model == "kimi_k2_5" else set()
        final = [r for r in assigned if str(r["qid"]) not in lost]
        regions = sorted(spec.REGIONS if model == "kimi_k2_5" else spec.REGIONS[:2])
        rng = ctx.rng("raw", run_id)
        shard_only: set[str] = set()
        for ri, region in enumerate(regions):
            rd = d.sub(region)
            given = [r for n, r in enumerate(assigned) if n % len(regions) == ri]
            mine = [r for r in given if str(r["qid"]) not in lost]
            inp = jsonl(ctx, rd, "input.jsonl", "input", run_id)
            for rec in given:
                inp.record(ctx.questions[rec["qid"]].inputs)
            inp.close()
            n_steal = max(1, len(mine) // 10) if ri == 0 else 0
            stolen, own = mine[len(mine) - n_steal:], mine[:len(mine) - n_steal]
            own = completion_order(ctx, f"{run_id}/{region}", own)
            if ri == 1:
                own = resumed(ctx, f"{run_id}/{region}", own, 1)
                shard_only.update(r["qid"] for r in rng.sample(mine, 2))
            emit(ctx, jsonl(ctx, rd, "results.jsonl", "results_shard", run_id), own)
            shard_dir = f"{HOST_RAW_ROOT}/{s}/{region}"
            steal_salvage = steal_fix = 0
            if stolen:
                for sub_kind, sub_dir, name in (("results_steal", rd, "results_steal_01.jsonl"),
                                                ("results_steal_copy", rd.sub("steal_01"),
                                                 "results.jsonl")):
                    f = jsonl(ctx, sub_dir, name, sub_kind, run_id)
                    for rec in stolen:
                        f.record(rec)
                    f.close()
                # try_steal_work: the tail it took (input_steal_NN.jsonl) and the helper
                # process's log (run_steal_NN.log), next to the helper's own files
                inp = jsonl(ctx, rd, "input_steal_01.jsonl", "input", run_id)
                for rec in stolen:
                    inp.record(ctx.questions[rec["qid"]].inputs)
                inp.close()
                steal_log = RunLog(
                    "mm", model_id, region, data_path=f"{shard_dir}/input_steal_01.jsonl",
                    output_dir=f"{shard_dir}/steal_01", n_queries=len(stolen),
                    runs_per_question=1, rng=ctx.rng("runlog", run_id, region, "steal_01"),
                    thinking="False", concurrency=DRIVER_CONCURRENCY,
                    fix_image_names=model == "kimi_k2_5")
                write_run_log(ctx, rd, run_id, steal_log, stolen,
                              {str(r["qid"]): i + 1 for i, r in enumerate(stolen)},
                              "run_steal_01.log")
                steal_salvage = steal_log.counts["n_synthetic_finish"]
                steal_fix = steal_log.counts["n_tool_name_fixes"]
            # what run_shard() leaves next to the shard's results
            log = RunLog("mm", model_id, region, data_path=f"{shard_dir}/input.jsonl",
                         output_dir=shard_dir, n_queries=len(given), runs_per_question=1,
                         rng=ctx.rng("runlog", run_id, region), thinking="False",
                         concurrency=DRIVER_CONCURRENCY,
                         mm_header=[f"EHR tools enabled (default): {DRIVER_EHR_EHRXQA}",
                                    f"EHR tools enabled (ehrxqa): {DRIVER_EHR_EHRXQA}",
                                    f"EHR tools enabled (medmod): {DRIVER_EHR_MEDMOD}",
                                    f"Image tools enabled: {DRIVER_IMAGE_MCP}",
                                    f"Benchmark roots: {DRIVER_BENCH_ROOT.split(':')}"],
                         fix_image_names=model == "kimi_k2_5")
            write_run_log(ctx, rd, run_id, log,
                          own, {str(r["qid"]): i + 1 for i, r in enumerate(given)})
            rd.write_text("cmd.txt", shlex.join(shard_cmd(s, region, model_id)) + "\n", "cmd",
                          run_id)
            pid = 210000 + 1000 * spec.MM_RAW_MODELS.index(model) + 17 * ri
            rd.write_text("pid.txt", f"{pid}\n", "pid", run_id)
            with open(rd.phys / "results.jsonl", "rb") as fh:  # _count_lines(): non-blank
                results_rows = sum(1 for line in fh if line.strip())
            rd.write_bytes("status.json", json.dumps({
                "friendly_name": spec.DISPLAY[model], "model_tag": s, "region": region,
                "model_id": model_id, "input_rows": len(given), "pid": pid, "returncode": 0,
                "results_rows": results_rows}, indent=2).encode(), "status", run_id)
            ctx.note_meta(run_id, region, model_id)
            shards.append({"friendly_name": spec.DISPLAY[model], "model_tag": s,
                           "region": region, "model_id": model_id, "input_rows": len(given),
                           "own": own, "stolen": stolen,
                           # aggregate() adds run_steal_*.log to run.log
                           "salvage": log.counts["n_synthetic_finish"] + steal_salvage,
                           "name_fix": log.counts["n_tool_name_fixes"] + steal_fix})
        merged = [r for r in completion_order(ctx, f"{run_id}/merged", final)
                  if r["qid"] not in shard_only]
        emit(ctx, jsonl(ctx, d, "merged_unique.jsonl", "results_merged", run_id), merged)
        ctx.add_run(run_id, "mm_bench", "agentic", "full2703", model, len(ctx.mm_qs))
        ctx.runs[-1]["assigned_never_answered"] = sorted(lost)
        sd = raw.sub(f"scored_vocab/{s}")
        sd = Dir(sd.phys, f"mm_bench/agentic/scored/{model}", ctx.ledger)
        root.sub("mm_bench/agentic/scored").symlink(
            model, f"../full2703/{RAW}/scored_vocab/{s}", False)
        keys = ("per_task_unified", "medmod_phenotyping", "f1") if model == "kimi_k2_5" else None
        if model == MM_SCORED_ONLY:
            # score_multimodal.py --no-vocab output only (scored.jsonl + summary.json): the
            # vocabulary rescoring was never run for this model
            mm_score_dir(ctx, sd, run_id, final, False, True, f"{s} agentic", None,
                         scorer_vocab=False)
        else:
            mm_score_dir(ctx, sd, run_id, final, True, True, f"{s} agentic (vocab)", keys)
    manifest = {
        "generated_at": f"{spec.STAMP[:4]}-04-21T09:15:17.538204+00:00", "mode": "full",
        "data": HOST_MM_DATA, "output_root": HOST_RAW_ROOT,
        "models": [spec.DISPLAY[m] for m in spec.MM_RAW_MODELS],
        "per_shard_concurrency": DRIVER_CONCURRENCY,
        "max_parallel_shards": DRIVER_MAX_PARALLEL_SHARDS,
        "shards": [{"friendly_name": sh["friendly_name"], "model_tag": sh["model_tag"],
                    "region": sh["region"], "model_id": sh["model_id"],
                    "input_path": f"{HOST_RAW_ROOT}/{sh['model_tag']}/{sh['region']}/input.jsonl",
                    "shard_dir": f"{HOST_RAW_ROOT}/{sh['model_tag']}/{sh['region']}",
                    "rows": sh["input_rows"]} for sh in shards]}
    path = raw.write_bytes("manifest.json", json.dumps(manifest, indent=2).encode(), "manifest",
                           None)
    out = raw_aggregate(shards)
    summary_path = raw.write_bytes("summary.json", json.dumps(out, indent=2).encode(),
                                   "multi_summary", None)
    raw.write_text("summary.md", raw_summary_md(out), "markdown", None)
    ctx.raw_runs.append({"path": raw.logical, "manifest_path": path,
                         "summary_path": summary_path, "manifest": manifest})


# ---- archives ---------------------------------------------------------------------
def archives(ctx: Ctx, root: Dir, current: dict[str, list[dict[str, Any]]]) -> None:
    arc = root.sub("_archive")

    def note(name: str, bench: str | None, mode: str | None, model: str | None,
             split: str | None, reason: str | None, relation: str,
             superseded_by: str | None) -> None:
        ctx.archives.append({"run_id": f"_archive/{name}", "archive_name": name,
                             "benchmark": bench, "mode": mode, "model": model, "split": split,
                             "reason": reason, "relation": relation,
                             "superseded_by": superseded_by})

    opus = "claude_opus_4_6"
    name = "ehr_bench_opus46_1800_pre_ssl_retry"
    part = ctx.ehr_qs[: max(4, len(ctx.ehr_qs) * 3 // 5)]
    text_agentic_run(ctx, arc.sub(name), f"_archive/{name}", "ehr_bench", "full1800", opus, part,
                     archive=name, aux=False, plan_key=f"{name}/attempt")
    note(name, "ehr_bench", "agentic", opus, "full1800", "pre_ssl_retry", "superseded",
         f"ehr_bench/agentic/full1800/{opus}")

    gpt = "gpt_oss_120b"
    name = f"ehr_bench_smoke20_salvage_patched_{gpt}"
    text_agentic_run(ctx, arc.sub(name), f"_archive/{name}", "ehr_bench", "smoke20", gpt,
                     smoke(ctx.ehr_qs, 20), archive=name,
                     plan_key=f"ehr_bench/agentic/smoke20/{gpt}")
    note(name, "ehr_bench", "agentic", gpt, "smoke20", "salvage_patched", "duplicate",
         f"ehr_bench/agentic/smoke20/{gpt}")

    name = "mm_agentic_smoke5_early"
    d = arc.sub(name)
    plans = mm_plans(ctx, f"_archive/{name}", ctx.mm_qs[::max(1, len(ctx.mm_qs) // 5)][:5],
                     opus, "agentic")
    recs = agentic_records(ctx, f"_archive/{name}", opus, plans, old_style=True,
                           multimodal=True)
    emit(ctx, jsonl(ctx, d, "results.jsonl", "results_top", f"_archive/{name}"), recs)
    aux_files(ctx, d, f"_archive/{name}", opus, "run_multimodal.py", recs,
              [q.qid for q, _, _ in plans], mcp=False, multimodal=True)
    ctx.add_run(f"_archive/{name}", "mm_bench", "agentic", "smoke5", opus, 5, name)
    note(name, "mm_bench", "agentic", opus, "smoke5", "early", "early",
         f"mm_bench/agentic/full2703/{opus}")

    # qwen3_235b has no current run of any split: nothing supersedes it, it is orphaned
    for model, sup in (("kimi_k2_5", "ehr_bench/oneshot/full1800/kimi_k2_5"),
                       ("qwen3_235b", None)):
        name = f"ehr_bench_oneshot_full1800_{model}_pre_retry"
        text_oneshot_run(ctx, arc.sub(name), f"_archive/{name}", "full1800", model,
                         ctx.ehr_qs, plan_key=f"ehr_bench/oneshot/full1800/{model}",
                         zero=("invoke_error", "invoke_error", "list", "error_early"),
                         archive=name)
        note(name, "ehr_bench", "oneshot", model, "full1800", "pre_retry",
             "superseded" if sup else "orphaned", sup)

    name = "mm_agentic_opus_scored_novocab"
    mm_score_dir(ctx, arc.sub(name), f"_archive/{name}",
                 current[f"mm_bench/agentic/full2703/{opus}"], False, True,
                 "Claude Opus 4.6 agentic (no vocab)", None, scorer_vocab=False)
    ctx.add_run(f"_archive/{name}", "mm_bench", "agentic", "full2703", opus, len(ctx.mm_qs),
                name)
    note(name, "mm_bench", "agentic", opus, "full2703", "scored_novocab", "rescoring",
         f"mm_bench/agentic/full2703/{opus}")

    name = "old_misc_dump"
    d = arc.sub(name)
    key = f"_archive/{name}"
    plans = text_plans(ctx, key, ctx.ehr_qs[:3], "kimi_k2_5", "agentic")
    emit(ctx, jsonl(ctx, d, "results.jsonl", "results_top", key),
         agentic_records(ctx, key, "kimi_k2_5", plans))
    d.write_text("notes.bak", "scratch copy, do not use\n", "other", key)
    d.write_text("summary.txt", "rows: 3\nf1: n/a\n", "text", key)
    ctx.add_run(key, None, None, None, None, 0, name)
    note(name, None, None, None, None, None, "unknown", None)


# ---- the whole tree ----------------------------------------------------------------
def build(ctx: Ctx, root: Dir, external: Dir, ext_target: str) -> None:
    ctx.ehr_qs = text_questions(ctx.seed, ctx.scale.ehr_per_task,
                                spec.RISK_TASKS + spec.DECISION_TASKS, "ehr_bench")
    ctx.agent_qs = text_questions(ctx.seed, ctx.scale.agent_per_task, spec.AGENT_EHR_TASKS,
                                  "agent_ehr_bench")
    ctx.mm_qs = mm_questions(ctx.seed, ctx.scale.mm_counts)
    for q in ctx.ehr_qs + ctx.agent_qs + ctx.mm_qs:
        ctx.questions[q.qid] = q
    current: dict[str, list[dict[str, Any]]] = {}
    for model in spec.TEXT_MODELS:
        run_id = f"ehr_bench/agentic/full1800/{model}"
        current[run_id] = text_agentic_run(
            ctx, root.sub(run_id), run_id, "ehr_bench", "full1800", model, ctx.ehr_qs,
            resume=2 if model in ("claude_opus_4_6", "glm_4_7", "qwen3_vl_235b") else 0,
            scores=model in ("claude_opus_4_6", "claude_sonnet_4_6"),
            aux=model in ("claude_opus_4_6", "minimax_m2_5"))
        run_id = f"ehr_bench/oneshot/full1800/{model}"
        current[run_id] = text_oneshot_run(ctx, root.sub(run_id), run_id, "full1800", model,
                                           ctx.ehr_qs, scores=model == "claude_opus_4_6")
    for mode, models in spec.SMOKE_MODELS.items():
        for model in models:
            run_id = f"ehr_bench/{mode}/smoke20/{model}"
            if mode == "agentic":
                text_agentic_run(ctx, root.sub(run_id), run_id, "ehr_bench", "smoke20", model,
                                 smoke(ctx.ehr_qs, 20))
            else:
                text_oneshot_run(ctx, root.sub(run_id), run_id, "smoke20", model,
                                 smoke(ctx.ehr_qs, 20))
    # agent_ehr_bench lives outside the tree, reached through a relative symlink
    root.sub("agent_ehr_bench/agentic").symlink("subset600", ext_target, True)
    sub = Dir(external.phys / EXTERNAL_SUBDIR, "agent_ehr_bench/agentic/subset600", ctx.ledger)
    sub.phys.mkdir(parents=True)
    for model in spec.AGENT_EHR_MODELS:
        run_id = f"agent_ehr_bench/agentic/subset600/{model}"
        text_agentic_run(ctx, sub.sub(model), run_id, "agent_ehr_bench", "subset600", model,
                         ctx.agent_qs, runs_per_question=2 if model == "claude_opus_4_6" else 1,
                         old_style=model in spec.OLD_STYLE_AGENT_EHR, aux=True)
    for model in spec.MM_MODELS:
        mm_oneshot_run(ctx, root, model)
    current["mm_bench/agentic/full2703/claude_opus_4_6"] = mm_agentic_opus(ctx, root)
    mm_raw_run(ctx, root)
    # what the authors' analysis scripts add to a tree: raw QA rows of an external model,
    # a scored-only external run, the task classifier's output
    qa_raw_run(ctx, root)
    mm_scored_only_run(ctx, root)
    mm_classifier_file(ctx, root)
    archives(ctx, root, current)


def progress_reporter(progress: Callable[[int, str], None] | None, ledger: Ledger
                      ) -> Callable[[str], None]:
    """What Ctx calls as each run starts: progress(bytes written so far, run id), if any."""
    def report(run_id: str) -> None:
        if progress is not None:
            progress(ledger.bytes_written, run_id)
    return report


def make_ctx(seed: int, scale: spec.Scale, damage: bool, bench_gb: float,
             progress: Callable[[int, str], None] | None,
             shape: spec.TrajectoryShape = spec.TRAJECTORY_SHAPES["default"]
             ) -> Ctx:
    if scale.big:
        # shares of the byte budget, measured on generated trees (docs/SYNTH.md); the
        # agentic ones scaled by the trajectory shape's overhead per payload character
        budget = bench_gb * 1e9
        agentic = budget * shape.payload_scale
        sizes = Sizes(agentic=int(agentic * 0.38 / 17000),
                      oneshot=int(budget * 0.24 * shape.oneshot_scale / 90000),
                      mm_agentic=int(agentic * 0.17 / 30000),
                      mm_oneshot=int(budget * 0.04 / 16000), heavy_tail=True)
        image_bytes = int(budget * 0.08 / 30000 / 2.5)
    else:
        sizes = Sizes(agentic=900, oneshot=240, mm_agentic=500, mm_oneshot=200,
                      heavy_tail=False)
        image_bytes = 200
    ledger = Ledger()
    timelines = Timelines(seed, sizes.oneshot, sizes.draw) if shape.shared_timelines else None
    maker = RecordMaker(Filler(seed), Images(seed, image_bytes), shape, timelines)
    maker.planted = ledger.planted  # the truth file reads what the records planted
    return Ctx(seed, scale, damage, maker, sizes, ledger, progress_reporter(progress, ledger))
