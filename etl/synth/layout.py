"""The tree: which runs exist, where their files go, and what each file holds.

One function per family of run directory; each writes through `writer` so the truth file
knows every line. Damage (--damage) is planted by `emit` at fixed positions of fixed files
(DAMAGE below), chosen so that a lossy damage never hides a result the score files count."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from etl.synth import spec
from etl.synth.content import Filler, Images, Question, mm_questions, stream, text_questions
from etl.synth.plan import Sizes, plan_run
from etl.synth.records import Plan, RecordMaker
from etl.synth.scoring import (
    mm_rescore,
    mm_scored_rows,
    mm_summary,
    summary_markdown,
    task_vocabularies,
    text_scores,
)
from etl.synth.writer import Dir, JsonlFile, Ledger, dumps_ascii, dumps_utf8

RAW = f"_multi_eval_raw/full5_{spec.STAMP}"
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

    def rng(self, *key: object) -> random.Random:
        return stream(self.seed, *key)

    def add_run(self, run_id: str, benchmark: str | None, mode: str | None,
                split: str | None, model: str | None, expected: int,
                archive_name: str | None = None) -> None:
        self.runs.append({"run_id": run_id, "benchmark": benchmark, "mode": mode,
                          "split": split, "model": model,
                          "model_dir": run_id.rsplit("/", 1)[-1],
                          "is_archived": archive_name is not None,
                          "archive_name": archive_name, "expected_questions": expected})
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


def run_log(d: Dir, run_id: str, lines: Sequence[str]) -> None:
    d.write_text("run.log", "".join(f"[2026-04-2{i % 9} 0{i % 10}:{i % 60:02d}:00] {x}\n"
                                    for i, x in enumerate(lines)), "run_log", run_id)


def aux_files(d: Dir, run_id: str, model: str, script: str, n: int, mcp: bool) -> None:
    run_log(d, run_id, [f"start {script} model={model}", f"{n} questions", "done"])
    d.write_text("cmd.txt", f"python clinseekagent/{script} --model_name_or_path "
                 f"{spec.BACKEND_IDS.get(model, model)} --output_dir {d.logical}\n", "cmd", run_id)
    d.write_text("pid.txt", f"{4000 + n}\n", "pid", run_id)
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
                    lambda: ctx.sizes.draw(rng, mean), runs_per_question, zero, style)


def mm_plans(ctx: Ctx, key: str, qs: Sequence[Question], model: str, mode: str
             ) -> list[tuple[Question, int, Plan]]:
    mean = ctx.sizes.mm_agentic if mode == "agentic" else ctx.sizes.mm_oneshot
    rng = ctx.rng("payload", key)
    style = "anthropic" if model in spec.ANTHROPIC else "list"
    return plan_run(ctx.seed, key, qs, lambda q: spec.mm_quality(model, mode, q.group), mode,
                    lambda: ctx.sizes.draw(rng, mean), 1, None, style)


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
    recs = agentic_records(ctx, run_id, model, plans, runs_per_question, old_style=old_style)
    final = list(recs)
    rows = completion_order(ctx, run_id, recs)
    if resume:
        rows = resumed(ctx, run_id, rows, resume)
    emit(ctx, jsonl(ctx, d, "results.jsonl", "results_top", run_id), rows)
    if aux:
        aux_files(d, run_id, model, "run_text.py", len(qs), mcp=True)
    if scores:
        text_score_files(ctx, d, run_id, final, qs)
    ctx.add_run(run_id, bench, "agentic", split, model,
                expected_count(ctx, bench, split), archive)
    return final


def text_score_files(ctx: Ctx, d: Dir, run_id: str, final: list[dict[str, Any]],
                     qs: list[Question]) -> None:
    """score_text.py over the run's benchmark questions (qs): scores.json (the payload the
    script writes as summary.json) and per_question.jsonl."""
    scores, per_question = text_scores(final, qs)
    if run_id == "ehr_bench/agentic/full1800/claude_opus_4_6":
        plant(ctx, d.path_of("scores.json"), scores, ("per_task_type", "decision_making", "f1"))
    d.write_json("scores.json", scores, "scores_json", run_id)
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
    regions = (spec.REGIONS[:2] if model in spec.MULTI_REGION_ONESHOT else spec.REGIONS[:1])
    d.write_text("region_map.json", __import__("json").dumps(
        {r: spec.BACKEND_IDS[model] for r in regions}, indent=2), "region_map", run_id)
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
    if scores:
        text_score_files(ctx, d, run_id, final, qs)
    ctx.add_run(run_id, "ehr_bench", "oneshot", split, model,
                expected_count(ctx, "ehr_bench", split), archive)
    return final


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


def mm_oneshot_run(ctx: Ctx, root: Dir, model: str) -> None:
    run_id = f"mm_bench/oneshot/full2703/{model}"
    d = root.sub(run_id)
    plans = mm_plans(ctx, run_id, ctx.mm_qs, model, "oneshot")
    rng = ctx.rng("records", run_id)
    if model in spec.MM_ONESHOT_SHARDED:
        regions = spec.REGIONS[:2]
        d.write_text("region_map.json", __import__("json").dumps(
            {r: spec.BACKEND_IDS[model] for r in regions}, indent=2), "region_map", run_id)
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
    emit(ctx, jsonl(ctx, d, "results.jsonl", "results_top", run_id),
         resumed(ctx, run_id, completion_order(ctx, run_id, final), 2))
    aux_files(d, run_id, model, "run_multimodal.py", len(ctx.mm_qs), mcp=True)
    d.write_text("mcp_image.log", "INFO image tool server ready\n", "mcp_log", run_id)
    ctx.add_run(run_id, "mm_bench", "agentic", "full2703", model, len(ctx.mm_qs))
    mm_score_dir(ctx, root.sub(f"mm_bench/agentic/scored/{model}"), run_id, final, True, True,
                 "Claude Opus 4.6 agentic (vocab)", None)
    return final


def mm_raw_run(ctx: Ctx, root: Dir) -> None:
    """The five-model work-stealing run and the symlinks that expose it."""
    full = root.sub("mm_bench/agentic/full2703")
    raw = full.sub(RAW)
    counts: dict[str, Any] = {}
    for model in spec.MM_RAW_MODELS:
        s = spec.slug(model)
        run_id = f"mm_bench/agentic/full2703/{model}"
        full.symlink(model, f"{RAW}/{s}", False)
        d = Dir(raw.phys / s, run_id, ctx.ledger)  # logical path: through the symlink
        d.phys.mkdir()
        plans = mm_plans(ctx, run_id, ctx.mm_qs, model, "agentic")
        final = agentic_records(ctx, run_id, model, plans, multimodal=True)
        regions = spec.REGIONS if model == "kimi_k2_5" else spec.REGIONS[:2]
        rng = ctx.rng("raw", run_id)
        shard_only: set[str] = set()
        per_region: dict[str, Any] = {}
        for ri, region in enumerate(regions):
            rd = d.sub(region)
            mine = [r for n, r in enumerate(final) if n % len(regions) == ri]
            inp = jsonl(ctx, rd, "input.jsonl", "input", run_id)
            for rec in mine:
                inp.record(ctx.questions[rec["qid"]].inputs)
            inp.close()
            n_steal = max(1, len(mine) // 10) if ri == 0 else 0
            stolen, own = mine[len(mine) - n_steal:], mine[:len(mine) - n_steal]
            own = completion_order(ctx, f"{run_id}/{region}", own)
            if ri == 1:
                own = resumed(ctx, f"{run_id}/{region}", own, 1)
                shard_only.update(r["qid"] for r in rng.sample(mine, 2))
            emit(ctx, jsonl(ctx, rd, "results.jsonl", "results_shard", run_id), own)
            if stolen:
                for sub_kind, sub_dir, name in (("results_steal", rd, "results_steal_01.jsonl"),
                                                ("results_steal_copy", rd.sub("steal_01"),
                                                 "results.jsonl")):
                    f = jsonl(ctx, sub_dir, name, sub_kind, run_id)
                    for rec in stolen:
                        f.record(rec)
                    f.close()
            run_log(rd, run_id, [f"worker {region} start", f"{len(mine)} inputs",
                                 f"stolen by steal_01: {len(stolen)}", "done"])
            n_err = sum(r["status"] == "error" for r in mine)
            rd.write_json("status.json", {
                "model_slug": s, "model_id": spec.BACKEND_IDS[model], "region": region,
                "state": "done", "n_input": len(mine), "n_done": len(mine) - n_steal,
                "n_error": n_err, "steal_workers": ["steal_01"] if stolen else [],
                "updated_at": f"{spec.STAMP[:4]}-04-21T18:00:00Z"}, "status", run_id)
            per_region[region] = {"input": len(mine), "results": len(own),
                                  "steal": len(stolen)}
        merged = [r for r in completion_order(ctx, f"{run_id}/merged", final)
                  if r["qid"] not in shard_only]
        emit(ctx, jsonl(ctx, d, "merged_unique.jsonl", "results_merged", run_id), merged)
        counts[s] = {"merged_unique": len(merged), "regions": per_region}
        ctx.add_run(run_id, "mm_bench", "agentic", "full2703", model, len(ctx.mm_qs))
        sd = raw.sub(f"scored_vocab/{s}")
        sd = Dir(sd.phys, f"mm_bench/agentic/scored/{model}", ctx.ledger)
        root.sub("mm_bench/agentic/scored").symlink(
            model, f"../full2703/{RAW}/scored_vocab/{s}", False)
        keys = ("per_task_unified", "medmod_phenotyping", "f1") if model == "kimi_k2_5" else None
        mm_score_dir(ctx, sd, run_id, final, True, True, f"{s} agentic (vocab)", keys)
    raw.write_json("manifest.json", {
        "stamp": spec.STAMP, "benchmark": "mm_bench", "split": "full2703",
        "n_questions": len(ctx.mm_qs), "input": "data/mm_bench_full2703.jsonl",
        "models": [{"slug": spec.slug(m), "model_id": spec.BACKEND_IDS[m],
                    "regions": list(spec.REGIONS if m == "kimi_k2_5" else spec.REGIONS[:2])}
                   for m in spec.MM_RAW_MODELS]}, "manifest", None)
    raw.write_json("summary.json", {"stamp": spec.STAMP, "models": counts}, "multi_summary",
                   None)
    md = ["| model | merged_unique |", "|---|---|"] + [
        f"| {s} | {c['merged_unique']} |" for s, c in counts.items()]
    raw.write_text("summary.md", "\n".join(md) + "\n", "markdown", None)


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
    aux_files(d, f"_archive/{name}", opus, "run_multimodal.py", 5, mcp=False)
    ctx.add_run(f"_archive/{name}", "mm_bench", "agentic", "smoke5", opus, 5, name)
    note(name, "mm_bench", "agentic", opus, "smoke5", "early", "early",
         f"mm_bench/agentic/full2703/{opus}")

    for model, sup in (("kimi_k2_5", "ehr_bench/oneshot/full1800/kimi_k2_5"),
                       ("qwen3_235b", None)):  # qwen3_235b: no current run supersedes it
        name = f"ehr_bench_oneshot_full1800_{model}_pre_retry"
        text_oneshot_run(ctx, arc.sub(name), f"_archive/{name}", "full1800", model,
                         ctx.ehr_qs, plan_key=f"ehr_bench/oneshot/full1800/{model}",
                         zero=("invoke_error", "invoke_error", "list", "error_early"),
                         archive=name)
        note(name, "ehr_bench", "oneshot", model, "full1800", "pre_retry", "superseded", sup)

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
    archives(ctx, root, current)


def progress_printer(enabled: bool, ledger: Ledger) -> Callable[[str], None]:
    def show(run_id: str) -> None:
        if enabled:
            print(f"  {ledger.bytes_written / 1e6:9.1f} MB  {run_id}", file=sys.stderr,
                  flush=True)
    return show


def make_ctx(seed: int, scale: spec.Scale, damage: bool, bench_gb: float,
             progress: bool) -> Ctx:
    if scale.big:
        # shares of the byte budget, measured on generated trees (docs/SYNTH.md)
        budget = bench_gb * 1e9
        sizes = Sizes(agentic=int(budget * 0.38 / 17000), oneshot=int(budget * 0.24 / 90000),
                      mm_agentic=int(budget * 0.17 / 30000), mm_oneshot=int(budget * 0.04 / 16000),
                      heavy_tail=True)
        image_bytes = int(budget * 0.08 / 30000 / 2.5)
    else:
        sizes = Sizes(agentic=900, oneshot=240, mm_agentic=500, mm_oneshot=200,
                      heavy_tail=False)
        image_bytes = 200
    ledger = Ledger()
    maker = RecordMaker(Filler(seed), Images(seed, image_bytes))
    return Ctx(seed, scale, damage, maker, sizes, ledger, progress_printer(progress, ledger))
