"""The paper views equal the authors' analysis chain, number for number.

tests/fidelity/paper_corpus.py assembles a results tree of writer-shaped records (the text
corpus, the multimodal corpus with the authors' scored files, AgentEHR runs, a scored-only
run, two classifier files); tests/fidelity/paper/golden holds what the authors' own chain
wrote for that tree (tests/fidelity/regen_paper.py --authors-src DIR): reorganize_results.py's
hierarchy (aggregate.json per run), compute_ci_from_per_sample_scores.py's three tables at
full precision plus every other cell by its functions, build_report.py's table cells. Here
the tree is ingested like any results tree and paper_table / paper_mode_delta are compared
with all of it to 1e-9: every cell score and count, every interval, every delta."""

from __future__ import annotations

import json
import math
import shutil
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest

from etl.connection import SAFE_CONFIG
from etl.pipeline.ingest import IngestOptions, run_ingest
from tests.conftest import run_etl

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fidelity"))
from paper_corpus import GOLDEN, assemble  # noqa: E402

TOL = 1e-9
LEVEL_OF_LAYER = {"L2": "group", "L3": "semantic", "L4": "task"}
TABLE1_BUCKETS = {"Risk Prediction": ("group", "risk_prediction"),
                  "Decision Making": ("group", "decision_making"),
                  "Overall": ("overall", "overall")}
TABLE2_COLUMNS = {"cxr_presence": "cxr_finding_presence",
                  "cxr_enumeration": "cxr_finding_enumeration",
                  "cxr_change": "cxr_change_comparison", "mortality_24h": "mortality_24h",
                  "inpatient_mortality": "inpatient_mortality_mm",
                  "phenotype_ccs": "phenotype_ccs", "overall": "overall"}
TABLE3_COLUMNS = {"diagnoses": "diagnoses_ccs", "labs": "labevents",
                  "microbiology": "microbiologyevents", "procedures": "procedures_ccs",
                  "transfers": "transfers", "avg": "overall"}


def golden(name: str) -> Any:
    return json.loads((GOLDEN / name).read_text())


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("paper")
    assemble(base / "tree")
    # reorganize_results.py's own output, where its default --out-root puts it
    shutil.copytree(GOLDEN / "hierarchical", base / "tree" / "hierarchical")
    run_ingest(base / "tree", base / "w.duckdb", IngestOptions(jobs=1))
    return base / "w.duckdb"


@pytest.fixture(scope="module")
def con(db: Path):
    connection = duckdb.connect(str(db), read_only=True, config=dict(SAFE_CONFIG))
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def table(con) -> dict[tuple, dict[str, Any]]:
    cursor = con.execute("SELECT * FROM paper_table")
    names = [d[0] for d in cursor.description]
    rows = [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]
    out = {(r["mode"], r["benchmark"], r["model"], r["level"], r["name"]): r for r in rows}
    assert len(out) == len(rows), "one row per cell"
    return out


@pytest.fixture(scope="module")
def deltas(con) -> dict[tuple, dict[str, Any]]:
    cursor = con.execute("SELECT * FROM paper_mode_delta")
    names = [d[0] for d in cursor.description]
    rows = [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]
    return {(r["benchmark"], r["model"], r["level"], r["name"]): r for r in rows}


def close(got: float | None, want: float | None) -> bool:
    if want is None or (isinstance(want, float) and math.isnan(want)):
        return got is None or math.isnan(got)
    return got is not None and abs(got - want) <= TOL


def aggregate_nodes() -> list[tuple[tuple, int, float]]:
    """(cell key, count, f1) of every node of every aggregate.json the authors wrote."""
    out = []
    for path in sorted((GOLDEN / "hierarchical").glob("*/*/*/aggregate.json")):
        mode, bench, model = path.parent.relative_to(GOLDEN / "hierarchical").parts
        agg = json.loads(path.read_text())

        def walk(node: dict, depth: int, mode=mode, bench=bench, model=model) -> None:
            for key, child in node.items():
                if not isinstance(child, dict):
                    continue
                if depth >= 2:
                    level = LEVEL_OF_LAYER[f"L{depth}"]
                    out.append(((mode, bench, model, level, key), child["count"], child["f1"]))
                walk(child, depth + 1)

        walk(agg, 1)
        if bench == "ehr_bench":
            node = agg["text_only"]
            out.append(((mode, bench, model, "overall", "overall"), node["count"], node["f1"]))
    return out


def test_every_node_score_and_count(table) -> None:
    nodes = aggregate_nodes()
    assert len(nodes) > 60
    for key, count, f1 in nodes:
        assert key in table, key
        assert table[key]["n"] == count, key
        assert close(table[key]["score"], f1), (key, table[key]["score"], f1)


def test_no_cell_without_an_authors_number(table) -> None:
    cells = golden("ci_cells.json")["cells"]
    known = {(c["mode"], c["benchmark"], c["model"], c["level"], c["name"]) for c in cells}
    known |= {("agentic", "agent_ehr_bench", row["model"], "overall", "overall")
              for row in golden("ci_tables.json")["table3"]}  # its pooled column
    assert set(table) == known


def test_every_interval(table) -> None:
    cells = golden("ci_cells.json")["cells"]
    assert any(c["ci95_upper"] > 1 for c in cells if c["N"] > 1), "an unclipped bound"
    for c in cells:
        row = table[(c["mode"], c["benchmark"], c["model"], c["level"], c["name"])]
        assert row["ci_n"] == c["N"]
        assert close(row["ci_mean"], c["mean"])
        assert close(row["ci_low"], c["ci95_lower"]), (row, c)
        assert close(row["ci_high"], c["ci95_upper"]), (row, c)
        if c["benchmark"] == "agent_ehr_bench":  # every line a sample: score is its mean
            assert row["n"] == c["N"] and close(row["score"], c["mean"])


def test_every_paired_delta_interval(deltas) -> None:
    expected = golden("ci_cells.json")["deltas"]
    assert {(d["benchmark"], d["model"], d["level"], d["name"]) for d in expected} == {
        k for k, v in deltas.items() if v["n"] > 0}
    for d in expected:
        row = deltas[(d["benchmark"], d["model"], d["level"], d["name"])]
        assert row["n"] == d["N"]
        assert close(row["paired_mean"], d["mean"])
        assert close(row["ci_low"], d["ci95_lower"]) and close(row["ci_high"], d["ci95_upper"])


def _pct_field(value: str) -> float | None:
    return float(value) if value not in ("", None) else None


def test_ci_tables_as_printed(table, deltas) -> None:
    """The three CSV tables of compute_ci_from_per_sample_scores.py (full precision)."""
    tables = golden("ci_tables.json")
    for row in tables["table1"]:
        level, name = TABLE1_BUCKETS[row["task_group"]]
        for prefix, mode in (("clinseek", "agentic"), ("curated_input", "oneshot")):
            cell = table.get((mode, "ehr_bench", row["slug"], level, name))
            mean = _pct_field(row[f"{prefix}_mean_pp"])
            if mean is None:
                assert cell is None
                continue
            assert close(cell["ci_mean"], mean)
            assert close(cell["ci_low"], _pct_field(row[f"{prefix}_ci95_lower_pp"]))
            assert close(cell["ci_high"], _pct_field(row[f"{prefix}_ci95_upper_pp"]))
        delta = _pct_field(row["delta_mean_pp"])
        if delta is not None:
            d = deltas[("ehr_bench", row["slug"], level, name)]
            assert close(d["paired_mean"], delta)
            assert close(d["ci_low"], _pct_field(row["delta_ci95_lower_pp"]))
            assert close(d["ci_high"], _pct_field(row["delta_ci95_upper_pp"]))
    for row in tables["table2"]:
        mode = "agentic" if row["method"] == "ClinSeek" else "oneshot"
        for column, name in TABLE2_COLUMNS.items():
            level = "overall" if name == "overall" else "task"
            cell = table.get((mode, "mm_bench", row["slug"], level, name))
            if row[f"{column}_n"] == "0":
                assert cell is None, (row["slug"], mode, name)
                continue
            assert cell["ci_n"] == int(row[f"{column}_n"])
            assert cell["in_paper_table"]
            assert close(cell["ci_low"], _pct_field(row[f"{column}_ci95_lower_pp"]))
            assert close(cell["ci_high"], _pct_field(row[f"{column}_ci95_upper_pp"]))
    for row in tables["table3"]:
        for column, name in TABLE3_COLUMNS.items():
            level = "overall" if name == "overall" else "task"
            cell = table[("agentic", "agent_ehr_bench", row["model"], level, name)]
            assert cell["in_paper_table"] and cell["n"] == int(row[f"{column}_n"])
            assert close(cell["score"], _pct_field(row[f"{column}_mean_pp"]))
            assert close(cell["ci_low"], _pct_field(row[f"{column}_ci95_lower_pp"]))
            assert close(cell["ci_high"], _pct_field(row[f"{column}_ci95_upper_pp"]))


def test_report_table_cells(table, deltas) -> None:
    """build_report.py's printed cells (percent there, fractions here) and its deltas."""
    report = golden("report_tables.json")
    for row in report["table1"]:
        for key, (level, name) in (("risk_prediction", ("group", "risk_prediction")),
                                   ("decision_making", ("group", "decision_making")),
                                   ("overall", ("overall", "overall"))):
            for suffix, mode in (("ag", "agentic"), ("os", "oneshot")):
                want = row[f"{key}_{suffix}"]
                cell = table.get((mode, "ehr_bench", row["slug"], level, name))
                assert (cell is None) == (want is None)
                if want is not None:
                    assert close(cell["score"] * 100, want)
            if row[f"{key}_delta"] is not None:
                d = deltas[("ehr_bench", row["slug"], level, name)]
                assert close(d["delta"] * 100, row[f"{key}_delta"])
    for row in report["table3_mm"]:
        for c in row["cells"]:
            for suffix, mode in (("ag", "agentic"), ("os", "oneshot")):
                cell = table.get((mode, "mm_bench", row["slug"], "task", c["l4"]))
                assert (cell is None) == (c[suffix] is None)
                if cell is not None:
                    assert close(cell["score"] * 100, c[suffix])
            if c["delta"] is not None:
                assert close(deltas[("mm_bench", row["slug"], "task", c["l4"])]["delta"] * 100,
                             c["delta"])
        for suffix, mode in (("ag", "agentic"), ("os", "oneshot")):
            want = row[f"{suffix}_overall_mm"]
            cell = table.get((mode, "mm_bench", row["slug"], "overall", "overall"))
            assert (cell is None) == (want is None)
            if want is not None:
                assert close(cell["score"] * 100, want)
        if row["delta_overall_mm"] is not None:
            d = deltas[("mm_bench", row["slug"], "overall", "overall")]
            assert close(d["delta"] * 100, row["delta_overall_mm"])


def test_the_paper_and_the_authors_scorer_both_exist(con) -> None:
    """Where the paper's rule and score_text.py disagree, both numbers are there, named."""
    rows = con.execute(
        "SELECT p.score, l.score, l.scorer FROM paper_table AS p JOIN leaderboard AS l "
        "USING (run_id) WHERE p.level = 'overall' AND p.benchmark = 'ehr_bench' "
        "AND p.model = 'kimi_k2_5' AND p.mode = 'agentic'").fetchall()
    [(paper, board, scorer)] = rows
    assert scorer == "authors_text" and abs(paper - board) > 0.05
    [(both,)] = con.execute(
        "SELECT count(DISTINCT scorer) FROM leaderboard_all_scorers WHERE run_id = "
        "'ehr_bench/agentic/full1800/kimi_k2_5' AND scorer IN ('paper_text', "
        "'authors_text')").fetchall()
    assert both == 2


def test_the_authors_hierarchy_in_the_tree_is_reconciled_not_run(con) -> None:
    """hierarchical/ (reorganize_results.py's default output inside the results tree) is
    recognised: no run, no summary rows; every node number equals the paper views'."""
    kinds = dict(con.execute("SELECT kind, count(*) FROM files WHERE path LIKE "
                             "'hierarchical/%' GROUP BY kind").fetchall())
    assert kinds.keys() == {"hier_rows", "hier_summary", "hier_aggregate", "markdown"}
    assert con.execute("SELECT count(*) FROM runs WHERE run_id LIKE 'hierarchical%'"
                       ).fetchall() == [(0,)]
    assert con.execute("SELECT count(*) FROM rejects").fetchall() == [(0,)]
    status = dict(con.execute("SELECT status, count(*) FROM paper_hierarchy_reconciliation "
                              "GROUP BY status").fetchall())
    assert status.keys() <= {"match", "no_cell"} and status["match"] > 150


def test_explorer_page_and_report_show_the_printed_cells(db: Path, table, tmp_path: Path
                                                         ) -> None:
    """/paper (JSON) and etl report show the cells the paper prints, with the view's numbers."""
    from tests.serving import get, running_server

    printed = {k: v for k, v in table.items() if v["in_paper_table"]}
    with running_server(db) as base:
        status, _, body = get(f"{base}/paper?format=json")
        assert status == 200
        shown = json.loads(body)["tables"]
        status, _, _ = get(f"{base}/paper?benchmark=no_such_bench")
        assert status == 404
    rows = [r for table_rows in shown.values() for r in table_rows]
    cells = {(mode, r["benchmark"], r["model"], r["level"], r["name"]): r[f"{mode}_score"]
             for r in rows for mode in ("agentic", "oneshot") if r[f"{mode}_n"] is not None}
    assert cells.keys() == printed.keys()
    assert all(close(cells[k], v["score"]) for k, v in printed.items())
    run_etl("report", "--db", str(db), "--out", str(tmp_path / "report.html"))
    page = (tmp_path / "report.html").read_text()
    section = page[page.index('<section id="paper">'):]
    section = section[:section.index("</section>")]
    assert section.count("<tr><td>") == len({(k[1], k[2], k[3], k[4]) for k in printed})
    overall = printed[("agentic", "ehr_bench", "kimi_k2_5", "overall", "overall")]
    assert f"{overall['score'] * 100:.1f} [{overall['ci_low'] * 100:.1f}, " in page
