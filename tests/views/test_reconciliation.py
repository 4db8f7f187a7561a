"""summary_reconciliation: summary numbers computed independently in Python (following the
authors' scorers) agree with the view's recomputation, and a planted disagreement is the one
row flagged."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

import duckdb
import pytest

from etl.extract import FileInfo
from etl.extract.scores import extract_scores
from etl.extract.summaries import extract_summary

ROOT = Path(__file__).resolve().parents[2]
RUN = "mm_bench/agentic/full2703/kimi_k2_5"
TEXT_RUN = "ehr_bench/agentic/full1800/glm_4_7"
M = ("precision", "recall", "f1", "accuracy", "subset_match")


class CollectingEmitter:
    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self.rejects: list[tuple[Any, ...]] = []

    def row(self, table: str, row: dict[str, Any]) -> None:
        if table in ("summary_metrics", "question_scores"):  # the tables load() fills
            self.rows.append(row)

    def reject(self, line_no: int | None, severity: str, error: str,
               excerpt: str | None = None) -> None:
        self.rejects.append((line_no, severity, error))

    def file_stats(self, n_lines: int | None = None, sha256: str | None = None) -> None:
        pass


def warehouse() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for path in sorted((ROOT / "schema").glob("*.sql")):
        con.execute(path.read_text())
    for name in ("45_text_scorer_rows.sql", "48_helper_recompute.sql", "50_reconciliation.sql"):
        con.execute((ROOT / "sql" / name).read_text())
    return con


def load(con: duckdb.DuckDBPyConnection, tmp: Path, name: str, kind: str, run_id: str,
         content: str) -> str:
    """Write a file, run our extractor on it and insert its rows as the loader would."""
    path = tmp / name
    path.write_text(content)
    file_id = f"{kind}:{name}"
    info = FileInfo(file_id=file_id, path=name, abs_path=path, real_path=str(path),
                    kind=kind, run_id=run_id)
    emit = CollectingEmitter()
    extractor = extract_summary if name.endswith(".json") else extract_scores
    extractor(info, emit)
    assert emit.rejects == []
    table = "summary_metrics" if name.endswith(".json") else "question_scores"
    con.execute("INSERT INTO files (file_id, run_id, path, kind) VALUES (?, ?, ?, ?)",
                [file_id, run_id, name, kind])
    for row in emit.rows:
        row = {**row, "run_id": run_id, "file_id": file_id}
        cols = list(row)
        con.execute(f"INSERT INTO {table} ({', '.join(cols)}) "
                    f"VALUES ({', '.join('?' for _ in cols)})", list(row.values()))
    return file_id


# --- the authors' aggregation, re-implemented here as the test's oracle ----------------

def scored_rows(rng: random.Random, n: int) -> list[dict[str, Any]]:
    tasks = ["ehrxqa_image", "ehrxqa_table", "medmod_phenotyping", "medmod_radiology"]
    rows = []
    for i in range(n):
        task = rng.choice(tasks)
        len_gold = rng.choice([1, 1, 2, 3, 5])
        route = "incomplete" if rng.random() < 0.2 else (
            "llm_judge" if len_gold == 1 else "set_f1")
        row: dict[str, Any] = {"qid": f"q{i}", "run_index": 1, "task": task,
                               "len_gold": len_gold, "route": route}
        if route == "incomplete":
            row.update({"correct": False, **{k: 0.0 for k in M}})
        elif route == "llm_judge":
            ok = rng.random() < 0.6
            row.update({"judge_subtype": rng.choice(["yesno", "count", "label_name"]),
                        "judge_match": ok, "correct": ok,
                        **{k: float(ok) for k in M}})
        else:
            n_pred, tp = rng.randint(1, 4), rng.randint(0, len_gold)
            tp = min(tp, n_pred)
            p, r = tp / n_pred, tp / len_gold
            f = 2 * p * r / (p + r) if p + r else 0.0
            row.update({"precision": p, "recall": r, "f1": f,
                        "accuracy": tp / (n_pred + len_gold - tp),
                        "subset_match": float(tp == n_pred == len_gold),
                        "tp": tp, "n_pred": n_pred, "n_gold": len_gold})
            for k in M:
                row[f"{k}_raw"] = row[k] * rng.choice([1.0, 0.5])
        rows.append(row)
    return rows


def avg(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def summary_of(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """score_multimodal.aggregate(): incomplete rows count in len1 / len2plus by len_gold."""
    l1: dict[str, list[dict]] = defaultdict(list)
    l2: dict[str, list[dict]] = defaultdict(list)
    uni: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        zero = {**{k: 0.0 for k in M}, **{f"{k}_raw": 0.0 for k in M}}
        if r["route"] == "incomplete":
            (l2 if r["len_gold"] >= 2 else l1)[r["task"]].append({**r, **zero})
            uni[r["task"]].append(zero)
        elif r["route"] == "llm_judge":
            l1[r["task"]].append(r)
            v = float(r["correct"])
            uni[r["task"]].append({**{k: v for k in M}, **{f"{k}_raw": v for k in M}})
        else:
            vals = {k: r[k] for k in M} | {f"{k}_raw": r[f"{k}_raw"] for k in M}
            l2[r["task"]].append(vals | {"route": "set_f1"})
            uni[r["task"]].append(vals)
    all1 = [x for v in l1.values() for x in v]
    all2 = [x for v in l2.values() for x in v]
    allu = [x for v in uni.values() for x in v]
    keys = [*M, *(f"{k}_raw" for k in M)]
    out: dict[str, Any] = {
        "total": len(rows),
        "incomplete": sum(r["route"] == "incomplete" for r in rows),
        "len1_accuracy": avg([float(bool(x.get("correct"))) for x in all1]),
        "len1_count": len(all1),
        **{f"len2plus_{k}": avg([x[k] for x in all2]) for k in keys},
        "len2plus_count": len(all2),
        "per_task_len1": {},
        "per_task_len2plus": {
            t: {"count": len(v), "incomplete": sum(x.get("route") == "incomplete" for x in v),
                **{k: avg([x[k] for x in v]) for k in keys}} for t, v in l2.items()},
        "unified_count": len(allu),
        **{f"unified_{k}": avg([x[k] for x in allu]) for k in keys},
        "per_task_unified": {t: {"count": len(v), **{k: avg([x[k] for x in v]) for k in keys}}
                             for t, v in uni.items()},
        "vocab_model": "all-MiniLM-L6-v2", "vocab_threshold": 0.55,
    }
    for t, v in l1.items():
        judged = [x for x in v if x["route"] == "llm_judge"]
        subtypes: dict[str, list[bool]] = defaultdict(list)
        for x in judged:
            subtypes[x["judge_subtype"]].append(bool(x["correct"]))
        out["per_task_len1"][t] = {
            "count": len(v), "correct": sum(bool(x["correct"]) for x in judged),
            "accuracy": sum(bool(x["correct"]) for x in judged) / len(v),
            "incomplete": len(v) - len(judged),
            "by_subtype": {s: len(c) for s, c in subtypes.items()},
            "by_subtype_accuracy": {s: sum(c) / len(c) for s, c in subtypes.items()}}
    return out


def summary_vocab_of(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """rescore_mm_vocab.process_scored_file(): incomplete rows only in unified_*."""
    l1: dict[str, list[bool]] = defaultdict(list)
    l2: dict[str, list[dict]] = defaultdict(list)
    uni: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        if r["route"] == "set_f1":
            l2[r["task"]].append(r)
            uni[r["task"]].append(r)
        elif r["route"] == "llm_judge":
            l1[r["task"]].append(bool(r["correct"]))
            uni[r["task"]].append({k: float(r["correct"]) for k in M})
        else:
            uni[r["task"]].append({k: 0.0 for k in M})
    all2 = [x for v in l2.values() for x in v]
    allu = [x for v in uni.values() for x in v]
    all1 = [x for v in l1.values() for x in v]
    return {
        **{f"len2plus_{k}": avg([x[k] for x in all2]) for k in M},
        "len2plus_count": len(all2),
        "len1_count": len(all1), "len1_accuracy": avg([float(x) for x in all1]),
        "per_task_len2plus_vocab": {t: {"count": len(v), **{k: avg([x[k] for x in v])
                                                           for k in M}}
                                    for t, v in l2.items()},
        "per_task_len1": {t: {"count": len(v), "accuracy": avg([float(x) for x in v])}
                          for t, v in l1.items()},
        "unified_count": len(allu),
        **{f"unified_{k}": avg([x[k] for x in allu]) for k in M[:4]},
        "per_task_unified": {t: {"count": len(v), **{k: avg([x[k] for x in v]) for k in M}}
                             for t, v in uni.items()},
        "vocab_threshold": 0.55,
    }


def per_question_records(rng: random.Random, n: int) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        task, task_type = rng.choice([("labevents", "decision_making"),
                                      ("ICU_Readmission", "risk_prediction")])
        runs = [{"f1": rng.choice([0.0, 0.5, 1.0]), "precision": rng.random(),
                 "recall": rng.random(), "em": 0.0, "tool_calls": rng.randint(0, 9),
                 "turns": rng.randint(1, 5), "predictions": ["x"]}
                for _ in range(rng.choice([0, 1, 1, 2]))]
        for run in runs:
            run["browser_calls"] = rng.randint(0, run["tool_calls"])
        out.append({"qid": f"{task}_{i}", "task": task, "task_type": task_type, "runs": runs,
                    "avg_f1": avg([r["f1"] for r in runs])})
    return out


def scores_of(records: list[dict[str, Any]]) -> dict[str, Any]:
    """score_text.py summary payload (fractions)."""
    def block(recs: list[dict[str, Any]]) -> dict[str, Any]:
        done = [r for r in recs if r["runs"]]
        runs = [x for r in done for x in r["runs"]]
        return {"total": len(recs), "completed": len(done), "runs": len(runs),
                **{k: avg([avg([x[k] for x in r["runs"]]) for r in done])
                   for k in ("precision", "recall", "f1")},
                "tool_calls_avg": avg([x["tool_calls"] for x in runs]),
                "turns_avg": avg([x["turns"] for x in runs]),
                "browser_tool_pct": (sum(x["browser_calls"] for x in runs) * 100
                                     / sum(x["tool_calls"] for x in runs))
                if sum(x["tool_calls"] for x in runs) else 0.0}
    by_task, by_type = defaultdict(list), defaultdict(list)
    for r in records:
        by_task[r["task"]].append(r)
        by_type[r["task_type"]].append(r)
    return {"overall": block(records), "per_task": {t: block(v) for t, v in by_task.items()},
            "per_task_type": {t: block(v) for t, v in by_type.items()}}


def jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def statuses(con: duckdb.DuckDBPyConnection, file_id: str) -> dict[str, tuple]:
    return {path: (status, reported, recomputed) for path, status, reported, recomputed in
            con.execute("SELECT json_path, status, reported, recomputed "
                        "FROM summary_reconciliation WHERE file_id = ?", [file_id]).fetchall()}


# --- tests -----------------------------------------------------------------------------

def test_multimodal_summaries_reconcile_and_the_planted_one_is_flagged(tmp_path: Path) -> None:
    rng = random.Random(4)
    rows = scored_rows(rng, 120)
    assert {r["route"] for r in rows} == {"incomplete", "llm_judge", "set_f1"}
    con = warehouse()
    load(con, tmp_path, "scored.jsonl", "scored", RUN, jsonl(rows))
    load(con, tmp_path, "rescored.jsonl", "rescored", RUN, jsonl(rows))

    summary = summary_of(rows)
    task = sorted(summary["per_task_len2plus"])[0]
    true_f1 = summary["per_task_len2plus"][task]["f1"]
    summary["per_task_len2plus"][task]["f1"] = true_f1 + 0.05  # the planted disagreement
    sid = load(con, tmp_path, "summary.json", "summary", RUN, json.dumps(summary))
    vid = load(con, tmp_path, "summary_vocab.json", "summary_vocab", RUN,
               json.dumps(summary_vocab_of(rows)))

    got = statuses(con, sid)
    planted = f"$.per_task_len2plus.{task}.f1"
    flagged = {p for p, (s, _, _) in got.items() if s != "match"}
    assert flagged == {planted, "$.vocab_threshold"}
    status, reported, recomputed = got[planted]
    assert status == "mismatch"
    assert reported == pytest.approx(true_f1 + 0.05)
    assert recomputed == pytest.approx(true_f1)
    assert got["$.vocab_threshold"][0] == "not_recomputable"
    # counts of incomplete rows differ between the two summaries: both still match
    vocab = statuses(con, vid)
    assert {p for p, (s, _, _) in vocab.items() if s != "match"} == {"$.vocab_threshold"}
    assert summary["len1_count"] != summary_vocab_of(rows)["len1_count"]


def test_percent_summary_and_damaged_source(tmp_path: Path) -> None:
    rng = random.Random(11)
    rows = scored_rows(rng, 60)
    con = warehouse()
    scored_id = load(con, tmp_path, "scored.jsonl", "scored", RUN, jsonl(rows))
    summary = summary_of(rows)
    percent = {k: (v * 100 if isinstance(v, float) and k not in ("vocab_threshold",) else v)
               for k, v in summary.items() if not isinstance(v, dict)}
    pid = load(con, tmp_path, "summary.json", "summary", RUN, json.dumps(percent))
    got = statuses(con, pid)
    assert {p for p, (s, _, _) in got.items() if s != "match"} == {"$.vocab_threshold"}
    assert got["$.unified_f1"][2] == pytest.approx(summary["unified_f1"] * 100)
    # a wrong number whose per-question file lost lines is not called a plain mismatch
    con.execute("UPDATE summary_metrics SET value = value + 5 WHERE json_path = '$.len2plus_f1'")
    con.execute("INSERT INTO rejects (file_id, path, line_no, severity, error) "
                "VALUES (?, 'scored.jsonl', 7, 'error', 'truncated')", [scored_id])
    assert statuses(con, pid)["$.len2plus_f1"][0] == "damaged_source"


def test_text_scores_reconcile(tmp_path: Path) -> None:
    rng = random.Random(7)
    records = per_question_records(rng, 50)
    assert any(not r["runs"] for r in records) and any(len(r["runs"]) > 1 for r in records)
    con = warehouse()
    load(con, tmp_path, "per_question.jsonl", "per_question", TEXT_RUN, jsonl(records))
    scores = scores_of(records)
    true_total = scores["per_task_type"]["risk_prediction"]["completed"]
    scores["per_task_type"]["risk_prediction"]["completed"] = true_total + 1
    fid = load(con, tmp_path, "scores.json", "scores_json", TEXT_RUN, json.dumps(scores))
    got = statuses(con, fid)
    not_matching = {p: s for p, (s, _, _) in got.items() if s != "match"}
    assert not_matching.pop("$.per_task_type.risk_prediction.completed") == "mismatch"
    assert not_matching == {}  # browser_tool_pct, tool_calls_avg, turns_avg recomputed too
    assert sum(p.endswith("browser_tool_pct") for p in got) == 1 + 2 + 2


def test_text_prediction_sources_reconcile(tmp_path: Path) -> None:
    """score_text.py counts every run's prediction_source per task and task type."""
    rng = random.Random(19)
    records = per_question_records(rng, 60)
    sources = ["finish_tool_call", "finish_tool_call", "no_prediction", "finish_parse_error"]
    for r in records:
        for run in r["runs"]:
            run["prediction_source"] = rng.choice(sources)
    con = warehouse()
    load(con, tmp_path, "per_question.jsonl", "per_question", TEXT_RUN, jsonl(records))
    scores = scores_of(records)
    for scope, key in (("per_task", "task"), ("per_task_type", "task_type")):
        for name, block in scores[scope].items():
            runs = [x for r in records if r[key] == name for x in r["runs"]]
            block["prediction_sources"] = {
                s: sum(x["prediction_source"] == s for x in runs)
                for s in sorted({x["prediction_source"] for x in runs})}
    block = scores["per_task"]["labevents"]["prediction_sources"]
    block["finish_tool_call"] += 1  # the planted disagreement
    fid = load(con, tmp_path, "scores.json", "scores_json", TEXT_RUN, json.dumps(scores))
    got = statuses(con, fid)
    planted = "$.per_task.labevents.prediction_sources.finish_tool_call"
    assert got[planted][0] == "mismatch"
    assert got[planted][1] == got[planted][2] + 1
    others = {p: s for p, (s, _, _) in got.items() if p != planted and s != "match"}
    assert others == {}
    assert sum("prediction_sources" in p for p in got) >= 6


def test_ingested_demo_tree_flags_exactly_the_planted_disagreements(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from etl.cli import cli

    out, db = tmp_path / "tree", tmp_path / "w.duckdb"
    runner = CliRunner()
    for args in (["synth", str(out), "--scale", "demo", "--damage"],
                 ["ingest", str(out), "--db", str(db)]):
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, result.output
    truth = json.loads(Path(f"{out}.truth.json").read_text())
    assert truth["summary_disagreements"], "the demo tree plants summary disagreements"
    expected = {(d["path"], d["json_path"]) for d in truth["summary_disagreements"]}
    con = duckdb.connect(str(db), read_only=True)
    flagged = set(con.execute(
        "SELECT f.path, r.json_path FROM summary_reconciliation AS r "
        "JOIN files AS f USING (file_id) WHERE r.status = 'mismatch'").fetchall())
    assert flagged == expected
    # every text-scorer summary: the shape and writer version the generator used, and
    # every number of it recomputed (tool_calls_avg, turns_avg, browser_tool_pct included)
    shapes = {(d["path"], d["shape"], d["writer_rule"]) for d in truth["score_shapes"]}
    assert {d["shape"] for d in truth["score_shapes"]} == {"output_dir", "output", "flat"}
    assert set(con.execute(
        "SELECT DISTINCT f.path, r.file_shape, r.writer_rule FROM summary_reconciliation AS r "
        "JOIN files AS f USING (file_id) WHERE r.scoring = 'scores'").fetchall()) == shapes
    assert con.execute("SELECT count(*) FROM summary_reconciliation WHERE scoring = 'scores' "
                       "AND status = 'not_recomputable'").fetchone() == (0,)
    # mm leaderboard rows use the authors' fallback: rescored rows, else scored rows
    sources = dict(con.execute("SELECT run_id, score_source FROM leaderboard "
                               "WHERE benchmark = 'mm_bench'").fetchall())
    want = {run_id: kind for run_id, kind in truth["mm_score_sources"].items()
            if not run_id.startswith("_archive/")}
    assert "scored" in {want[r] for r in want if "/agentic/" in r}  # scored-only agentic run
    assert {r: s for r, s in sources.items() if r in want} == want
