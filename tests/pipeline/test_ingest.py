"""The ingest on a synthetic demo tree with planted damage: every well-formed record lands
once, every damaged line is in rejects at its line, counts per run match the generator."""

from __future__ import annotations

import collections
from pathlib import Path

import duckdb
import pytest

from tests.conftest import run_etl


@pytest.fixture(scope="module")
def con(demo_db: Path):
    c = duckdb.connect(str(demo_db), read_only=True)
    yield c
    c.close()


def test_every_run_has_the_results_the_generator_wrote(con, demo_tree):
    _, truth = demo_tree
    got = {r[0]: r[1:] for r in con.execute(
        "SELECT run_id, n_results, benchmark, mode, split, model, is_archived FROM runs"
    ).fetchall()}
    for run in truth["runs"]:
        assert run["run_id"] in got, f"run {run['run_id']} missing"
        n_results, benchmark, mode, split, model, is_archived = got[run["run_id"]]
        assert n_results == run["n_results"], run["run_id"]
        assert is_archived == run["is_archived"], run["run_id"]
        if not run["is_archived"]:
            assert (benchmark, mode, split, model) == (
                run["benchmark"], run["mode"], run["split"], run["model"]), run["run_id"]


def test_status_counts_per_run_match(con, demo_tree):
    _, truth = demo_tree
    got = collections.defaultdict(dict)
    for run_id, status, n in con.execute(
            "SELECT run_id, status, count(*) FROM results GROUP BY ALL").fetchall():
        got[run_id][status] = n
    for run in truth["runs"]:
        expected = {k: v for k, v in run["n_status"].items() if v}
        assert got.get(run["run_id"], {}) == expected, run["run_id"]


def test_results_are_unique_per_key(con):
    dupes = con.execute("SELECT run_id, qid, run_index, count(*) FROM results "
                        "GROUP BY ALL HAVING count(*) > 1").fetchall()
    assert dupes == []


def test_every_planted_damage_is_a_reject_at_its_line(con, demo_tree):
    _, truth = demo_tree
    rejects = collections.Counter(
        (path, line_no, severity) for path, line_no, severity in con.execute(
            "SELECT path, line_no, severity FROM rejects WHERE line_no IS NOT NULL").fetchall())
    planted_lines = set()
    for damage in truth["damage"]:
        key = (damage["path"], damage["line_no"])
        planted_lines.add(key)
        if damage["severity"] == "benign":
            assert not any((*key, s) in rejects for s in ("error", "repaired")), damage
        else:
            assert (*key, damage["severity"]) in rejects, damage
    unexplained = [k for k in rejects if (k[0], k[1]) not in planted_lines]
    assert unexplained == [], "rejects the generator did not plant"
    # Nor any whole-file reject: every file the generator wrote is readable as its kind.
    whole_file = con.execute("SELECT path, error FROM rejects WHERE line_no IS NULL "
                             "AND severity = 'error'").fetchall()
    assert whole_file == []


def test_every_file_is_recorded_with_its_kind_and_lines(con, demo_tree):
    _, truth = demo_tree
    got = {r[0]: r[1:] for r in con.execute(
        "SELECT path, kind, n_lines, loaded FROM files").fetchall()}
    for f in truth["files"]:
        assert f["path"] in got, f"file {f['path']} not in files"
        kind, n_lines, loaded = got[f["path"]]
        assert kind == f["kind"], f["path"]
        if loaded and f["path"].endswith(".jsonl"):
            assert n_lines == f["n_lines"], f["path"]


def test_preferred_copy_wins_and_copies_are_counted(con, demo_tree):
    _, truth = demo_tree
    assert truth["duplicates"], "the generator plants duplicate copies"
    where = {(r[0], r[1], r[2]): (r[3], r[4]) for r in con.execute(
        "SELECT r.run_id, r.qid, r.run_index, f.path, r.line_no FROM results r "
        "JOIN files f USING (file_id)").fetchall()}
    losers = 0
    for dup in truth["duplicates"]:
        key = (dup["run_id"], dup["qid"], dup["run_index"])
        assert where[key] == (dup["winner"]["path"], dup["winner"]["line_no"]), key
        losers += len(dup["copies"]) - 1
    total = con.execute("SELECT sum(n_duplicates) FROM files").fetchone()[0]
    assert total == losers


def test_children_belong_to_loaded_results(con):
    for table in ("messages", "tool_calls", "images"):
        orphans = con.execute(
            f"SELECT count(*) FROM {table} t ANTI JOIN results r "
            "USING (run_id, qid, run_index)").fetchone()[0]
        assert orphans == 0, table
    # The project's own scores exist for exactly the loaded results; the authors' score
    # files may score runs whose results are not in the tree (a rescoring archive).
    assert con.execute("SELECT count(*) FROM question_scores WHERE scorer = 'set_f1'"
                       ).fetchone()[0] == con.execute("SELECT count(*) FROM results").fetchone()[0]
    orphan_runs = {r[0] for r in con.execute(
        "SELECT DISTINCT run_id FROM question_scores t WHERE NOT EXISTS (SELECT 1 FROM "
        "results r WHERE r.run_id = t.run_id AND r.qid = t.qid)").fetchall()}
    runs_with_results = {r[0] for r in con.execute("SELECT DISTINCT run_id FROM results"
                                                    ).fetchall()}
    assert orphan_runs.isdisjoint(runs_with_results)
    # Each loaded result has exactly its own messages: counts agree.
    mismatched = con.execute(
        "SELECT count(*) FROM results r LEFT JOIN (SELECT run_id, qid, run_index, count(*) n "
        "FROM messages GROUP BY ALL) m USING (run_id, qid, run_index) "
        "WHERE coalesce(m.n, 0) <> r.n_messages").fetchone()[0]
    assert mismatched == 0


def test_symlinked_runs_keep_their_logical_path(con, demo_tree):
    root, truth = demo_tree
    assert truth["symlinks"], "the demo tree plants symlinked runs"
    files = con.execute("SELECT path, real_path FROM files").fetchall()
    for link in truth["symlinks"]:
        target = (root / link["path"]).resolve()
        assert target.is_relative_to(root.resolve()) != link["outside_root"], link
        # Every file of the link's target is listed once, under the link's logical path
        # (never under _multi_eval_raw/... when the target also lies inside the root).
        under_target = [(path, real) for path, real in files
                        if Path(real).resolve().is_relative_to(target)]
        assert under_target, f"no file loaded through {link['path']}"
        for path, _ in under_target:
            assert path.startswith(link["path"] + "/"), (link["path"], path)


def test_second_ingest_of_unchanged_tree_changes_nothing(demo_tree, tmp_path):
    root, _ = demo_tree
    db = tmp_path / "w.duckdb"
    first = run_etl("ingest", str(root), "--db", str(db), "--quiet")
    assert "results" in first.stdout
    before = _counts(db)
    second = run_etl("ingest", str(root), "--db", str(db), "--quiet")
    assert "nothing changed" in second.stdout
    assert _counts(db) == before


def test_check_reports_without_writing(demo_tree, tmp_path):
    root, truth = demo_tree
    out = run_etl("check", str(root), "--max-rejects", "100", cwd=tmp_path)
    assert "would ingest" in out.stdout
    runs_part = out.stdout.split("\nruns:\n")[1].split("\nrejects:\n")
    listed = [line.split(":")[0].strip() for line in runs_part[0].splitlines() if line.strip()]
    assert sorted(listed) == sorted(run["run_id"] for run in truth["runs"])
    assert list(tmp_path.iterdir()) == []
    # No table to look into once check is done: the rejects are listed, every planted one.
    assert "see table rejects" not in out.stdout
    summary_line = next(line for line in out.stdout.splitlines()
                        if line.startswith("  rejects "))
    assert summary_line.endswith("(listed below)"), summary_line
    listed = out.stdout.split("\nrejects:\n")[1]
    planted = [d for d in truth["damage"]
               if d["severity"] in ("error", "repaired") and d["line_no"] is not None]
    assert planted
    for damage in planted:
        assert f"{damage['path']}:{damage['line_no']}:" in listed, damage


def test_missing_root_is_a_clear_error(tmp_path):
    proc = run_etl("ingest", str(tmp_path / "nope"), "--db", str(tmp_path / "x.duckdb"),
                   check=False)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert "nope" in proc.stderr


def _counts(db: Path) -> dict[str, int]:
    c = duckdb.connect(str(db), read_only=True)
    try:
        tables = [r[0] for r in c.execute(
            "SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()]
        return {t: c.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
    finally:
        c.close()
