"""A smoke run of the benchmark harness on a demo tree: every row is taken and fits in the
run's wall time, the sizes it reports are the sizes of the files on disk (measured here,
independently), the ratios are the quotients of its rows, each target is met or MISSED as
hand arithmetic with issue 16's numbers says, the no-op re-ingest really is one, the warm
rebuild parses nothing, the append row loads exactly the one record it appended and leaves
the tree as it was; and the dlt peer skips damaged lines, says so when dlt is missing, and
is stopped at its time or memory limit.
(The real figures come from `make bench` on a bench-scale tree, not from this test.)"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
import time
from pathlib import Path

import duckdb
import pytest

from etl.bench import DLT_PEER, Row, _peer_row, dlt_row, format_report, run_child, targets
from tests.conftest import run_etl

RESULT_FILE = re.compile(r"^(results|merged_unique|results_steal_\d+)\.jsonl$")
ROWS = ["floor", "naive", "dlt", "ours_cold", "noop", "ours_warm", "append"]
HAVE_DLT = importlib.util.find_spec("dlt") is not None


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    """(report, data dir, wall seconds of the whole `etl bench` run as this test saw it,
    the table it printed)."""
    data = tmp_path_factory.mktemp("bench")
    out = data / "bench.json"
    started = time.perf_counter()
    # --data relative to the working directory, as `make bench` passes it
    proc = run_etl("bench", "--data", "d", "--scale", "demo", "--json-out", str(out),
                   "--jobs", "2", cwd=data)
    wall = time.perf_counter() - started
    table = proc.stdout.split("\n{", 1)[0]
    return json.loads(out.read_text()), data / "d", wall, table


def _rows(report: dict) -> dict[str, dict]:
    return {r["key"]: r for r in report["rows"]}


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


def test_every_row_is_taken_and_fits_in_the_run(bench):
    report, _, wall, table = bench
    rows = _rows(report)
    assert [r["key"] for r in report["rows"]] == ROWS
    for key, row in rows.items():
        if key == "dlt" and not HAVE_DLT:
            assert row["status"] == "missing" and "not installed" in row["note"]
            continue
        assert row["status"] == "ok", row
        assert row["seconds"] > 0 and row["peak_rss_mb"] > 0, row
        assert row["label"] in table
    # The measured commands run one after the other inside `etl bench`: their times add
    # up to less than the wall time this test measured around it (synth included).
    assert sum(r["seconds"] or 0 for r in report["rows"]) < wall


def test_sizes_match_the_files_on_disk(bench):
    report, data, _, _ = bench
    sizes = _tree_files(data / "tree")
    # measured before the append row and again here after it: the appended line is gone
    assert report["tree_bytes"] == sum(sizes.values())
    assert not (data / ".append-pending.json").exists()
    result_sizes = {p: n for p, n in sizes.items() if RESULT_FILE.match(Path(p).name)}
    assert report["result_file_bytes"] == sum(result_sizes.values())
    assert report["result_files"] == len(result_sizes)
    non_blank = 0
    for path in result_sizes:
        with open(path, "rb") as fh:
            non_blank += sum(1 for raw in fh if raw.strip())
    assert report["result_lines"] == non_blank

    rows, work = _rows(report), data / "work"
    assert rows["naive"]["db_bytes"] == _on_disk(work / "naive.duckdb")
    if HAVE_DLT:
        assert rows["dlt"]["db_bytes"] == _on_disk(work / "dlt.duckdb")
    else:
        assert rows["dlt"]["db_bytes"] is None
    # our database as the last row (append) left it; the cold size is the one compared
    assert rows["append"]["db_bytes"] == _on_disk(work / "bench.duckdb")
    assert report["db_bytes"] == rows["ours_cold"]["db_bytes"] > 0
    assert rows["floor"]["db_bytes"] is None


def test_ratios_are_the_quotients_of_the_rows(bench):
    report, _, _, _ = bench
    rows, ratios = _rows(report), report["ratios"]
    floor, cold = rows["floor"], rows["ours_cold"]
    for key, row in rows.items():
        expected = None if row["seconds"] is None else row["seconds"] / floor["seconds"]
        assert ratios[f"{key}_over_floor"] == pytest.approx(expected), key
    for key in ("noop", "ours_warm", "append"):
        assert ratios[f"{key}_over_full"] == pytest.approx(rows[key]["seconds"]
                                                           / cold["seconds"])
    assert ratios["full_over_naive"] == pytest.approx(cold["seconds"] / rows["naive"]["seconds"])
    assert ratios["db_over_naive"] == pytest.approx(cold["db_bytes"] / rows["naive"]["db_bytes"])
    assert ratios["db_over_raw"] == pytest.approx(cold["db_bytes"] / report["tree_bytes"])
    if HAVE_DLT:
        assert ratios["db_over_dlt"] == pytest.approx(cold["db_bytes"] / rows["dlt"]["db_bytes"])
    else:
        assert ratios["full_over_dlt"] is None and ratios["db_over_dlt"] is None


def test_targets_are_issue_16s_and_marked_by_hand_arithmetic(bench):
    report, _, _, table = bench
    rows = _rows(report)
    cold = rows["ours_cold"]
    full = cold["seconds"] / rows["floor"]["seconds"]
    peak = max(rows[k]["peak_rss_mb"] for k in ("ours_cold", "noop", "ours_warm", "append"))
    expected = {
        "full_over_floor": (full, full <= 2.0),
        "db_over_naive": (cold["db_bytes"] / rows["naive"]["db_bytes"],
                          cold["db_bytes"] <= rows["naive"]["db_bytes"]),
        "peak_rss_mb": (peak, peak < 1024),
        "noop_over_full": (rows["noop"]["seconds"] / cold["seconds"],
                           rows["noop"]["seconds"] <= 0.03 * cold["seconds"]),
    }
    got = {t["name"]: t for t in report["targets"]}
    assert set(got) == set(expected)
    for name, (value, met) in expected.items():
        assert got[name]["value"] == pytest.approx(value), name
        assert got[name]["met"] is met, name
    assert got["full_over_floor"]["stretch_met"] is (full <= 1.5)
    # the printed table carries each verdict at the end of the target's line
    said = {name: "met" if met else "MISSED" for name, (_, met) in expected.items()}
    if expected["full_over_floor"][1]:
        said["full_over_floor"] += " (stretch met)" if full <= 1.5 else " (stretch MISSED)"
    for label, name in [("full ingest / floor", "full_over_floor"),
                        ("our db / naive db", "db_over_naive"),
                        ("peak memory, ours", "peak_rss_mb"),
                        ("no-op / full ingest", "noop_over_full")]:
        line = next(x for x in table.splitlines() if x.startswith(label))
        assert line.rstrip().endswith("  " + said[name]), line


def _row(key: str, seconds: float | None, peak: float | None = 100.0,
         db: int | None = None, status: str = "ok") -> Row:
    return Row(key, key, status=status, seconds=seconds, peak_rss_mb=peak, db_bytes=db)


def _by(**overrides: Row) -> dict[str, Row]:
    by = {"floor": _row("floor", 10.0), "naive": _row("naive", 30.0, db=1000),
          "dlt": _row("dlt", None, None, status="missing"),
          "ours_cold": _row("ours_cold", 20.0, db=1000), "noop": _row("noop", 0.6),
          "ours_warm": _row("ours_warm", 5.0), "append": _row("append", 6.0)}
    by.update(overrides)
    return by


@pytest.mark.parametrize(("cold_s", "met", "stretch"), [
    (20.0, True, False),  # exactly 2.0x the 10 s floor: met (<=)
    (20.5, False, False),
    (15.0, True, True),  # exactly 1.5x: the stretch too
    (17.0, True, False),
])
def test_full_over_floor_verdict(cold_s, met, stretch):
    t = {x["name"]: x for x in targets(_by(ours_cold=_row("ours_cold", cold_s, db=1000)))}
    assert t["full_over_floor"]["value"] == pytest.approx(cold_s / 10.0)
    assert t["full_over_floor"]["met"] is met
    assert t["full_over_floor"]["stretch_met"] is stretch


def test_size_memory_and_noop_verdicts_by_hand():
    t = {x["name"]: x for x in targets(_by())}
    assert t["db_over_naive"]["met"] is True  # 1000 <= 1000 bytes
    assert t["noop_over_full"]["value"] == pytest.approx(0.6 / 20.0)
    assert t["noop_over_full"]["met"] is True  # 3.0% <= 3%
    t = {x["name"]: x for x in targets(_by(ours_cold=_row("ours_cold", 20.0, db=1001),
                                           noop=_row("noop", 0.61)))}
    assert t["db_over_naive"]["met"] is False and t["noop_over_full"]["met"] is False
    # peak memory: the largest of our four rows, strictly below 1024 MB
    t = {x["name"]: x for x in targets(_by(ours_warm=_row("ours_warm", 5.0, peak=1024.0)))}
    assert t["peak_rss_mb"]["value"] == 1024.0 and t["peak_rss_mb"]["row"] == "ours_warm"
    assert t["peak_rss_mb"]["met"] is False
    # a naive row that did not finish: the size target cannot be judged
    t = {x["name"]: x for x in targets(_by(naive=_row("naive", 60.0, status="timed_out")))}
    assert t["db_over_naive"]["met"] is None


def test_noop_warm_and_append_do_what_they_say(bench):
    report, data, _, _ = bench
    rows = _rows(report)
    assert rows["noop"]["detail"]["unchanged"] is True
    assert "nothing changed" in rows["noop"]["note"]
    assert rows["noop"]["seconds"] < rows["ours_cold"]["seconds"]
    warm = rows["ours_warm"]["detail"]
    assert warm["unchanged"] is False and warm["files_parsed"] == 0  # rebuilt, not parsed
    assert warm["results"] == rows["ours_cold"]["detail"]["results"]
    append = rows["append"]["detail"]
    assert append["files_parsed"] == 1
    assert append["results"] == rows["ours_cold"]["detail"]["results"] + 1
    con = duckdb.connect(str(data / "work" / "bench.duckdb"), read_only=True)
    try:
        n = con.execute("SELECT count(*) FROM results WHERE qid = ?",
                        [append["appended_qid"]]).fetchall()[0][0]
    finally:
        con.close()
    assert n == 1
    assert append["appended_to"].endswith("results.jsonl")


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
def test_dlt_row_normalizes_every_record_into_child_tables(bench):
    report, data, _, _ = bench
    sizes = _tree_files(data / "tree")
    paths = [p for p in sizes if RESULT_FILE.match(Path(p).name)]
    records, messages = _hand_count(paths)
    row = _rows(report)["dlt"]
    assert row["detail"]["records"] == records and row["detail"]["skipped_lines"] == 0
    con = duckdb.connect(str(data / "work" / "dlt.duckdb"), read_only=True)
    try:
        count = {t: con.execute(f"SELECT count(*) FROM peer.{t}").fetchall()[0][0]
                 for t in ("results", "results__messages", "results__messages__tool_calls")}
    finally:
        con.close()
    assert count["results"] == records
    assert count["results__messages"] == messages
    assert count["results__messages__tool_calls"] > 0
    assert row["label"] == f"dlt {importlib.import_module('dlt').__version__}"


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
    report = {"tree_bytes": 1, "result_file_bytes": 1, "result_files": 1, "result_lines": 1,
              "jobs": 1, "rows": [vars(r) | {"detail": {}} for r in by.values()],
              "targets": targets(by)}
    dlt_line = next(x for x in format_report(report).splitlines() if x.startswith("dlt "))
    assert "dlt not installed" in dlt_line and dlt_line.split()[1] == "-"


def test_a_peer_is_stopped_at_its_time_limit():
    started = time.perf_counter()
    out = run_child([sys.executable, "-c", "import time; time.sleep(60)"], timeout=1.0)
    assert out.timed_out and time.perf_counter() - started < 30
    row = _peer_row("dlt", "dlt", out, 1.0)
    assert row.status == "timed_out" and row.note == "timed out after 1 s"
    assert out.seconds < 30


def test_a_peer_is_stopped_at_its_memory_limit():
    hog = "import time; x = b'1' * (400 * 1024 * 1024); time.sleep(60)"
    out = run_child([sys.executable, "-c", hog], timeout=60, memory_mb=100)
    assert out.over_memory and not out.timed_out and out.peak_rss_mb > 100
