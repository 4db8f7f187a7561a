"""A smoke run of the benchmark harness on a demo tree: every measurement is taken, the
ratios are the ratios of the measured times, and the no-op re-ingest really is one.
(The real figures come from `make bench` on a bench-scale tree, not from this test.)"""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_etl


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    data = tmp_path_factory.mktemp("bench")
    out = data / "bench.json"
    run_etl("bench", "--data", str(data / "d"), "--scale", "demo", "--json-out", str(out),
            "--jobs", "2")
    return json.loads(out.read_text())


def test_every_measurement_is_taken(report):
    names = {m["name"] for m in report["measurements"]}
    assert names == {"a_full_ingest", "b_naive_read_json_auto", "c_parse_floor_orjson",
                     "d_noop_reingest"}
    for m in report["measurements"]:
        assert m["seconds"] > 0 and m["peak_rss_mb"] > 0, m


def test_ratios_are_the_measured_ones(report):
    by = {m["name"]: m["seconds"] for m in report["measurements"]}
    r = report["ratios"]
    assert r["a_over_b"] == pytest.approx(by["a_full_ingest"] / by["b_naive_read_json_auto"])
    assert r["a_over_c"] == pytest.approx(by["a_full_ingest"] / by["c_parse_floor_orjson"])
    assert r["d_over_a"] == pytest.approx(by["d_noop_reingest"] / by["a_full_ingest"])
    assert r["db_over_raw"] == pytest.approx(report["db_bytes"] / report["tree_bytes"])


def test_noop_reingest_parses_nothing(report):
    noop = [m for m in report["measurements"] if m["name"] == "d_noop_reingest"][0]
    assert "nothing changed" in noop["note"]
    assert report["result_lines"] > 0
