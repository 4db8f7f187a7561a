"""Lineage views (sql/60_lineage.sql) and `etl lineage` on a warehouse built in the test from
schema/*.sql and sql/*.sql, with runs and results planted here; the expected lineage and
diffs are derived from what was planted, never copied in."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import CliRunner

from etl.archive import archive_rows, parse_archive_name
from etl.cli.lineage import lineage_command
from etl.views import apply_schema, apply_views

ROOT = "/data/root"
N_QUESTIONS = 12


@dataclass
class Result:
    qid: str
    run_index: int
    status: str
    prediction: str | None
    f1: float


def run_row(run_id: str, benchmark: str | None = None, mode: str | None = None,
            split: str | None = None, model: str | None = None, archive: str | None = None,
            real_path: str | None = None) -> dict[str, Any]:
    if archive is not None:
        parsed = parse_archive_name(archive)
        benchmark, mode, split, model = parsed.benchmark, parsed.mode, parsed.split, parsed.model
    return {"run_id": run_id, "benchmark": benchmark, "mode": mode, "split": split,
            "model": model, "is_archived": archive is not None, "archive_name": archive,
            "path": run_id, "real_path": real_path or f"{ROOT}/{run_id}"}


def answer(prediction: str | None) -> frozenset[str]:
    """The normalized answer (DESIGN.md): the prediction's items as strip+lower strings."""
    if prediction is None:
        return frozenset()
    value = json.loads(prediction)
    items = value if isinstance(value, list) else [value]
    return frozenset(str(x).strip().lower() for x in items)


def make_results(rng: random.Random, n: int, runs_per_q: int = 1) -> list[Result]:
    out = []
    for i in range(n):
        for run_index in range(1, runs_per_q + 1):
            status = rng.choice(["success", "success", "incomplete", "error"])
            f1 = round(rng.random(), 3) if status == "success" else 0.0
            pred = f'["answer {i}.{run_index}"]' if status == "success" else None
            out.append(Result(f"q{i:03d}", run_index, status, pred, f1))
    return out


def mutate(rng: random.Random, base: list[Result], n_changes: int) -> tuple[list[Result], set]:
    """An archived copy of base with n_changes results altered; returns it and the keys."""
    old = [Result(**vars(r)) for r in base]
    changed = set()
    for r in rng.sample(old, n_changes):
        kind = rng.choice(["status", "prediction", "score"])
        if kind == "status":
            r.status = "error" if r.status == "success" else "success"
        elif kind == "prediction":
            r.prediction = f'["other {r.qid}"]'
        else:
            r.f1 = round((r.f1 + 0.5) % 1.0, 3)
        changed.add((r.qid, r.run_index))
    return old, changed


def expected_change(old: Result | None, new: Result | None) -> str:
    if new is None:
        return "only_archived"
    if old is None:
        return "only_current"
    # fixed / broke: the status and the score moved the same way
    if old.status != "success" and new.status == "success" and round(new.f1, 9) > round(
            old.f1, 9):
        return "fixed"
    if old.status == "success" and new.status != "success" and round(new.f1, 9) < round(
            old.f1, 9):
        return "broke"
    if round(new.f1, 9) > round(old.f1, 9):
        return "improved"
    if round(new.f1, 9) < round(old.f1, 9):
        return "regressed"
    if (old.status, answer(old.prediction)) != (new.status, answer(new.prediction)):
        return "changed"
    return "same"


class Warehouse:
    def __init__(self) -> None:
        self.con = duckdb.connect()
        apply_schema(self.con)
        self.runs: list[dict[str, Any]] = []
        self.results: dict[str, list[Result]] = {}

    def add_run(self, row: dict[str, Any], results: list[Result], raw_ok: bool = False) -> None:
        self.runs.append(row)
        self.results[row["run_id"]] = results
        self.con.execute(
            "INSERT INTO runs (run_id, benchmark, mode, split, model, is_archived, archive_name,"
            " path, real_path, n_results) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [row["run_id"], row["benchmark"], row["mode"], row["split"], row["model"],
             row["is_archived"], row["archive_name"], row["path"], row["real_path"],
             len(results)])
        for r in results:
            raw = "ok" if raw_ok and r.status == "success" else r.status
            self.con.execute(
                "INSERT INTO results (run_id, qid, run_index, status, raw_status, prediction, "
                "prediction_items) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [row["run_id"], r.qid, r.run_index, r.status, raw, r.prediction,
                 json.dumps(sorted(answer(r.prediction)))])
            self.con.execute(
                "INSERT INTO question_scores (run_id, qid, run_index, scorer, f1) "
                "VALUES (?, ?, ?, 'set_f1', ?)", [row["run_id"], r.qid, r.run_index, r.f1])

    def add_meta_model(self, run_id: str, model: str) -> None:
        """A run.log naming the backend model (what etl/extract/runmeta.py emits)."""
        self.con.execute("INSERT INTO run_regions (run_id, source, model, region) "
                         "VALUES (?, 'run_log', ?, 'us-east-1')", [run_id, model])

    def finish(self) -> duckdb.DuckDBPyConnection:
        for row in archive_rows(self.runs):  # what the loader does with the runs rows
            columns = list(row)
            self.con.execute(
                f"INSERT INTO archive_runs ({', '.join(columns)}) "
                f"VALUES ({', '.join('?' for _ in columns)})", [row[c] for c in columns])
        apply_views(self.con)
        return self.con


@pytest.fixture(scope="module")
def planted() -> dict[str, Any]:
    rng = random.Random(5)
    wh = Warehouse()
    plan: dict[str, dict[str, Any]] = {}

    def current(run_id: str, benchmark: str, mode: str, split: str, model: str,
                runs_per_q: int = 1) -> list[Result]:
        res = make_results(rng, N_QUESTIONS, runs_per_q)
        wh.add_run(run_row(run_id, benchmark, mode, split, model), res, raw_ok=mode == "oneshot")
        return res

    opus_ag = current("ehr_bench/agentic/full1800/claude_opus_4_6", "ehr_bench", "agentic",
                      "full1800", "claude_opus_4_6", runs_per_q=2)
    opus_os = current("ehr_bench/oneshot/full1800/claude_opus_4_6", "ehr_bench", "oneshot",
                      "full1800", "claude_opus_4_6")
    kimi_os = current("ehr_bench/oneshot/full1800/kimi_k2_5", "ehr_bench", "oneshot",
                      "full1800", "kimi_k2_5")
    glm_smoke = current("ehr_bench/agentic/smoke20/glm_4_7", "ehr_bench", "agentic", "smoke20",
                        "glm_4_7")
    gpt_smoke = current("ehr_bench/agentic/smoke20/gpt_oss_120b", "ehr_bench", "agentic",
                        "smoke20", "gpt_oss_120b")
    mm_opus = current("mm_bench/agentic/full2703/claude_opus_4_6", "mm_bench", "agentic",
                      "full2703", "claude_opus_4_6")

    def archive(name: str, results: list[Result], superseded_by: str | None, relation: str,
                changed: set, raw_ok: bool = False, identical: bool = False,
                sample: bool = False) -> None:
        """sample: compared with a run of another split, only its own questions are listed."""
        run_id = f"_archive/{name}"
        wh.add_run(run_row(run_id, archive=name), results, raw_ok=raw_ok)
        plan[run_id] = {"superseded_by": superseded_by, "relation": relation,
                        "changed": changed, "archive_name": name, "identical": identical,
                        "sample": sample}

    # Half-finished agentic opus run: mode not in the name, inferred from its results; it
    # holds only part of the questions, some of them different.
    partial, changed = mutate(rng, opus_ag[: len(opus_ag) // 2], 4)
    archive("ehr_bench_opus46_1800_pre_ssl_retry", partial,
            "ehr_bench/agentic/full1800/claude_opus_4_6", "superseded", changed)
    old_kimi, changed = mutate(rng, kimi_os, 5)
    # Besides the real changes, some answers differ only in JSON formatting, case, spacing
    # and order: the same normalized answer, so not a change.
    reformatted = [r for r in old_kimi
                   if (r.qid, r.run_index) not in changed and r.prediction is not None][:3]
    assert reformatted
    for r in reformatted:
        items = json.loads(r.prediction)
        r.prediction = json.dumps([f"  {x.upper()} " for x in reversed(items)], indent=1)
    archive("ehr_bench_oneshot_full1800_kimi_k2_5_pre_retry", old_kimi,
            "ehr_bench/oneshot/full1800/kimi_k2_5", "superseded", changed, raw_ok=True)
    archive("ehr_bench_smoke20_salvage_patched_glm_4_7", [Result(**vars(r)) for r in glm_smoke],
            "ehr_bench/agentic/smoke20/glm_4_7", "duplicate", set(), identical=True)
    # A salvaged (patched) re-run is a duplicate by its reason, even with one answer changed.
    patched, changed = mutate(rng, gpt_smoke, 1)
    archive("ehr_bench_smoke20_salvage_patched_gpt_oss_120b", patched,
            "ehr_bench/agentic/smoke20/gpt_oss_120b", "duplicate", changed)
    # A retry whose results are all the same as the current run's: a duplicate.
    archive("ehr_bench_oneshot_full1800_opus46_pre_retry", [Result(**vars(r)) for r in opus_os],
            "ehr_bench/oneshot/full1800/claude_opus_4_6", "duplicate", set(), raw_ok=True,
            identical=True)
    archive("mm_agentic_opus_scored_novocab", [], "mm_bench/agentic/full2703/claude_opus_4_6",
            "rescoring", set())
    # An early smoke run whose name has no model (its run.log names it) and no current run of
    # its split: superseded by the full run; compared on its own questions only.
    early = [Result(**vars(r)) for r in mm_opus[:5]]
    early[0].status, early[0].prediction, early[0].f1 = "error", None, 0.0
    if mm_opus[0].status != "success":  # make sure the planted change is one
        early[0].status, early[0].prediction, early[0].f1 = "success", '["early"]', 0.25
    archive("mm_agentic_smoke5_early", early, "mm_bench/agentic/full2703/claude_opus_4_6",
            "early", {(early[0].qid, early[0].run_index)}, sample=True)
    wh.add_meta_model("_archive/mm_agentic_smoke5_early", "claude_opus_4_6")
    # The same early run for a benchmark/model with no current run at all.
    archive("agent_ehr_bench_smoke3_gpt_oss_120b_early", make_results(rng, 3), None, "early",
            set())
    archive("ehr_bench_agentic_full1800_gpt_oss_120b_pre_retry", make_results(rng, 3), None,
            "orphaned", set())
    archive("2024-03 misc backup", make_results(rng, 2), None, "unknown", set())
    return {"con": wh.finish(), "plan": plan, "results": wh.results}


def test_every_archive_is_linked_as_planted(planted: dict[str, Any]) -> None:
    con, plan = planted["con"], planted["plan"]
    got = {row[0]: row[1:] for row in con.execute(
        "SELECT archived_run_id, archive_name, relation, superseded_by_run_id, "
        "results_identical, match_kind FROM archive_lineage").fetchall()}
    assert set(got) == set(plan)  # no archive dropped, none invented
    for run_id, want in plan.items():
        kind = None if want["superseded_by"] is None else (
            "full_split" if want["sample"] else "split")
        assert got[run_id] == (want["archive_name"], want["relation"], want["superseded_by"],
                               want["identical"], kind), run_id


def test_model_inferred_from_metadata_when_name_lacks_it(planted: dict[str, Any]) -> None:
    row = planted["con"].execute(
        "SELECT model, model_source FROM archive_lineage "
        "WHERE archived_run_id = '_archive/mm_agentic_smoke5_early'").fetchone()
    assert row == ("claude_opus_4_6", "metadata")


def test_mode_inferred_from_results_when_name_lacks_it(planted: dict[str, Any]) -> None:
    row = planted["con"].execute(
        "SELECT mode, mode_source, n_candidates FROM archive_lineage "
        "WHERE archived_run_id = '_archive/ehr_bench_opus46_1800_pre_ssl_retry'").fetchone()
    # Two current opus full1800 runs exist (agentic and oneshot): only the mode tells them apart.
    assert row == ("agentic", "results", 1)


def test_unparseable_archive_is_kept_with_unknown_fields(planted: dict[str, Any]) -> None:
    row = planted["con"].execute(
        "SELECT parsed_by, benchmark, model, split, relation, superseded_by_run_id, "
        "n_archived_results, mode_source FROM archive_lineage "
        "WHERE archive_name = '2024-03 misc backup'").fetchone()
    results = planted["results"]["_archive/2024-03 misc backup"]
    assert row[:-1] == ("unparsed", None, None, None, "unknown", None, len(results))
    # The name gives no mode; the results may (agentic records say success / incomplete).
    shows_agentic = any(r.status in ("success", "incomplete") for r in results)
    assert row[-1] == ("results" if shows_agentic else None)


def test_diff_lists_exactly_the_planted_changes(planted: dict[str, Any]) -> None:
    con, plan, results = planted["con"], planted["plan"], planted["results"]
    for run_id, want in plan.items():
        rows = con.execute(
            "SELECT qid, run_index, change, current_run_id FROM archive_diff "
            "WHERE archived_run_id = ?", [run_id]).fetchall()
        old = {(r.qid, r.run_index): r for r in results[run_id]}
        if want["superseded_by"] is None or not old:
            new: dict = {}
            expected_keys = set(old)
        else:
            new = {(r.qid, r.run_index): r for r in results[want["superseded_by"]]}
            expected_keys = set(old) if want["sample"] else set(old) | set(new)
        got = {(q, i): change for q, i, change, _ in rows}
        assert set(got) == expected_keys, run_id
        assert {cur for *_, cur in rows} <= {want["superseded_by"]}
        for key, change in got.items():
            assert change == expected_change(old.get(key), new.get(key) if new else None), key
        differing = {k for k, c in got.items()
                     if c not in ("same", "only_archived", "only_current")}
        assert differing == want["changed"], run_id


def test_formatting_of_a_prediction_is_not_a_change(planted: dict[str, Any]) -> None:
    con, results = planted["con"], planted["results"]
    kimi = "_archive/ehr_bench_oneshot_full1800_kimi_k2_5_pre_retry"
    new = {(r.qid, r.run_index): r for r in results["ehr_bench/oneshot/full1800/kimi_k2_5"]}
    rows = con.execute(
        "SELECT qid, run_index, change, prediction_changed, prediction_text_changed "
        "FROM archive_diff WHERE archived_run_id = ?", [kimi]).fetchall()
    reformatted = 0
    for qid, run_index, change, pred_changed, text_changed in rows:
        old_r = next(r for r in results[kimi] if (r.qid, r.run_index) == (qid, run_index))
        new_r = new[(qid, run_index)]
        assert pred_changed == (answer(old_r.prediction) != answer(new_r.prediction))
        assert text_changed == (old_r.prediction != new_r.prediction)
        if text_changed and not pred_changed and old_r.status == new_r.status:
            reformatted += 1
            assert change == "same", qid
    assert reformatted >= 3


def test_lineage_counts_match_the_diff(planted: dict[str, Any]) -> None:
    con = planted["con"]
    for run_id, n_changed, n_fixed, n_broke, n_only_current in con.execute(
            "SELECT archived_run_id, n_changed, n_fixed, n_broke, n_only_current "
            "FROM archive_lineage").fetchall():
        changes = [c for (c,) in con.execute(
            "SELECT change FROM archive_diff WHERE archived_run_id = ?", [run_id]).fetchall()]
        assert n_fixed == changes.count("fixed") and n_broke == changes.count("broke")
        assert n_only_current == changes.count("only_current")
        assert n_changed == len(planted["plan"][run_id]["changed"])


def test_run_sources_shows_symlinks_and_foreign_files() -> None:
    con = duckdb.connect()
    apply_schema(con)
    link = "mm_bench/agentic/full2703/kimi_k2_5"
    raw = f"{ROOT}/mm_bench/agentic/full2703/_multi_eval_raw/full5_x/kimi-k2-5"
    plain = "ehr_bench/agentic/full1800/glm_4_7"
    con.executemany("INSERT INTO runs (run_id, path, real_path, is_archived) VALUES (?,?,?,?)",
                    [[link, link, raw, False], [plain, plain, f"{ROOT}/{plain}", False]])
    files = [
        ("a", link, f"{link}/merged_unique.jsonl", f"{raw}/merged_unique.jsonl",
         "results_merged", True),
        ("b", link, f"{link}/us-east-1/results.jsonl", f"{raw}/us-east-1/results.jsonl",
         "results_shard", True),
        ("c", link, f"{link}/us-east-1/run.log", f"{raw}/us-east-1/run.log", "run_log", True),
        ("d", link, "mm_bench/agentic/scored/kimi_k2_5/summary_vocab.json",
         f"{ROOT}/mm_bench/agentic/full2703/_multi_eval_raw/full5_x/scored_vocab/kimi-k2-5/"
         "summary_vocab.json", "summary_vocab", True),
        ("e", plain, f"{plain}/results.jsonl", f"{ROOT}/{plain}/results.jsonl", "results_top",
         True),
        ("f", plain, f"{plain}/pid.txt", f"{ROOT}/{plain}/pid.txt", "pid", False),
    ]
    con.executemany("INSERT INTO files (file_id, run_id, path, real_path, kind, loaded) "
                    "VALUES (?,?,?,?,?,?)", [list(f) for f in files])
    # A manifest shard row of the raw run (no run_id) maps to the run through model_tag.
    con.execute("INSERT INTO files (file_id, path, real_path, kind) VALUES ('m', ?, ?, "
                "'manifest')", ["mm_bench/agentic/full2703/_multi_eval_raw/full5_x/manifest.json",
                                f"{ROOT}/mm_bench/agentic/full2703/_multi_eval_raw/full5_x/"
                                "manifest.json"])
    con.execute("INSERT INTO run_regions (file_id, source, model_tag, region, backend_model_id) "
                "VALUES ('m', 'manifest', 'kimi-k2-5', 'us-east-1', 'moonshotai.kimi-k2.5')")
    apply_views(con)
    rows = {r[0]: r[1:] for r in con.execute(
        "SELECT run_id, logical_path, real_path, is_symlinked, n_files, n_loaded_files, "
        "n_files_elsewhere, kinds, n_real_dirs FROM run_sources").fetchall()}
    for run_id in (link, plain):
        mine = [f for f in files if f[1] == run_id]
        real = {link: raw, plain: f"{ROOT}/{plain}"}[run_id]
        kinds = sorted({f[4] for f in mine})
        assert rows[run_id] == (
            run_id, real, run_id == link, len(mine), sum(f[5] for f in mine),
            sum(not f[3].startswith(real + "/") for f in mine),
            ", ".join(f"{k}:{sum(f[4] == k for f in mine)}" for k in kinds),
            len({f[3].rsplit("/", 1)[0] for f in mine}))
    backends = con.execute("SELECT run_id, source, region, backend_model_id FROM run_backends"
                           ).fetchall()
    assert backends == [(link, "manifest", "us-east-1", "moonshotai.kimi-k2.5")]


def test_cli_lists_archives_and_one_diff(planted: dict[str, Any], tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    planted["con"].execute("ATTACH ? AS out", [str(db)])
    planted["con"].execute("COPY FROM DATABASE memory TO out")
    planted["con"].execute("DETACH out")
    runner = CliRunner()
    listing = runner.invoke(lineage_command, ["--db", str(db), "--format", "csv"])
    assert listing.exit_code == 0, listing.output
    lines = listing.output.strip().splitlines()
    assert len(lines) == 1 + len(planted["plan"])
    kimi = "_archive/ehr_bench_oneshot_full1800_kimi_k2_5_pre_retry"
    diff = runner.invoke(lineage_command, ["--db", str(db), "--format", "csv",
                                           kimi.split("/", 1)[1]])
    assert diff.exit_code == 0, diff.output
    listed = {tuple(line.split(",")[:2]) for line in diff.output.strip().splitlines()[1:]}
    assert listed == {(q, str(i)) for q, i in planted["plan"][kimi]["changed"]}
    missing = runner.invoke(lineage_command, ["--db", str(db), "no_such_archive"])
    assert missing.exit_code != 0 and "no archived run" in missing.output
    absent = runner.invoke(lineage_command, ["--db", str(tmp_path / "nope.duckdb")])
    assert absent.exit_code != 0 and "not found" in absent.output
