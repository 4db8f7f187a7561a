"""The synthetic tree generator: formats, truth file exactness, determinism, CLI."""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from etl.cli import cli
from etl.synth import generate
from etl.synth.writer import COPY_RANK
from tests.synth.digest import tree_digest

KINDS = {"results_merged", "results_top", "results_shard", "results_steal",
         "results_steal_copy", "input", "scored", "rescored", "per_question", "summary",
         "summary_vocab", "scores_json", "multi_summary", "manifest", "status", "region_map",
         "cmd", "pid", "run_log", "mcp_log", "markdown", "text", "other",
         # what the authors' helper and analysis scripts add (etl/synth/helper_outputs.py)
         "tool_json", "repaired_results", "repair_summary", "ccs_task_scores",
         "mm_classification"}
M5 = ("precision", "recall", "f1", "accuracy", "subset_match")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("synth") / "tree"
    truth = generate(out, scale="demo", seed=7, damage=True)
    assert json.loads(Path(f"{out}.truth.json").read_text()) == truth
    return out, truth


def status_of(obj: dict[str, Any]) -> str:
    """A record's status; without one (raw QA rows of eval_ehrbench_qa.py) success when
    completed, error with an error text, else incomplete (DESIGN.md)."""
    if "status" in obj:
        return obj["status"]
    return "success" if obj.get("completed") is True else "error" if obj.get("error") \
        else "incomplete"


def lines_of(path: Path) -> list[bytes]:
    data = path.read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    parts = data.split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()
    return [p[:-1] if p.endswith(b"\r") else p for p in parts]


def damage_holds(kind: str, raw: bytes, line_no: int | None) -> bool:
    """Is the planted damage of `kind` really at line_no of the file bytes `raw`?"""
    lines = raw.split(b"\n")
    line = lines[line_no - 1] if line_no else b""
    if kind == "truncated_line":
        return line_no == len(lines) and not raw.endswith(b"\n")
    if kind == "two_objects_one_line":
        text = line.decode()  # raw_decode's end is a character index, not a byte index
        first, end = json.JSONDecoder().raw_decode(text)
        return isinstance(first, dict) and isinstance(orjson.loads(text[end:]), dict)
    if kind in ("bare_nan", "bare_infinity"):
        token = rb"NaN" if kind == "bare_nan" else rb"Infinity"
        return re.search(rb":\s*" + token + rb"\b", line) is not None
    if kind == "json_array_line":
        return isinstance(orjson.loads(line), list)
    if kind == "invalid_utf8":
        return b"\xff\xfe" in line
    if kind == "crlf_line_endings":
        return raw.count(b"\r\n") == raw.count(b"\n")
    if kind == "utf8_bom":
        return raw.startswith(b"\xef\xbb\xbf")
    if kind == "blank_line":
        return line.strip() == b""
    if kind == "garbage_line":
        return not line.startswith(b"{")
    if kind == "missing_qid":
        return "qid" not in orjson.loads(line)
    return False


def jsonl_files(truth: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in truth["files"] if f["path"].endswith(".jsonl")]


def test_every_kind_present(tree: tuple[Path, dict[str, Any]]) -> None:
    _, truth = tree
    assert {f["kind"] for f in truth["files"]} == KINDS


def test_truth_lists_every_file(tree: tuple[Path, dict[str, Any]]) -> None:
    out, truth = tree
    on_disk = set()
    for dirpath, _, names in os.walk(out, followlinks=True):
        for n in names:
            rel = os.path.relpath(os.path.join(dirpath, n), out)
            on_disk.add(rel)
    listed = {f["path"] for f in truth["files"]}
    # files under _multi_eval_raw are listed once, by their logical (symlink) path
    assert listed <= on_disk
    assert {p for p in on_disk if "_multi_eval_raw" not in p} <= listed


def test_lines_parse_except_planted_damage(tree: tuple[Path, dict[str, Any]]) -> None:
    out, truth = tree
    damaged = {(d["path"], d["line_no"]): d for d in truth["damage"]}
    assert {d["severity"] for d in truth["damage"]} == {"error", "repaired", "benign"}
    for f in jsonl_files(truth):
        for no, line in enumerate(lines_of(out / f["path"]), 1):
            planted = damaged.get((f["path"], no))
            if planted is None:
                assert isinstance(orjson.loads(line), dict), (f["path"], no)
            elif planted["kind"] == "blank_line":
                assert line == b""
            elif planted["kind"] == "missing_qid":
                assert "qid" not in orjson.loads(line)
            elif planted["kind"] in ("bare_nan", "bare_infinity"):
                # writer-valid (Python json.dumps), not strict JSON
                assert planted["severity"] == "benign"
                assert isinstance(json.loads(line), dict)
            elif planted["severity"] == "benign":
                assert isinstance(orjson.loads(line), dict)
            else:
                try:  # strict JSON must not see one object here
                    parsed = orjson.loads(line)
                except orjson.JSONDecodeError:
                    parsed = None
                assert not isinstance(parsed, dict), planted


def test_damage_manifest_matches_files(tree: tuple[Path, dict[str, Any]]) -> None:
    out, truth = tree
    kinds = {d["kind"] for d in truth["damage"]}
    assert {"truncated_line", "two_objects_one_line", "bare_nan", "bare_infinity",
            "json_array_line", "garbage_line", "missing_qid", "invalid_utf8", "crlf_line_endings",
            "utf8_bom", "blank_line"} <= kinds
    for d in truth["damage"]:
        assert damage_holds(d["kind"], (out / d["path"]).read_bytes(), d["line_no"]), d
    # and nothing unplanted: every non-clean line of every JSONL file is in the manifest
    planted = {(d["path"], d["line_no"]) for d in truth["damage"]}
    for f in jsonl_files(truth):
        for no, line in enumerate(lines_of(out / f["path"]), 1):
            try:
                ok = isinstance(orjson.loads(line), dict) and "qid" in orjson.loads(line)
            except orjson.JSONDecodeError:
                ok = False
            if not ok and f["kind"].startswith(("results", "scored", "rescored")):
                assert (f["path"], no) in planted, (f["path"], no)


def test_file_counts_match(tree: tuple[Path, dict[str, Any]]) -> None:
    out, truth = tree
    for f in truth["files"]:
        raw = (out / f["path"]).read_bytes()
        assert f["n_lines"] == raw.count(b"\n") + (0 if raw.endswith(b"\n") or not raw else 1)
        if f["path"].endswith(".jsonl"):
            n = 0
            decoder = json.JSONDecoder()
            for line in lines_of(out / f["path"]):
                text = line.decode("utf-8", errors="replace").strip()
                pos = 0
                try:
                    while pos < len(text):
                        obj, pos = decoder.raw_decode(text, pos)
                        n += isinstance(obj, dict)
                except ValueError:
                    pass  # truncated / garbage lines hold no complete object
            assert f["n_records"] == n, f["path"]


def test_runs_results_and_duplicates(tree: tuple[Path, dict[str, Any]]) -> None:
    """Recount every run's results from the files with the DESIGN.md copy rules."""
    out, truth = tree
    copies: dict[tuple[str, str, int], list[tuple[int, str, int, str]]] = defaultdict(list)
    decoder = json.JSONDecoder()
    for f in truth["files"]:
        if f["kind"] not in COPY_RANK:
            continue
        for no, line in enumerate(lines_of(out / f["path"]), 1):
            text = line.decode("utf-8", errors="replace")
            pos = 0
            try:
                while pos < len(text.rstrip()):
                    obj, pos = decoder.raw_decode(text, pos)
                    if isinstance(obj, dict) and "qid" in obj:
                        key = (f["run_id"], obj["qid"], obj.get("run_index") or 1)
                        copies[key].append((COPY_RANK[f["kind"]], f["path"], -no,
                                            status_of(obj)))
            except ValueError:
                pass
    per_run: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for (run_id, _, _), cs in copies.items():
        status = min(cs)[3]
        per_run[run_id]["success" if status == "ok" else status] += 1
    for run in truth["runs"]:
        got = per_run.get(run["run_id"], {})
        assert run["n_results"] == sum(got.values()), run["run_id"]
        assert {k: v for k, v in run["n_status"].items() if v} == dict(got), run["run_id"]
    dups = {(d["run_id"], d["qid"], d["run_index"]): d for d in truth["duplicates"]}
    assert dups.keys() == {k for k, v in copies.items() if len(v) > 1}
    for key, d in dups.items():
        best = min(copies[key])
        assert (d["winner"]["path"], d["winner"]["line_no"]) == (best[1], -best[2])
    # a result rewritten on resume: same (qid, run_index) twice in one file
    assert any(len({c["path"] for c in d["copies"]}) < len(d["copies"])
               for d in truth["duplicates"])


def test_shards_union_to_merged(tree: tuple[Path, dict[str, Any]]) -> None:
    out, truth = tree
    by_run: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for f in truth["files"]:
        if f["kind"] in ("results_merged", "results_shard", "results_steal"):
            for line in lines_of(out / f["path"]):
                text = line.decode("utf-8", errors="replace")
                try:
                    pos = 0
                    while pos < len(text):
                        obj, pos = json.JSONDecoder().raw_decode(text, pos)
                        if "qid" in obj:
                            by_run[f["run_id"]][f["kind"]].add(obj["qid"])
                except ValueError:
                    pass
    raw_runs = [r for r, k in by_run.items() if "results_merged" in k]
    assert raw_runs
    for run in raw_runs:
        kinds = by_run[run]
        shards = kinds["results_shard"] | kinds["results_steal"]
        assert kinds["results_merged"] <= shards  # (truncated merged lines: still in shards)
        shard_only = shards - kinds["results_merged"]
        assert 1 <= len(shard_only) <= 3, run  # planted: rows that missed the merge


def test_steal_copies_identical(tree: tuple[Path, dict[str, Any]]) -> None:
    out, truth = tree
    steals = [f["path"] for f in truth["files"] if f["kind"] == "results_steal"]
    assert steals
    for p in steals:
        region = Path(p).parent
        nn = Path(p).stem.rsplit("_", 1)[-1]
        copy = out / region / f"steal_{nn}" / "results.jsonl"
        assert copy.read_bytes() == (out / p).read_bytes()


def test_symlinks_resolve(tree: tuple[Path, dict[str, Any]]) -> None:
    out, truth = tree
    outside = [s for s in truth["symlinks"] if s["outside_root"]]
    assert len(outside) == 1 and not os.path.isabs(outside[0]["target"])
    for s in truth["symlinks"]:
        link = out / s["path"]
        assert os.readlink(link) == s["target"] and link.resolve().is_dir()
        inside = link.resolve().is_relative_to(out.resolve())
        assert inside != s["outside_root"]
    assert (out / outside[0]["path"]).resolve().is_relative_to(Path(f"{out}.external").resolve())


def test_summary_disagreements_planted(tree: tuple[Path, dict[str, Any]]) -> None:
    out, truth = tree
    assert len(truth["summary_disagreements"]) >= 3
    for d in truth["summary_disagreements"]:
        obj = json.loads((out / d["path"]).read_text())
        for key in d["json_path"][2:].split("."):
            obj = obj[key]
        assert obj == d["reported"] != d["true"]


def _files(truth: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [f for f in truth["files"] if f["kind"] == kind]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines_of(path) if line.strip()]


def _numbers(obj: Any, path: str = "$") -> dict[str, float]:
    if isinstance(obj, dict):
        return {k: v for key, child in obj.items() for k, v in _numbers(child, f"{path}.{key}")
                .items()}
    return {path: obj} if isinstance(obj, int | float) and not isinstance(obj, bool) else {}


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def _assert_same_numbers(path: str, got: dict[str, Any], want: dict[str, Any],
                         planted: set[tuple[str, str]]) -> None:
    g, w = _numbers(got), _numbers(want)
    assert set(g) == set(w), (path, set(g) ^ set(w))
    for jp, value in w.items():
        if (path, jp) not in planted:
            assert g[jp] == pytest.approx(value, abs=1e-9), (path, jp)


def test_summary_vocab_is_the_rescorers(tree: tuple[Path, dict[str, Any]]) -> None:
    """rescore_mm_vocab.process_scored_file(): len1 = judge rows (count, accuracy only),
    len2plus = set rows, incomplete rows only in unified_*; no total / incomplete keys."""
    out, truth = tree
    planted = {(d["path"], d["json_path"]) for d in truth["summary_disagreements"]}
    files = _files(truth, "summary_vocab")
    assert files
    for f in files:
        rows = _jsonl(out / f["path"].replace("summary_vocab.json", "rescored.jsonl"))
        by_route: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(
            lambda: defaultdict(list))
        for r in rows:
            by_route[r["route"]][r["task"]].append(r)
        judge, sets = by_route["llm_judge"], by_route["set_f1"]
        uni: dict[str, list[dict[str, float]]] = defaultdict(list)
        for r in rows:
            v = {"llm_judge": float(bool(r.get("correct"))), "incomplete": 0.0}.get(r["route"])
            uni[r["task"]].append({k: r[k] if v is None else v for k in M5})
        all_sets = [r for v in sets.values() for r in v]
        all_judge = [r for v in judge.values() for r in v]
        all_uni = [x for v in uni.values() for x in v]
        want = {
            "len2plus_count": len(all_sets),
            **{f"len2plus_{k}": _mean([r[k] for r in all_sets]) for k in M5},
            "len1_count": len(all_judge),
            "len1_accuracy": _mean([float(bool(r["correct"])) for r in all_judge]),
            "per_task_len2plus_vocab": {t: {"count": len(v), **{k: _mean([r[k] for r in v])
                                                               for k in M5}}
                                        for t, v in sets.items()},
            "per_task_len1": {t: {"count": len(v),
                                  "accuracy": _mean([float(bool(r["correct"])) for r in v])}
                              for t, v in judge.items()},
            "unified_count": len(all_uni),
            **{f"unified_{k}": _mean([x[k] for x in all_uni]) for k in M5[:4]},
            "per_task_unified": {t: {"count": len(v), **{k: _mean([x[k] for x in v])
                                                        for k in M5}}
                                 for t, v in uni.items()},
            "vocab_threshold": 0.55,
        }
        got = json.loads((out / f["path"]).read_text())
        assert "total" not in got and "incomplete" not in got
        _assert_same_numbers(f["path"], got, want, planted)


def test_summary_json_is_the_scorers_aggregate(tree: tuple[Path, dict[str, Any]]) -> None:
    """score_multimodal.aggregate(): incomplete rows count in len1 or len2plus by len_gold;
    set rows' accuracy is the Jaccard overlap and subset_match set equality."""
    out, truth = tree
    planted = {(d["path"], d["json_path"]) for d in truth["summary_disagreements"]}
    checked = 0
    for f in _files(truth, "summary"):
        scored = out / f["path"].replace("summary.json", "scored.jsonl")
        if not scored.exists():
            continue
        checked += 1
        rows = _jsonl(scored)
        for r in rows:
            if r["route"] == "set_f1":
                p = {x.strip().lower() for x in r.get("prediction_strs_mapped",
                                                       r["prediction_strs"]) if x.strip()}
                g = {x.strip().lower() for x in r["gold_names"]}
                assert r["accuracy"] == pytest.approx(len(p & g) / len(p | g))
                assert r["subset_match"] == float(p == g)
        l1: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in rows:
            if r["route"] == "llm_judge" or (r["route"] == "incomplete" and r["len_gold"] < 2):
                l1[r["task"]].append(r)
        got = json.loads((out / f["path"]).read_text())
        assert got["total"] == len(rows)
        assert got["incomplete"] == sum(r["route"] == "incomplete" for r in rows)
        assert got["len1_count"] == sum(len(v) for v in l1.values())
        for t, v in l1.items():
            entry = got["per_task_len1"][t]
            correct = sum(bool(r["correct"]) for r in v if r["route"] == "llm_judge")
            want = {"count": len(v), "incomplete": sum(r["route"] == "incomplete" for r in v)}
            if (f["path"], f"$.per_task_len1.{t}.correct") not in planted:
                want |= {"correct": correct, "accuracy": correct / len(v)}
            assert {k: entry[k] for k in want} == pytest.approx(want)
            subtypes = [r["judge_subtype"] for r in v if r["route"] == "llm_judge"]
            assert entry["by_subtype"] == {s: subtypes.count(s) for s in set(subtypes)}
    assert checked >= 3


def test_text_scores_count_questions_like_score_text(tree: tuple[Path, dict[str, Any]]) -> None:
    """score_text.py: per_question has every benchmark question of the run; completed counts
    questions with at least one run, runs counts runs; no exact_match in the payload."""
    out, truth = tree
    runs = {r["run_id"]: r for r in truth["runs"]}
    shapes = {d["path"]: d["shape"] for d in truth["score_shapes"]}
    files = [f for f in truth["files"] if f["path"] in shapes]
    assert {shapes[f["path"]] for f in files} == {"output", "output_dir", "flat"}
    for f in files:
        got = json.loads((out / f["path"]).read_text())
        if shapes[f["path"]] == "flat":  # legacy {task: {...}}: every question in one task
            assert "per_task" not in got and "overall" not in got
            assert sum(b["total"] for b in got.values()) == runs[f["run_id"]][
                "expected_questions"]
            assert all("turns_avg" not in b for b in got.values())
            continue
        records = _jsonl(out / f["path"].rsplit("/", 1)[0] / "per_question.jsonl")
        assert len({r["qid"] for r in records}) == len(records)
        assert len(records) == runs[f["run_id"]]["expected_questions"]
        groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        for r in records:
            groups[("per_task", r["task"])].append(r)
            groups[("per_task_type", r["task_type"])].append(r)
        blocks = [(got["overall"], records)] + [(got[s][t], v) for (s, t), v in groups.items()]
        for block, recs in blocks:
            assert "exact_match" not in block
            assert block["total"] == len(recs)
            assert block["completed"] == sum(bool(r["runs"]) for r in recs)
            assert block["runs"] == sum(len(r["runs"]) for r in recs)
        for (scope, task), recs in groups.items():
            sources = [x["prediction_source"] for r in recs for x in r["runs"]]
            assert got[scope][task]["prediction_sources"] == {
                s: sources.count(s) for s in set(sources)}


def test_archives(tree: tuple[Path, dict[str, Any]]) -> None:
    _, truth = tree
    runs = {r["run_id"]: r for r in truth["runs"]}
    arcs = truth["archives"]
    assert any(a["superseded_by"] is None and a["relation"] != "unknown" for a in arcs)
    assert any(a["relation"] == "unknown" for a in arcs)
    assert any(a["changed"] for a in arcs)
    current = {(r["benchmark"], r["mode"], r["model"]) for r in truth["runs"]
               if not r["is_archived"]}
    for a in arcs:
        assert runs[a["run_id"]]["is_archived"]
        if a["superseded_by"]:
            sup = runs[a["superseded_by"]]
            assert not sup["is_archived"]
            assert (sup["benchmark"], sup["mode"], sup["model"]) == (
                a["benchmark"], a["mode"], a["model"])
        # orphaned: a readable name whose benchmark, mode and model have no current run
        orphan = a["benchmark"] is not None and (a["benchmark"], a["mode"], a["model"]) \
            not in current
        assert (a["relation"] == "orphaned") == orphan, a["run_id"]
        assert not orphan or a["superseded_by"] is None
        # changed questions are shared with the superseding run, each with what changed
        for c in a["changed"]:
            assert a["superseded_by"] and c["fields"]
            assert set(c["fields"]) <= {"status", "prediction"}


def test_deterministic(tmp_path: Path) -> None:
    generate(tmp_path / "a" / "t", seed=3, damage=True)
    generate(tmp_path / "b" / "t", seed=3, damage=True)
    generate(tmp_path / "c" / "t", seed=4, damage=True)
    a = tree_digest(tmp_path / "a" / "t")
    assert a == tree_digest(tmp_path / "b" / "t")
    assert a != tree_digest(tmp_path / "c" / "t")


def test_cli_help_and_refusal(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["synth", "--help"])
    assert result.exit_code == 0 and "--bench-gb" in result.output
    out = tmp_path / "t"
    out.mkdir()
    result = runner.invoke(cli, ["synth", str(out)])
    assert result.exit_code != 0 and "already exists" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    result = runner.invoke(cli, ["synth", str(out), "--force"])
    assert result.exit_code == 0, result.output
    assert Path(f"{out}.truth.json").exists()
