"""The fuzzer's invariant, checked on a built warehouse (issue 12): the ingest finishes, and
every line of every generated file ends as exactly what tests/strategies.py says it must:
a loaded record under its key (results / question_scores rows naming file and line), a
counted duplicate copy, or a reject naming its file and line. Shared by the property test
(tests/fuzz/test_fuzz_ingest.py) and the saved failures it replays (tests/fuzz_regressions/)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path

import duckdb

from etl.pipeline.ingest import IngestOptions, run_ingest
from tests.strategies import COPY_RANK, EXTRACTOR_FAMILY, RUN_OF_PATH, TreeSpec

REGRESSIONS_DIR = Path(__file__).parent / "fuzz_regressions"
# Failing trees of `make fuzz` are written here (git-ignored); copy one into
# tests/fuzz_regressions/ and it is replayed by tests/fuzz/test_fuzz_regressions.py for good.
FAILURES_DIR = Path(__file__).resolve().parent.parent / ".fuzz-failures"


def scratch_dir() -> Path:
    """A fresh directory on tmpfs when there is one: a warehouse build is then ~0.4 s
    instead of ~2 s (DuckDB syncs every COMMENT to disk)."""
    base = Path("/dev/shm") if os.access("/dev/shm", os.W_OK) else None
    return Path(tempfile.mkdtemp(prefix="etl-fuzz-", dir=base))


def write_tree(tree: TreeSpec, root: Path) -> None:
    for spec in tree.files:
        path = root / spec.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(spec.data())


def save_failure(tree: TreeSpec, error: BaseException) -> Path:
    text = json.dumps({"error": f"{type(error).__name__}: {error}"[:2000],
                       "tree": tree.to_json()}, indent=1)
    FAILURES_DIR.mkdir(exist_ok=True)
    path = FAILURES_DIR / f"{hashlib.sha256(text.encode()).hexdigest()[:16]}.json"
    path.write_text(text)
    return path


def ingest_and_check(tree: TreeSpec) -> None:
    work = scratch_dir()
    try:
        root, db = work / "tree", work / "w.duckdb"
        root.mkdir()
        write_tree(tree, root)
        # The tree stands for finished runs: an unterminated last line is damage at once,
        # not a line a writer is still on (etl/pipeline/segments.py).
        run_ingest(root, db, IngestOptions(jobs=1, wait_seconds=5,
                                           in_progress_seconds=0))
        con = duckdb.connect(str(db), read_only=True)
        try:
            check(tree, con)
        finally:
            con.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


Row = tuple[str, int, str, int | None]  # (path, line_no, qid, run_index)


def expected(tree: TreeSpec) -> tuple[Counter, Counter, Counter, dict, dict]:
    """(results rows, score rows (+ scorer), duplicates per path, error rejects per
    (path, line), lines allowed or required to carry a repaired reject) from the specs."""
    copies: dict[tuple, list[tuple[tuple, Row]]] = {}
    for spec in tree.files:
        family = EXTRACTOR_FAMILY.get(spec.kind)
        if family is None:
            continue
        # Results: one identity per run; score rows: per run and scorer (= file here).
        scope = RUN_OF_PATH[spec.path] if family == "results" else spec.path
        for line_no, line in enumerate(spec.lines, start=1):
            for obj_idx, obj in enumerate(line.objects):
                for qid, run_index in obj.keys or ():
                    order = ((COPY_RANK.get(spec.kind, 0), spec.path, -line_no, -obj_idx))
                    copies.setdefault((family == "results", scope, qid, run_index),
                                      []).append((order, (spec.path, line_no, qid, run_index)))
    results, scores, dups = Counter(), Counter(), Counter()
    for (is_result, _, _, _), found in copies.items():
        found.sort(key=lambda item: item[0])
        (results if is_result else scores)[found[0][1]] += 1
        for _, row in found[1:]:
            dups[row[0]] += 1
    errors: dict[tuple[str, int], int] = {}
    repair: dict[tuple[str, int], str] = {}  # "required" | "allowed"
    for spec in tree.files:
        for line_no, line in enumerate(spec.lines, start=1):
            where = (spec.path, line_no)
            if line.kind == "error":
                errors[where] = 1
            elif line.kind == "objects":
                n_bad = sum(1 for obj in line.objects if obj.keys is None)
                if n_bad:
                    errors[where] = n_bad
                if line.repaired:
                    repair[where] = "required"
                elif line.odd:
                    repair[where] = "allowed"
    return results, scores, dups, errors, repair


def check(tree: TreeSpec, con: duckdb.DuckDBPyConnection) -> None:
    want_results, want_scores, want_dups, want_errors, want_repair = expected(tree)

    def rows(sql: str) -> list[tuple]:
        return con.execute(sql).fetchall()

    got_results = Counter(rows(
        "SELECT f.path, r.line_no, r.qid, r.run_index FROM results r "
        "JOIN files f USING (file_id)"))
    assert got_results == want_results, _diff("results", got_results, want_results)
    # Every loaded result has one row of each scorer computed here (DESIGN "Scores"): the
    # authors' text scorer, its text-fallback option, the normalized set_f1, and the authors'
    # benchmark-specific rule (authors_mm_set for mm_bench, authors_text_legacy otherwise).
    for scorer in ("set_f1", "authors_text", "authors_text_fallback", "benchmark rule"):
        where = ("q.scorer = ?" if scorer != "benchmark rule" else
                 "q.scorer = CASE WHEN f.path LIKE 'mm_bench/%' THEN 'authors_mm_set' "
                 "ELSE 'authors_text_legacy' END AND ? IS NOT NULL")
        got = Counter(con.execute(
            "SELECT f.path, q.line_no, q.qid, q.run_index FROM question_scores q "
            f"JOIN files f USING (file_id) WHERE {where}", [scorer]).fetchall())
        assert got == want_results, _diff(f"{scorer} scores", got, want_results)
    # The paper's two board rules score every text result (never an mm_bench one).
    want_text = Counter({k: n for k, n in want_results.items()
                         if not k[0].startswith("mm_bench/")})
    for scorer in ("paper_text", "paper_agentehr"):
        got = Counter(con.execute(
            "SELECT f.path, q.line_no, q.qid, q.run_index FROM question_scores q "
            "JOIN files f USING (file_id) WHERE q.scorer = ?", [scorer]).fetchall())
        assert got == want_text, _diff(f"{scorer} scores", got, want_text)
    got_scores = Counter(rows(
        "SELECT f.path, q.line_no, q.qid, q.run_index FROM question_scores q "
        "JOIN files f USING (file_id) WHERE q.scorer IN ('scored', 'rescored', 'per_question')"))
    assert got_scores == want_scores, _diff("score rows", got_scores, want_scores)
    n_other = rows("SELECT count(*) FROM question_scores WHERE scorer NOT IN ('set_f1', "
                   "'authors_text', 'authors_text_fallback', 'authors_mm_set', "
                   "'authors_text_legacy', 'scored', 'rescored', 'per_question', 'paper_text', "
                   "'paper_agentehr')")[0][0]
    assert n_other == 0, f"{n_other} score rows of an unknown scorer"

    got_dups = Counter({path: n for path, n in rows(
        "SELECT path, n_duplicates FROM files WHERE n_duplicates > 0")})
    assert got_dups == want_dups, _diff("files.n_duplicates", got_dups, want_dups)

    rejects = rows("SELECT path, line_no, severity, error FROM rejects")
    got_errors = Counter((p, n) for p, n, sev, _ in rejects if sev == "error" and n is not None)
    assert got_errors == Counter(want_errors), _diff("error rejects", got_errors,
                                                     Counter(want_errors))
    repaired = {(p, n) for p, n, sev, _ in rejects if sev == "repaired" and n is not None}
    required = {w for w, how in want_repair.items() if how == "required"}
    assert required <= repaired, f"lines not listed as repaired: {sorted(required - repaired)}"
    stray = repaired - set(want_repair)
    assert not stray, f"clean lines listed as repaired: {sorted(stray)} " + str(
        [r for r in rejects if (r[0], r[1]) in stray][:3])
    assert all(sev in ("error", "repaired") for _, _, sev, _ in rejects)

    # Whole-file documents: their numbers are loaded, or the file is one reject.
    summaries = {spec.path: spec for spec in tree.files if spec.kind == "summary"}
    file_rejects = Counter((p, sev) for p, n, sev, _ in rejects if n is None)
    for path, spec in summaries.items():
        (n_numbers,), = rows_for(con, "SELECT count(*) FROM summary_metrics m JOIN files f "
                                      "USING (file_id) WHERE f.path = ?", path)
        if spec.n_numbers is None:
            assert file_rejects[(path, "error")] == 1, f"{path}: no file reject"
            assert n_numbers == 0
        else:
            assert file_rejects[(path, "error")] == 0, f"{path}: rejected"
            assert n_numbers == spec.n_numbers, f"{path}: {n_numbers} != {spec.n_numbers}"
    others = [key for key in file_rejects if key[0] not in summaries]
    assert not others, f"file-level rejects of line files: {others} " + str(
        [r for r in rejects if r[1] is None][:3])


def rows_for(con: duckdb.DuckDBPyConnection, sql: str, *params: object) -> list[tuple]:
    return con.execute(sql, list(params)).fetchall()


def _diff(what: str, got: Counter, want: Counter) -> str:
    missing = want - got
    extra = got - want
    return (f"{what}: missing {sorted(missing.items(), key=repr)[:5]}, "
            f"unexpected {sorted(extra.items(), key=repr)[:5]}")
