"""A smoke run of the benchmark harness on a demo tree: every measurement is taken and fits
in the run's wall time, the sizes it reports are the sizes of the files on disk (measured
here, independently), and the no-op re-ingest really is one.
(The real figures come from `make bench` on a bench-scale tree, not from this test.)"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from tests.conftest import run_etl

RESULT_FILE = re.compile(r"^(results|merged_unique|results_steal_\d+)\.jsonl$")


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    """(report, data dir, wall seconds of the whole `etl bench` run as this test saw it)."""
    data = tmp_path_factory.mktemp("bench")
    out = data / "bench.json"
    started = time.perf_counter()
    run_etl("bench", "--data", str(data / "d"), "--scale", "demo", "--json-out", str(out),
            "--jobs", "2")
    wall = time.perf_counter() - started
    return json.loads(out.read_text()), data / "d", wall


def _tree_files(tree: Path) -> dict[str, int]:
    """Every real file under the tree (symlinks followed, each real file once): size."""
    sizes: dict[str, int] = {}
    for dirpath, _, names in os.walk(tree, followlinks=True):
        for name in names:
            path = Path(dirpath) / name
            if path.is_file():
                sizes.setdefault(os.path.realpath(path), path.stat().st_size)
    return sizes


def test_every_measurement_is_taken_and_fits_in_the_run(bench):
    report, _, wall = bench
    names = {m["name"] for m in report["measurements"]}
    assert names == {"a_full_ingest", "b_naive_read_json_auto", "c_parse_floor_orjson",
                     "d_noop_reingest"}
    for m in report["measurements"]:
        assert m["seconds"] > 0 and m["peak_rss_mb"] > 0, m
    # The measured commands run one after the other inside `etl bench`: their times add
    # up to less than the wall time this test measured around it (synth included).
    assert sum(m["seconds"] for m in report["measurements"]) < wall


def test_sizes_match_the_files_on_disk(bench):
    report, data, _ = bench
    sizes = _tree_files(data / "tree")
    assert report["tree_bytes"] == sum(sizes.values())
    result_sizes = {p: n for p, n in sizes.items() if RESULT_FILE.match(Path(p).name)}
    assert report["result_file_bytes"] == sum(result_sizes.values())
    db_bytes = (data / "work" / "bench.duckdb").stat().st_size
    assert report["db_bytes"] == db_bytes
    assert report["ratios"]["db_over_raw"] == pytest.approx(db_bytes / sum(sizes.values()))
    non_blank = 0
    for path in result_sizes:
        with open(path, "rb") as fh:
            non_blank += sum(1 for raw in fh if raw.strip())
    assert report["result_lines"] == non_blank


def test_ratios_and_targets_are_reported(bench):
    # The time ratios are quotients of the measurements above (nothing independent to
    # compare them with): check that each is there, finite and positive, with a target.
    report, _, _ = bench
    ratios, targets = report["ratios"], report["targets"]
    assert {"a_over_b", "a_over_c", "d_over_a", "db_over_raw",
            "db_over_raw_without_images"} <= set(ratios)
    assert all(0 < value < float("inf") for value in ratios.values()), ratios
    assert set(targets) - {"peak_rss_mb"} <= set(ratios)


def test_noop_reingest_parses_nothing(bench):
    report, _, _ = bench
    noop = [m for m in report["measurements"] if m["name"] == "d_noop_reingest"][0]
    assert "nothing changed" in noop["note"]
    full = [m for m in report["measurements"] if m["name"] == "a_full_ingest"][0]
    assert noop["seconds"] < full["seconds"]
