"""A smoke run of the benchmark harness on three small trees of different shapes: every row
is taken on each and fits in the run's wall time, every cold build is counted and the
second one profiled, the sizes it reports are the sizes of the
files on disk (measured here, independently), the ratios are the quotients of its rows,
each target is met or MISSED as hand arithmetic with the targets' numbers says, the no-op
re-ingest really is one, the touch parses nothing, the append loads exactly the one record
it appended and the tree is left as it was, the scaling rows are the rows of their trees;
our rows' figures are the ingest's own (`etl ingest --summary-json`, checked against the
database); and the dlt peer skips damaged lines, says so when dlt is missing, and is
stopped at its time or memory limit.
(The real figures come from `make bench` on bench-scale trees, not from this test.)"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import sys
import time
from pathlib import Path

import click
import duckdb
import pytest

from etl.bench import (
    DEFAULT_TREES,
    DLT_PEER,
    BenchError,
    Row,
    Settings,
    Tree,
    TreeSpec,
    _peer_row,
    dlt_row,
    format_report,
    format_targets,
    ingest_row,
    run_child,
    size_spread,
    targets,
)
from etl.cli.bench import parse_trees
from tests.conftest import run_etl

RESULT_FILE = re.compile(r"^(results|merged_unique|results_steal_\d+)\.jsonl$")
ROWS = ["floor", "naive", "dlt", "cold", "noop", "touch", "append", "cold_again"]
OURS = ("cold", "noop", "touch", "append", "cold_again")
TREES = ("default-seed7-2.5gb", "many-short-seed8-2.5gb", "many-copies-seed9-2.5gb")
HAVE_DLT = importlib.util.find_spec("dlt") is not None


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    """(report, data dir, wall seconds of the whole `etl bench` run as this test saw it,
    the tables it printed)."""
    data = tmp_path_factory.mktemp("bench")
    out = data / "bench.json"
    started = time.perf_counter()
    # --data relative to the working directory, as `make bench` passes it
    proc = run_etl("bench", "--data", "d", "--scale", "demo", "--trees",
                   "default:7,many-short:8,many-copies:9", "--scaling-gb", "0.6",
                   "--cold-builds", "3", "--json-out", str(out), "--jobs", "2", cwd=data)
    wall = time.perf_counter() - started
    table = proc.stdout.split("\n{", 1)[0]
    return json.loads(out.read_text()), data / "d", wall, table


def _rows(tree: dict) -> dict[str, dict]:
    return {r["key"]: r for r in tree["rows"]}


def _tree_files(tree: Path) -> dict[str, int]:
    """Every real file under the tree (symlinks followed, each real file once): size."""
    sizes: dict[str, int] = {}
    for dirpath, _, names in os.walk(tree, followlinks=True):
        for name in names:
            path = Path(dirpath) / name
            if path.is_file():
                sizes.setdefault(os.path.realpath(path), path.stat().st_size)
    return sizes


def _on_disk(db: Path) -> int:
    wal = Path(f"{db}.wal")
    return os.stat(db).st_size + (os.stat(wal).st_size if wal.exists() else 0)


def test_every_row_is_taken_on_every_tree_and_fits_in_the_run(bench):
    report, _, wall, table = bench
    assert [t["name"] for t in report["trees"]] == list(TREES)
    assert [t["shape"] for t in report["trees"]] == ["default", "many-short", "many-copies"]
    for tree in report["trees"]:
        rows = _rows(tree)
        assert [r["key"] for r in tree["rows"]] == ROWS
        for key, row in rows.items():
            if key == "dlt":  # not asked for
                assert row["status"] == "missing" and "--dlt" in row["note"]
                continue
            assert row["status"] == "ok", row
            assert row["seconds"] > 0 and row["peak_rss_mb"] > 0, row
            assert row["load_average"] is not None
            assert row["label"] in table
        for key in OURS:  # the ingest and its workers use CPU; the children are counted
            assert rows[key]["cpu_seconds"] > 0.1, key
    # The measured commands run one after the other inside `etl bench`: their times add
    # up to less than the wall time this test measured around it (synth included).
    measured = sum(r["seconds"] or 0 for t in report["trees"] for r in t["rows"])
    measured += sum(b["seconds"] for t in report["trees"] for b in t["cold_builds"][2:])
    assert measured < report["seconds"] < wall


def test_sizes_match_the_files_on_disk(bench):
    report, data, _, _ = bench
    for tree in report["trees"]:
        home = data / tree["name"]
        sizes = _tree_files(home / "tree")
        # measured before the append row and again here after it: the appended line is gone
        assert tree["tree_bytes"] == sum(sizes.values())
        assert not (home / ".append-pending.json").exists()
        result_sizes = {p: n for p, n in sizes.items() if RESULT_FILE.match(Path(p).name)}
        assert tree["result_file_bytes"] == sum(result_sizes.values())
        assert tree["result_files"] == len(result_sizes)
        non_blank = 0
        for path in result_sizes:
            with open(path, "rb") as fh:
                non_blank += sum(1 for raw in fh if raw.strip())
        assert tree["result_lines"] == non_blank
        rows, work = _rows(tree), home / "work"
        assert rows["naive"]["db_bytes"] == _on_disk(work / "naive.duckdb")
        assert rows["dlt"]["db_bytes"] is None
        # our database as the last row (cold again) left it
        assert rows["cold_again"]["db_bytes"] == _on_disk(work / "bench.duckdb")
        assert tree["db_bytes"] == rows["cold"]["db_bytes"] > 0
        assert rows["floor"]["db_bytes"] is None


def test_ratios_are_the_quotients_of_the_rows(bench):
    report, _, _, _ = bench
    for tree in report["trees"]:
        rows, ratios = _rows(tree), tree["ratios"]
        floor, cold = rows["floor"], rows["cold"]
        for key, row in rows.items():
            expected = None if row["seconds"] is None else row["seconds"] / floor["seconds"]
            assert ratios[f"{key}_over_floor"] == pytest.approx(expected), key
        for key in ("noop", "touch", "append", "cold_again"):
            assert ratios[f"{key}_over_cold"] == pytest.approx(rows[key]["seconds"]
                                                               / cold["seconds"])
        assert ratios["cold_over_naive"] == pytest.approx(cold["seconds"]
                                                          / rows["naive"]["seconds"])
        assert ratios["db_over_naive"] == pytest.approx(cold["db_bytes"]
                                                        / rows["naive"]["db_bytes"])
        assert ratios["db_over_raw"] == pytest.approx(cold["db_bytes"] / tree["tree_bytes"])
        assert ratios["cold_over_dlt"] is None and ratios["db_over_dlt"] is None


def _expected_targets(rows: dict[str, dict], builds: list[dict]
                      ) -> dict[str, tuple[float, bool]]:
    """Every target of one tree, by hand from the rows, the cold builds and the targets'
    numbers."""
    cold, naive = rows["cold"], rows["naive"]
    s = {k: rows[k]["seconds"] for k in rows}
    peak = max([rows[k]["peak_rss_mb"] for k in OURS] + [b["peak_rss_mb"] for b in builds])
    failed = sum(b["status"] == "out_of_memory" for b in builds)
    a, b = cold["db_bytes"], rows["cold_again"]["db_bytes"]
    spread = abs(a - b) / min(a, b)
    return {
        "cold_over_floor": (s["cold"] / s["floor"], s["cold"] <= 3.0 * s["floor"]),
        "cold_over_naive": (s["cold"] / s["naive"], s["cold"] <= 0.5 * s["naive"]),
        "append_over_cold": (s["append"] / s["cold"], s["append"] <= 0.05 * s["cold"]),
        "append_seconds": (s["append"], s["append"] < 2.0),
        "touch_over_cold": (s["touch"] / s["cold"], s["touch"] <= 0.05 * s["cold"]),
        "noop_over_cold": (s["noop"] / s["cold"], s["noop"] <= 0.03 * s["cold"]),
        "cold_out_of_memory": (failed, failed == 0),
        "peak_rss_mb": (peak, peak < 1024),
        "db_over_naive": (a / naive["db_bytes"], a <= naive["db_bytes"]),
        "cold_size_spread": (spread, spread <= 0.02),
    }


def test_targets_are_marked_by_hand_arithmetic(bench):
    report, _, _, table = bench
    labels = {"cold_over_floor": "cold build / floor", "cold_over_naive": "cold build / naive",
              "append_over_cold": "one record appended / cold",
              "append_seconds": "one record appended ", "touch_over_cold": "one file touched",
              "noop_over_cold": "no-op / cold", "peak_rss_mb": "peak memory, ours",
              "cold_out_of_memory": "cold builds out of memory",
              "db_over_naive": "our db / naive db", "cold_size_spread": "db size, two cold"}
    said_per_tree = []
    for tree in report["trees"]:
        expected = _expected_targets(_rows(tree), tree["cold_builds"])
        got = {t["name"]: t for t in tree["targets"]}
        assert set(got) == set(expected)
        for name, (value, met) in expected.items():
            assert got[name]["value"] == pytest.approx(value), name
            assert got[name]["met"] is met, name
        full = expected["cold_over_floor"][0]
        assert got["cold_over_floor"]["stretch_met"] is (full <= 2.0)
        said = {name: "met" if met else "MISSED" for name, (_, met) in expected.items()}
        if expected["cold_over_floor"][1]:
            said["cold_over_floor"] += " (stretch met)" if full <= 2.0 else " (stretch MISSED)"
        said_per_tree.append(said)
    # the printed targets table: one line per target, each tree's verdict in its column
    lines = table.splitlines()
    below = lines[next(i for i, x in enumerate(lines) if x.startswith("target ")):]
    for name, label in labels.items():
        # the line of this label, not of a longer one it begins ("one record appended " is
        # not the "one record appended / cold" line)
        line = next(x for x in below if x.startswith(label) and max(
            (other for other in labels.values() if x.startswith(other)), key=len) == label)
        verdicts = re.findall(r"(met \(stretch (?:met|MISSED)\)|MISSED|met)(?=\s|$)", line)
        assert verdicts == [said[name] for said in said_per_tree], line


def test_scaling_rows_are_their_trees_rows(bench):
    report, data, _, table = bench
    scaling = report["scaling"]
    assert (scaling["shape"], scaling["seed"]) == ("default", 7)
    points = scaling["points"]
    assert [p["gb"] for p in points] == [0.6, 2.5]
    full = _rows(report["trees"][0])
    assert points[-1]["cold_seconds"] == full["cold"]["seconds"]
    assert points[-1]["append_seconds"] == full["append"]["seconds"]
    small = data / "default-seed7-0.6gb"
    assert points[0]["tree_bytes"] == sum(_tree_files(small / "tree").values())
    assert points[0]["cold_db_bytes"] > 0 and not (small / ".append-pending.json").exists()
    growth = scaling["targets"][0]
    ratio = points[-1]["append_seconds"] / points[0]["append_seconds"]
    assert growth["name"] == "append_growth" and growth["value"] == pytest.approx(ratio)
    assert growth["met"] is (ratio <= 1.5)
    line = next(x for x in table.splitlines() if x.startswith("append, largest / smallest"))
    assert line.rstrip().endswith("met" if ratio <= 1.5 else "MISSED")


def test_noop_touch_and_append_do_what_they_say(bench):
    report, data, _, _ = bench
    for tree in report["trees"]:
        rows = _rows(tree)
        summary = {k: rows[k]["detail"]["summary"] for k in OURS}
        cold_results = summary["cold"]["n_results"]
        assert summary["noop"]["unchanged"] is True
        assert "nothing changed" in rows["noop"]["note"]
        assert rows["noop"]["seconds"] < rows["cold"]["seconds"]
        assert summary["touch"]["unchanged"] is False and summary["touch"]["n_parsed"] == 0
        assert summary["touch"]["n_results"] == cold_results
        assert summary["append"]["n_parsed"] == 1
        assert summary["append"]["n_results"] == cold_results + 1
        append = rows["append"]["detail"]
        assert append["appended_to"].endswith("results.jsonl")
        # cold again: the tree as it was generated (the appended line was taken back)
        assert summary["cold_again"]["n_results"] == cold_results
        assert summary["cold_again"]["n_parsed"] == summary["cold"]["n_parsed"]
        con = duckdb.connect(str(data / tree["name"] / "work" / "bench.duckdb"),
                             read_only=True)
        try:
            n, total = con.execute("SELECT count(*) FILTER (qid = ?), count(*) FROM results",
                                   [append["appended_qid"]]).fetchall()[0]
        finally:
            con.close()
        assert (n, total) == (0, cold_results)


def test_ingest_summary_json_is_what_the_database_holds(demo_tree, tmp_path):
    root, _ = demo_tree
    db, out = tmp_path / "w.duckdb", tmp_path / "summary.json"
    proc = run_etl("ingest", str(root), "--db", str(db), "--quiet", "--summary-json", str(out))
    said = json.loads(out.read_text())
    con = duckdb.connect(str(db), read_only=True)
    try:
        results, files = con.execute("SELECT (SELECT count(*) FROM results), "
                                     "(SELECT count(*) FROM files)").fetchall()[0]
        tables = {name: con.execute(f'SELECT count(*) FROM "{name}"').fetchall()[0][0]
                  for (name,) in con.execute("SELECT table_name FROM duckdb_tables() "
                                             "WHERE NOT temporary").fetchall()}
    finally:
        con.close()
    assert said["db"] == str(db) and said["unchanged"] is False
    assert said["n_results"] == results and said["n_files"] == files
    assert said["table_rows"] == tables
    assert said["n_parsed"] == said["n_loadable"] > 0
    assert f"{said['n_results']} (duplicate copies skipped: {said['n_duplicates']})" in proc.stdout
    run_etl("ingest", str(root), "--db", str(db), "--quiet", "--summary-json", str(out))
    assert json.loads(out.read_text())["unchanged"] is True
    refused = run_etl("ingest", str(root), "--db", str(db), "--watch", "--summary-json",
                      str(out), check=False)
    assert refused.returncode == 2 and "--summary-json" in refused.stderr


def _row(key: str, seconds: float | None, peak: float | None = 100.0,
         db: int | None = None, status: str = "ok") -> Row:
    return Row(key, key, status=status, seconds=seconds, peak_rss_mb=peak, db_bytes=db)


def _by(**overrides: Row) -> dict[str, Row]:
    # figures exact in binary, so that a ratio on its limit is exactly the limit
    by = {"floor": _row("floor", 10.0), "naive": _row("naive", 50.0, db=1000),
          "dlt": _row("dlt", None, None, status="missing"),
          "cold": _row("cold", 25.0, db=1000), "noop": _row("noop", 0.75),
          "touch": _row("touch", 1.25), "append": _row("append", 1.25),
          "cold_again": _row("cold_again", 31.0, db=1020)}
    by.update(overrides)
    return by


def _targets(**overrides: Row) -> dict[str, dict]:
    return {t["name"]: t for t in targets(_by(**overrides))}


@pytest.mark.parametrize(("cold_s", "met", "stretch"), [
    (30.0, True, False),  # exactly 3.0x the 10 s floor: met (<=)
    (30.5, False, False),
    (20.0, True, True),  # exactly 2.0x: the stretch too
])
def test_cold_over_floor_verdict(cold_s, met, stretch):
    t = _targets(cold=_row("cold", cold_s, db=1000))
    assert t["cold_over_floor"]["value"] == pytest.approx(cold_s / 10.0)
    assert t["cold_over_floor"]["met"] is met
    assert t["cold_over_floor"]["stretch_met"] is stretch


def test_every_limit_by_hand():
    t = _targets()  # every figure of _by() sits exactly on its limit
    for name in ("cold_over_floor", "cold_over_naive", "append_over_cold", "touch_over_cold",
                 "noop_over_cold", "db_over_naive", "cold_size_spread"):
        assert t[name]["met"] is True, name
    assert t["cold_size_spread"]["value"] == pytest.approx(0.02)
    assert t["append_seconds"]["met"] is True  # 1.25 s < 2 s
    t = _targets(cold=_row("cold", 25.0, db=1001), naive=_row("naive", 49.9, db=1000),
                 append=_row("append", 2.0), touch=_row("touch", 1.26),
                 noop=_row("noop", 0.76), cold_again=_row("cold_again", 30.0, db=1022))
    for name in ("cold_over_naive", "append_over_cold", "append_seconds", "touch_over_cold",
                 "noop_over_cold", "db_over_naive", "cold_size_spread"):
        assert t[name]["met"] is False, name
    # peak memory: the largest of our rows, strictly below 1024 MB
    t = _targets(touch=_row("touch", 1.25, peak=1024.0))
    assert t["peak_rss_mb"]["value"] == 1024.0 and t["peak_rss_mb"]["row"] == "touch"
    assert t["peak_rss_mb"]["met"] is False
    # a naive row that did not finish: what needs it cannot be judged
    t = _targets(naive=_row("naive", 60.0, status="timed_out"))
    assert t["cold_over_naive"]["met"] is None and t["db_over_naive"]["met"] is None


def test_a_cold_build_out_of_memory_is_counted_not_hidden():
    failed = _row("cold", None, status="out_of_memory")
    skipped = {k: _row(k, None, peak=None, status="skipped") for k in ("noop", "touch",
                                                                        "append")}
    t = _targets(cold=failed, **skipped)
    assert t["cold_out_of_memory"]["value"] == 1 and t["cold_out_of_memory"]["met"] is False
    assert t["cold_out_of_memory"]["builds"] == 2
    for name in ("cold_over_floor", "append_over_cold", "touch_over_cold", "noop_over_cold"):
        assert t[name]["met"] is None, name  # not measured, not met
    builds = [_row("cold", 25.0, db=1000), _row("cold_again", 31.0, db=1020),
              *(_row(f"cold_{n}", 30.0) for n in range(3, 10)),
              _row("cold_10", None, peak=1100.0, status="out_of_memory")]
    t = {x["name"]: x for x in targets(_by(), builds)}
    assert (t["cold_out_of_memory"]["value"], t["cold_out_of_memory"]["builds"]) == (1, 10)
    assert t["peak_rss_mb"]["row"] == "cold_10" and t["peak_rss_mb"]["met"] is False


def test_the_last_cold_build_is_profiled(bench):
    report, data, _, table = bench
    for tree in report["trees"]:
        prof = tree["profile"]
        steps = [name for name, _, _ in prof["steps"]]
        assert "inserting the messages of the results" in steps
        assert any(st["sql"].startswith("INSERT INTO messages") for st in prof["statements"])
        con = duckdb.connect(str(data / tree["name"] / "work" / "bench.duckdb"),
                             read_only=True)
        try:
            used = con.execute("SELECT used_blocks * block_size FROM pragma_database_size()"
                               ).fetchall()[0][0]
        finally:
            con.close()
        assert prof["used_bytes"] == used
        assert sum(b for _, b in prof["tables"]) + prof["other_bytes"] == used
        assert {t for t, _ in prof["tables"]} >= {"messages", "results"}
        assert f"profile of the last cold build ({tree['label']})" in table


def test_the_default_run_covers_three_shapes():
    specs = parse_trees(DEFAULT_TREES, 2.5)
    assert {s.shape for s in specs} == {"long-tools", "many-short", "many-copies"}
    assert all(s.gb == 2.5 for s in specs)
    with pytest.raises(click.BadParameter):
        parse_trees("square:1", 2.5)
    with pytest.raises(click.BadParameter):
        parse_trees("many-short", 2.5)
    # a tree of its own size beside the others (the large tree of `make bench-large`)
    large, small = parse_trees("many-copies:17:6.5,long-tools:11", 2.5)
    assert (large.shape, large.seed, large.gb) == ("many-copies", 17, 6.5)
    assert large.name == "many-copies-seed17-6.5gb" and small.gb == 2.5
    for bad in ("many-copies:17:big", "many-copies:17:0", "many-copies:17:-1"):
        with pytest.raises(click.BadParameter):
            parse_trees(bad, 2.5)


def test_every_cold_build_is_counted(bench):
    report, data, _, table = bench
    for tree in report["trees"]:
        rows, builds = _rows(tree), tree["cold_builds"]
        # the first and the last are the table's cold rows, the one between is extra
        assert len(builds) == 3 and all(b["status"] == "ok" for b in builds)
        for build, row in ((builds[0], rows["cold"]), (builds[-1], rows["cold_again"])):
            assert (build["seconds"], build["peak_rss_mb"], build["db_bytes"]) == (
                row["seconds"], row["peak_rss_mb"], row["db_bytes"])
        assert builds[1]["cpu_seconds"] > 0.1 and builds[1]["db_bytes"] > 0
        assert "files parsed" in builds[1]["note"]
        assert size_spread(builds[1]["db_bytes"], builds[0]["db_bytes"]) <= 0.02
        median = sorted(b["seconds"] for b in builds)[1]
        assert (f"3 cold builds: 0 out of memory; median {median:.1f} s" in table)


def test_a_cold_build_out_of_memory_is_a_row_not_a_crash(demo_tree, tmp_path):
    """A real ingest that runs out of DuckDB's memory: the bench keeps its figures and what
    the ingest said; any other failure of our ingest stops the bench."""
    root, _ = demo_tree
    spec = TreeSpec("default", 0, 0.1)
    tree = Tree(spec, tmp_path, root, [], [], 0, 0)
    tree.work.mkdir()
    row = ingest_row(tree, Settings(jobs=1), "cold", "ours cold (--full)", "--full",
                     "--memory-limit", "4MB")
    assert row.status == "out_of_memory"
    assert "ran out of memory while" in row.note and "--memory-limit" in row.note
    assert row.seconds > 0 and row.cpu_seconds > 0 and row.peak_rss_mb > 0
    assert row.db_bytes is None and not tree.db.exists()  # nothing published
    with pytest.raises(BenchError, match="failed"):
        ingest_row(tree, Settings(jobs=1), "cold", "ours cold (--full)", "--full",
                   "--memory-limit", "lots")


def test_targets_table_has_a_column_per_tree(bench):
    report, _, _, _ = bench
    one = report["trees"][0]
    three = [one, {**one, "label": "copy b"}, {**one, "label": "copy c"}]
    lines = format_targets(three)
    assert "copy b" in lines[0] and "copy c" in lines[0]
    for line in lines[1:]:
        assert len(re.findall(r"\b(?:met|MISSED)\b", line)) >= 3, line


def _hand_count(paths: list[str]) -> tuple[int, int]:
    """(records, messages) of the result files, read with the standard json module."""
    records = messages = 0
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    record = json.loads(line)
                    records += 1
                    messages += len(record.get("messages") or [])
    return records, messages


@pytest.mark.skipif(not HAVE_DLT, reason="dlt not installed (pip install -e '.[bench]')")
def test_dlt_row_normalizes_every_record_into_child_tables(bench, tmp_path):
    _, data, _, _ = bench
    sizes = _tree_files(data / TREES[0] / "tree")
    paths = sorted(p for p in sizes if RESULT_FILE.match(Path(p).name))
    records, messages = _hand_count(paths)
    row = dlt_row(paths, tmp_path, sum(sizes[p] for p in paths), timeout=600)
    assert row.status == "ok", row
    assert row.detail["records"] == records and row.detail["skipped_lines"] == 0
    con = duckdb.connect(str(tmp_path / "dlt.duckdb"), read_only=True)
    try:
        count = {t: con.execute(f"SELECT count(*) FROM peer.{t}").fetchall()[0][0]
                 for t in ("results", "results__messages", "results__messages__tool_calls")}
    finally:
        con.close()
    assert count["results"] == records
    assert count["results__messages"] == messages
    assert count["results__messages__tool_calls"] > 0
    assert row.label == f"dlt {importlib.import_module('dlt').__version__}"


@pytest.mark.skipif(not HAVE_DLT, reason="dlt not installed (pip install -e '.[bench]')")
def test_dlt_peer_skips_and_counts_damaged_lines(tmp_path):
    good = [{"qid": f"q{i}", "run_index": 1, "messages": [{"role": "user", "content": "hi"}]}
            for i in range(3)]
    lines = [json.dumps(good[0]), '{"qid": "q9", "messages": [', "", json.dumps(good[1]),
             "[1, 2]", json.dumps(good[2]), '{"qid": NaN}']
    src = tmp_path / "results.jsonl"
    src.write_text("\n".join(lines) + "\n")
    env = {**os.environ, "RUNTIME__DLTHUB_TELEMETRY": "false",
           "DLT_DATA_DIR": str(tmp_path / "home"), "DLT_PROJECT_DIR": str(tmp_path)}
    out = run_child([sys.executable, str(DLT_PEER), str(tmp_path / "p.duckdb"),
                     str(tmp_path / "pipelines"), str(src)], env=env, cwd=tmp_path,
                    timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    said = json.loads(out.stdout.strip().splitlines()[-1])
    # truncated line, non-object line, bare NaN (orjson rejects it): 3 skipped, 3 loaded
    assert said["records"] == 3 and said["skipped_lines"] == 3
    assert said["tables"]["results"] == 3 and said["tables"]["results__messages"] == 3


def test_dlt_row_says_when_dlt_is_missing(tmp_path, monkeypatch):
    # an importable "dlt" that fails to import, first on the child's path
    stub = tmp_path / "stub" / "dlt"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("raise ImportError(\"No module named 'dlt'\")\n")
    monkeypatch.setenv("PYTHONPATH", str(stub.parent))
    src = tmp_path / "results.jsonl"
    src.write_text('{"qid": "q1"}\n')
    work = tmp_path / "work"
    work.mkdir()
    row = dlt_row([str(src)], work, src.stat().st_size, timeout=60)
    assert row.status == "missing" and "dlt not installed" in row.note
    assert row.seconds is None and row.db_bytes is None
    assert not (work / "dlt.duckdb").exists()
    by = _by(dlt=row)
    tree = {"label": "t", "tree_bytes": 1, "result_file_bytes": 1, "result_files": 1,
            "result_lines": 1, "rows": [vars(r) | {"detail": {}} for r in by.values()],
            "targets": targets(by)}
    report = {"jobs": 1, "load_average_start": [0.0], "load_average_end": [0.0],
              "seconds": 1.0, "trees": [tree], "scaling": None}
    dlt_line = next(x for x in format_report(report).splitlines() if x.startswith("dlt "))
    assert "dlt not installed" in dlt_line and dlt_line.split()[1] == "-"


def test_a_peer_is_stopped_at_its_time_limit():
    # A peer that would sleep for an hour: it was killed (a signal ended it), not waited for.
    out = run_child([sys.executable, "-c", "import time; time.sleep(3600)"], timeout=1.0)
    assert out.timed_out and out.returncode == -signal.SIGKILL
    row = _peer_row("dlt", "dlt", out, 1.0)
    assert row.status == "timed_out" and row.note == "timed out after 1 s"


def test_a_peer_is_stopped_at_its_memory_limit():
    hog = "import time; x = b'1' * (400 * 1024 * 1024); time.sleep(60)"
    out = run_child([sys.executable, "-c", hog], timeout=60, memory_mb=100)
    assert out.over_memory and not out.timed_out and out.peak_rss_mb > 100
