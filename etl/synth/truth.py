"""The truth file: what the generator planted, derived from the ledger of written lines.

Winners follow DESIGN.md: lowest copy rank (merged < top-level < shard < steal < steal
copy), then path order for equal ranks, then the last line (and last object of a line)
within a file."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from etl.synth.records import normalized_set
from etl.synth.writer import Copy, Ledger


def _winner_key(c: Copy) -> tuple[int, str, int, int]:
    return (c.rank, c.path, -c.line_no, -c.obj_idx)


def winners(ledger: Ledger) -> dict[str, dict[tuple[str, int], Copy]]:
    copies: dict[str, dict[tuple[str, int], list[Copy]]] = defaultdict(lambda: defaultdict(list))
    for c in ledger.copies:
        copies[c.run_id][(c.qid, c.run_index)].append(c)
    return {run: {k: min(v, key=_winner_key) for k, v in keys.items()}
            for run, keys in copies.items()}


TEXT_BENCHMARKS = ("ehr_bench", "agent_ehr_bench")


def _on_leaderboard(run: dict[str, Any]) -> bool:
    split = run.get("split") or ""
    return (not run["is_archived"] and run.get("benchmark") in TEXT_BENCHMARKS
            and (split.startswith("full") or split == "subset600"))


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def text_leaderboard(runs: list[dict[str, Any]], win: dict[str, dict[tuple[str, int], Copy]]
                     ) -> list[dict[str, Any]]:
    """Per current full text run, the authors' evaluate(): per question the mean over its
    runs of f1_score, then micro means over the questions (overall, per task, per task
    type); prediction_sources counts the runs by source. Over the winning copies (the
    warehouse's dedup), where the authors' load_results would count every line."""
    out = []
    for run in sorted(runs, key=lambda r: r["run_id"]):
        if not _on_leaderboard(run):
            continue
        per_question: dict[str, list[float]] = defaultdict(list)
        meta: dict[str, tuple[str | None, str | None]] = {}
        sources: dict[str, int] = defaultdict(int)
        for (qid, _), c in sorted(win.get(run["run_id"], {}).items()):
            per_question[qid].append(c.authors_f1)
            meta.setdefault(qid, (c.task, c.task_type))
            sources[c.authors_source] += 1
        means = {qid: _mean(v) for qid, v in per_question.items()}
        by_task: dict[str, list[float]] = defaultdict(list)
        by_group: dict[str, list[float]] = defaultdict(list)
        for qid, value in means.items():
            by_task[str(meta[qid][0])].append(value)
            by_group[str(meta[qid][1])].append(value)
        out.append({
            "run_id": run["run_id"], "benchmark": run["benchmark"], "mode": run["mode"],
            "model": run["model"], "n_questions": len(means),
            "score": _mean(list(means.values())) if means else 0.0,
            "per_task": {t: {"n_questions": len(v), "score": _mean(v)}
                         for t, v in sorted(by_task.items())},
            "per_task_type": {t: {"n_questions": len(v), "score": _mean(v)}
                              for t, v in sorted(by_group.items())},
            "prediction_sources": dict(sorted(sources.items())),
        })
    return out


def planted_failures(win: dict[str, dict[tuple[str, int], Copy]]) -> dict[str, Any]:
    """Every failure planted in a loaded copy (etl/synth/failures.py), as the warehouse must
    label it: calls [run_id, qid, run_index, msg_idx, call_idx, failure, detail] and results
    [run_id, qid, run_index, failure, detail, n_calls] (the labels of the whole result: a
    repeated call, no or an empty answer, an answer off the candidates, the run's own
    error), and per run and label how many results carry it (its calls' labels counted on
    the result too, none for a result with no label at all)."""
    calls: list[list[Any]] = []
    results: list[list[Any]] = []
    per_run: dict[str, dict[str, int]] = {}
    for run_id, keys in sorted(win.items()):
        counts: dict[str, int] = defaultdict(int)
        for (qid, run_index), c in sorted(keys.items()):
            labels = set()
            for msg_idx, call_idx, failure, detail in sorted(c.call_failures):
                calls.append([run_id, qid, run_index, msg_idx, call_idx, failure, detail])
                labels.add(failure)
            for failure, detail, n_calls in sorted(c.result_failures):
                results.append([run_id, qid, run_index, failure, detail, n_calls])
                labels.add(failure)
            for failure in labels or {"none"}:
                counts[failure] += 1
        per_run[run_id] = dict(sorted(counts.items()))
    return {"calls": calls, "results": results, "results_per_run": per_run}


def build_truth(*, seed: int, scale: str, damage: bool, external_dir: str,
                runs: list[dict[str, Any]], archives: list[dict[str, Any]],
                ledger: Ledger, raw_runs: list[dict[str, Any]] | None = None
                ) -> dict[str, Any]:
    win = winners(ledger)
    out_runs = []
    for run in runs:
        w = win.get(run["run_id"], {})
        status = {"success": 0, "incomplete": 0, "error": 0}
        shapes = {"n_error_results": 0, "n_name_fixed": 0, "n_fresh_id_results": 0}
        extra: dict[str, int] = defaultdict(int)
        for c in w.values():
            status[c.status] = status.get(c.status, 0) + 1
            for k, v in c.shapes.items():
                shapes[k] += v
            for k in c.extra_keys:
                extra[k] += 1
        # tool_shapes: over the loaded copies, the writer's tool shapes (records.tool_shapes)
        # extra_keys: loaded records holding each key no results column maps
        out_runs.append({**run, "n_results": len(w), "n_status": status,
                         "tool_shapes": shapes, "extra_keys": dict(sorted(extra.items()))})
    groups: dict[tuple[str, str, int], list[Copy]] = defaultdict(list)
    for c in ledger.copies:
        groups[(c.run_id, c.qid, c.run_index)].append(c)
    duplicates = []
    for (run_id, qid, run_index), cs in sorted(groups.items()):
        if len(cs) < 2:
            continue
        best = min(cs, key=_winner_key)
        duplicates.append({
            "run_id": run_id, "qid": qid, "run_index": run_index,
            "copies": [{"path": c.path, "line_no": c.line_no}
                       for c in sorted(cs, key=lambda c: (c.rank, c.path, c.line_no))],
            "winner": {"path": best.path, "line_no": best.line_no}})
    out_archives = []
    for a in archives:
        mine = win.get(a["run_id"], {})
        theirs = win.get(a["superseded_by"] or "", {})
        changed = []
        for key in sorted(mine.keys() & theirs.keys()):
            fields = []
            if mine[key].status != theirs[key].status:
                fields.append("status")
            if normalized_set(mine[key].prediction) != normalized_set(theirs[key].prediction):
                fields.append("prediction")
            if fields:
                changed.append({"qid": key[0], "run_index": key[1], "fields": fields})
        out_archives.append({**a, "changed": changed})
    return {
        "seed": seed, "scale": scale, "external_dir": external_dir,
        # the text leaderboard by the authors' scorer (score_text.py), over the winners
        "text_leaderboard": text_leaderboard(runs, win),
        "planted_shapes": sorted(ledger.shapes, key=lambda x: (x["run_id"], x["qid"],
                                                               x["run_index"])),
        # the failure labels planted in the loaded copies (docs/ANALYSIS.md)
        "failures": planted_failures(win),
        # the brief names both the --damage flag and the damage list "damage": the list wins
        # (empty, so falsy, without --damage) and the flag is "damage_enabled"
        "damage_enabled": damage,
        "runs": sorted(out_runs, key=lambda r: r["run_id"]),
        "files": sorted(ledger.files, key=lambda f: f["path"]),
        "damage": sorted(ledger.damage, key=lambda d: (d["path"], d["line_no"] or 0)),
        "duplicates": duplicates,
        "archives": sorted(out_archives, key=lambda a: a["run_id"]),
        "summary_disagreements": sorted(ledger.disagreements, key=lambda d: d["path"]),
        "score_shapes": sorted(ledger.score_shapes, key=lambda d: d["path"]),
        "mm_score_sources": dict(sorted(ledger.mm_score_sources.items())),
        "symlinks": sorted(ledger.symlinks, key=lambda s: s["path"]),
        # bare NaN / Infinity values (writer-valid): loaded as NULL, the key noted
        "nonfinite": sorted(ledger.nonfinite, key=lambda d: (d["path"], d["line_no"])),
        # raw multi-model runs: the manifest.json each one holds (its shards, as written)
        "raw_runs": sorted(raw_runs or [], key=lambda r: r["path"]),
    }
