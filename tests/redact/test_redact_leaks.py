"""A `--redact` warehouse leaks no patient id, wherever one could hide.

The demo tree (whose qids and session ids spell patient ids) plus a run of hostile records
(patient ids planted in every string a record, a score file, a summary and the run metadata
can hold: session ids, labels, predictions, tool names and call ids, unknown keys and content
blocks, a `messages` value that is not a list, values that do not fit their column, a
damaged line, a record without a qid) is ingested twice: as is and with --redact. Every raw
id of the unredacted build (every 6+ digit run of every qid, subject / hadm / stay / session
id and reject reason in it, and every id the test planted) is then searched

- in every column of every table and view of the redacted warehouse, through SQL (DuckDB
  compresses strings, so a search of the file's bytes would miss them),
- in every Parquet file and text file of its `etl export`,
- in every page of the explorer over it (crawled from the home page by following its
  links, as HTML, JSON and CSV; the rejects page, the SQL page and its CSV included).

A digit run is compared whole (ids are found as maximal runs of digits), so a 19-digit
hash that happens to contain an 8-digit id is not a false alarm."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import duckdb
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from etl.pipeline.ingest import IngestOptions, run_ingest
from tests.budgets import examples
from tests.conftest import make_tree, run_etl

KEY = "leak-test-key"
HOSTILE_RUN = "ehr_bench/agentic/full1800/zz_hostile_model"
DIGIT_RUN = re.compile(r"[0-9]+")
ID_LENGTH = 6  # the shortest digit run treated as an id (MIMIC ids have 8 digits)


def _hostile_ids() -> dict[str, int]:
    """Ids planted by the test, each unlike any id of the demo tree (which draws 1xxxxxxx
    subjects and 2xxxxxxx admissions)."""
    names = ["subject", "hadm", "stay", "subject2", "hadm2", "bad_hadm", "label", "predicted",
             "reasoning_id", "tool", "call", "extra_key", "extra_value", "block", "messages",
             "prediction_time", "damaged", "no_qid", "status_qid_subject", "status_qid_hadm",
             "cmd_subject", "summary_task", "score_note", "nonfinite", "name", "error",
             "backend",
             # ids written as JSON numbers, strings, keys and list items in every file kind
             # (planted by plant_ids_everywhere)
             "sum_number", "sum_list_0", "sum_list_1", "sum_object_id", "sum_camel",
             "sum_key", "sum_string", "status_number", "status_list", "status_key",
             "manifest_number", "region_number", "scores_number", "tool_number",
             "scored_number", "scored_list", "input_subject", "input_hadm", "log_backend",
             "cmd_number", "record_number", "record_list", "hier_key", "classifier_qid",
             # reached through links: a linked run directory, a file linked inside the tree
             "linked_subject", "linked_hadm", "linked_summary", "linked_cmd",
             "linked_file_number",
             # the other kinds of the demo tree and an Inspect AI log (plant_other_kinds)
             "rescored_number", "rescored_list", "vocab_number", "vocab_list",
             "multi_number", "repair_number", "repaired_qid", "repaired_status",
             "inspect_qid_subject", "inspect_qid_hadm", "inspect_patient", "inspect_hadm",
             "inspect_stay", "inspect_key", "inspect_eval_patient", "inspect_eval_list"]
    return {name: 90_000_001 + 1_000 * i for i, name in enumerate(names)}


IDS = _hostile_ids()


def _message_list(ids: dict[str, int], qid: str) -> list[dict[str, Any]]:
    finish_args = orjson.dumps({"response": [f"drug {ids['predicted']}", "aspirin"]}).decode()
    return [
        {"role": "system", "content": "You are an agent."},
        {"role": "user", "content": [
            {"type": "text", "text": f"patient {ids['subject']}"},
            {"type": "input_text", "text": f"admission {ids['hadm']}"},
            {"type": "tool_result", "content": f"block {ids['block']}"}]},
        {"role": "assistant", "content": f"looking at {qid}",
         "reasoning_content": f"think {ids['reasoning_id']}",
         "name": f"agent_{ids['name']}",
         "tool_calls": [{"id": f"call_{ids['call']}", "type": "function",
                         "function": {"name": f"ehr.lookup_{ids['tool']}",
                                      "arguments": orjson.dumps(
                                          {"sql": f"WHERE subject_id = {ids['subject']}"}
                                      ).decode()}},
                        {"id": "c2", "type": "function",
                         "function": {"name": "ehr.finish", "arguments": finish_args}}]},
        {"role": "tool", "content": f"rows of {ids['hadm']}",
         "tool_call_id": f"call_{ids['call']}"},
        {"role": "tool", "content": "ok", "tool_call_id": "c2"},
    ]


def hostile_lines() -> list[bytes]:
    """Result records with patient ids in every string they carry."""
    ids = IDS
    qid = f"labevents_{ids['subject']}_{ids['hadm']}"
    good = {
        "qid": qid, "run_index": 1, "task": "labevents", "task_type": "decision_making",
        "subject_id": ids["subject"], "hadm_id": ids["hadm"], "stay_id": ids["stay"],
        "session_id": f"{qid}__q_1__run_1", "status": "success", "completed": True,
        "stop_reason": "finish_tool_call", "error": None,
        "label": [f"drug {ids['label']}", "aspirin"],
        "question": f"What did patient {ids['subject']} get?",
        "backend_model_id": f"vendor.model-{ids['backend']}",
        "candidates": [f"drug {ids['label']}"],
        f"note_{ids['extra_key']}": {"subject_id": ids["extra_value"]},
        f"score_{ids['nonfinite']}": float("nan"),
        "messages": _message_list(ids, qid),
    }
    second_qid = f"labevents_{ids['subject2']}_{ids['hadm2']}"
    odd = {
        "qid": second_qid, "run_index": 1, "task": "labevents",
        "subject_id": ids["subject2"], "hadm_id": {"id": ids["bad_hadm"]},
        "prediction_time": f"admitted {ids['prediction_time']}",
        "session_id": f"{second_qid}__q_2__run_1", "status": "error", "completed": False,
        "stop_reason": "exception", "error": f"failed on subject {ids['error']}",
        "label": ["aspirin"], "messages": f"trajectory of {ids['messages']}",
    }
    no_qid = {"run_index": 1, "session_id": f"labevents_{ids['no_qid']}_1__q_3__run_1"}
    # orjson writes NaN as null; the writer (Python's json) writes a bare NaN.
    nan_key = f'"score_{ids["nonfinite"]}":'.encode()
    return [orjson.dumps(good).replace(nan_key + b"null", nan_key + b"NaN"),
            orjson.dumps(odd), orjson.dumps(no_qid),
            f'{{"qid": "labevents_{ids["damaged"]}_1", "task": "lab'.encode()]  # cut short


def plant_hostile_run(root: Path) -> None:
    ids = IDS
    run = root / HOSTILE_RUN
    run.mkdir(parents=True)
    (run / "results.jsonl").write_bytes(b"\n".join(hostile_lines()) + b"\n")
    qid = f"labevents_{ids['subject']}_{ids['hadm']}"
    (run / "per_question.jsonl").write_bytes(orjson.dumps({
        "qid": qid, "task": "labevents", "subject_id": ids["subject"], "hadm_id": ids["hadm"],
        "label": ["aspirin"], "completed": True, "num_runs": 1,
        "note": f"checked {ids['score_note']}",
        "runs": [{"predictions": ["aspirin"], "prediction_source": "finish_tool_call",
                  "f1": 1.0, "precision": 1.0, "recall": 1.0, "em": 1.0}],
        "avg_f1": 1.0, "avg_precision": 1.0, "avg_recall": 1.0, "avg_em": 1.0}) + b"\n")
    (run / "summary.json").write_text(json.dumps({
        "overall": {"total": 2, "f1": 0.5},
        "per_task": {f"labevents_{ids['summary_task']}": {"total": 1, "f1": 1.0}},
        "per_question": {qid: {"f1": 1.0}}}))
    (run / "status.json").write_text(json.dumps({
        "friendly_name": "Hostile", "returncode": 0,
        "failed_qids": [f"labevents_{ids['status_qid_subject']}_{ids['status_qid_hadm']}"]}))
    (run / "cmd.txt").write_text(f"python run_text.py --only_subject {ids['cmd_subject']} "
                                 f"--subject_id {ids['cmd_number']} "
                                 f"--output_dir results/{HOSTILE_RUN}\n")
    plant_ids_everywhere(root)


LINKED_RUN = "ehr_bench/agentic/full1800/zz_linked_model"


def plant_ids_everywhere(root: Path) -> None:
    """Ids as JSON numbers (under keys naming them, as list items, in objects), as strings,
    as keys, in every kind of file the tree holds, and in files reached through a link to
    a run directory outside the tree and through a file link inside it."""
    ids = IDS
    run = root / HOSTILE_RUN
    summary = json.loads((run / "summary.json").read_text())
    summary["overall"].update({
        "worst_subject_id": ids["sum_number"],
        "subject_ids": [ids["sum_list_0"], ids["sum_list_1"]],
        "patients": [{"id": ids["sum_object_id"]}], "worstHadmId": ids["sum_camel"],
        "stay_id": str(ids["sum_string"])})
    summary["per_subject"] = {str(ids["sum_key"]): {"f1": 1.0}}
    (run / "summary.json").write_text(json.dumps(summary))
    status = json.loads((run / "status.json").read_text())
    status.update({"subject_id": ids["status_number"], "hadm_ids": [ids["status_list"]],
                   str(ids["status_key"]): "seen"})
    (run / "status.json").write_text(json.dumps(status))
    (run / "manifest.json").write_text(json.dumps(
        {"mode": "agentic", "shards": [], "patient_id": ids["manifest_number"]}))
    (run / "meta").mkdir()
    (run / "meta" / "regions.source").write_text(json.dumps(
        {"us-east-1": "vendor.model", "subject_id": ids["region_number"]}))
    (run / "region_map.json").symlink_to(Path("meta") / "regions.source")  # a link inside
    (run / "scores.json").write_text(json.dumps(
        {"overall": {"f1": 0.5, "worst_patient": ids["scores_number"]},
         "per_task": {"labevents": {"f1": 0.5}}}))
    (run / "tool.json").write_text(json.dumps(
        {"summary": {"records": 2, "subject_id": ids["tool_number"]}}))
    qid = f"labevents_{ids['subject']}_{ids['hadm']}"
    (run / "scored.jsonl").write_text(json.dumps(
        {"qid": qid, "run_index": 1, "f1": 1.0, "subject_id": ids["scored_number"],
         "hadm_ids": [ids["scored_list"]]}) + "\n")
    (run / "us-east-1").mkdir()
    (run / "us-east-1" / "input.jsonl").write_text(json.dumps(
        {"qid": f"labevents_{ids['input_subject']}_{ids['input_hadm']}",
         "task": "labevents"}) + "\n")
    (run / "run.log").write_text(
        f"Using AWS Bedrock: vendor.model-{ids['log_backend']} @ us-east-1 | thinking=auto\n")
    lines = (run / "results.jsonl").read_bytes().split(b"\n")
    first = json.loads(lines[0])  # the stdlib: the line holds a bare NaN, and keeps it
    first.update({"worst_subject_id": ids["record_number"], "subject_ids": [ids["record_list"]]})
    lines[0] = json.dumps(first).encode()
    (run / "results.jsonl").write_bytes(b"\n".join(lines))
    hierarchy = root / "hierarchical" / "agentic" / "ehr_bench" / "zz_hostile_model"
    hierarchy.mkdir(parents=True, exist_ok=True)
    (hierarchy / "aggregate.json").write_text(json.dumps(
        {"count": 1, "f1": 1.0, "L1.EHR": {f"L2.{ids['hier_key']}": {"count": 1, "f1": 1.0}}}))
    classifier = root / "analysis" / "mm_bench_classify"
    classifier.mkdir(parents=True, exist_ok=True)
    last = max(classifier.glob("classification_*.jsonl"),
               default=classifier / "classification_1.jsonl")
    with last.open("a") as fh:  # the file the views read (the greatest name)
        fh.write(json.dumps({"qid": f"ehrxqa_{ids['classifier_qid']}",
                             "coarse_task": "ehrxqa_image",
                             "classification": {"task": "cxr", "is_multimodal": True}}) + "\n")
    # A run directory outside the root that the tree links to (as subset600 is linked).
    external = root.parent / "external" / "zz_linked_model"
    external.mkdir(parents=True)
    linked_qid = f"labevents_{ids['linked_subject']}_{ids['linked_hadm']}"
    (external / "results.jsonl").write_bytes(orjson.dumps({
        "qid": linked_qid, "run_index": 1, "task": "labevents",
        "subject_id": ids["linked_subject"], "hadm_id": ids["linked_hadm"],
        "session_id": f"{linked_qid}__q_1__run_1", "status": "success", "completed": True,
        "label": ["aspirin"], "messages": [{"role": "user", "content": "q"}]}) + b"\n")
    (external / "summary.json").write_text(json.dumps(
        {"overall": {"total": 1, "f1": 0.0, "subject_id": ids["linked_summary"]}}))
    (external / "cmd.txt").write_text(f"python run_text.py --subject {ids['linked_cmd']}\n")
    (external / "status.json").write_text(json.dumps(
        {"returncode": 0, "hadm_id": ids["linked_file_number"]}))
    (root / LINKED_RUN).symlink_to(external)
    plant_other_kinds(root)


def _edit_json(path: Path, **values: Any) -> None:
    document = json.loads(path.read_text())
    document.update(values)
    path.write_text(json.dumps(document))


def _edit_first_line(path: Path, **values: Any) -> None:
    lines = path.read_bytes().split(b"\n")
    lines[0] = json.dumps({**json.loads(lines[0]), **values}).encode()
    path.write_bytes(b"\n".join(lines))


def plant_other_kinds(root: Path) -> None:
    """Ids in the kinds of file the hostile run does not hold, in the demo tree's own files
    (a rescored.jsonl and its summary_vocab.json, the multi-model run's summary, the helper
    outputs of the run linked from outside the tree), and in an Inspect AI log: as numbers
    and lists of them where the kind keeps numbers, as strings where it keeps only text."""
    ids = IDS
    scored = root / "mm_bench/agentic/scored/claude_opus_4_6"
    _edit_first_line(scored / "rescored.jsonl", subject_id=ids["rescored_number"],
                     hadm_ids=[ids["rescored_list"]])
    _edit_json(scored / "summary_vocab.json", worst_subject_id=ids["vocab_number"],
               subject_ids=[ids["vocab_list"]])
    (multi,) = root.glob("mm_bench/agentic/full2703/_multi_eval_raw/*/summary.json")
    _edit_json(multi, worst_patient_id=ids["multi_number"])
    helpers = root / "agent_ehr_bench/agentic/subset600/claude_opus_4_6"  # linked in
    _edit_json(helpers / "results.repaired.summary.json", subject_id=ids["repair_number"])
    _edit_first_line(helpers / "results.repaired.jsonl",  # its rows keep only text
                     qid=f"labevents_{ids['repaired_qid']}_1",
                     status=f"error on {ids['repaired_status']}")
    plant_inspect_log(root / "inspect_logs")


def plant_inspect_log(directory: Path) -> None:
    """An Inspect AI log (written by Inspect itself) whose sample ids spell patient ids and
    whose sample and task metadata hold them as numbers, lists, strings and keys."""
    from inspect_ai.log import read_eval_log, write_eval_log

    from tests.inspect_logs import write_log

    ids = IDS
    qid = f"labevents_{ids['inspect_qid_subject']}_{ids['inspect_qid_hadm']}"
    path = write_log(directory, ids=[qid, "q_plain"], epochs=1,
                     patients={qid: ids["inspect_patient"], "q_plain": ids["inspect_patient"]})
    log = read_eval_log(str(path))
    for sample in log.samples or []:
        sample.metadata = {**(sample.metadata or {}), "hadm_ids": [ids["inspect_hadm"]],
                           "stay_id": str(ids["inspect_stay"]),
                           str(ids["inspect_key"]): "seen"}
    log.eval.metadata = {"patient_id": ids["inspect_eval_patient"],
                         "cohort": {"subject_ids": [ids["inspect_eval_list"]]}}
    write_eval_log(log, str(path))


# -- the builds ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("leaks")
    root = base / "tree"
    make_tree(root, "--damage")
    plant_hostile_run(root)
    plain = base / "plain.duckdb"
    run_ingest(root, plain, IngestOptions(jobs=2))
    redacted = base / "shared.duckdb"
    run_etl("ingest", str(root), "--db", str(redacted), "--redact", "--redact-key", KEY,
            "--quiet")
    return {"root": root, "plain": plain, "redacted": redacted, "base": base}


def _relations(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [name for (name,) in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' AND NOT temporary "
        "UNION ALL SELECT view_name FROM duckdb_views() WHERE schema_name = 'main' "
        "AND NOT internal AND NOT temporary ORDER BY 1").fetchall()]


def _columns(con: duckdb.DuckDBPyConnection, relation: str) -> list[str]:
    return [name for (name,) in con.execute(
        "SELECT column_name FROM duckdb_columns() WHERE schema_name = 'main' "
        "AND table_name = ? ORDER BY column_index", [relation]).fetchall()]


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _digit_runs_query(relation_sql: str, columns: list[str]) -> str:
    """SQL listing, per column of a relation, the distinct runs of 6+ digits in its values
    (every type cast to text: a number column is searched too). One pass over the relation:
    a view is computed once, not once per column."""
    values = ", ".join(f"CAST({_quoted(c)} AS VARCHAR)" for c in columns)
    return (f"SELECT col, list(DISTINCT run) FROM (SELECT col, unnest(regexp_extract_all("
            f"v, '[0-9]{{{ID_LENGTH},}}')) AS run FROM (SELECT unnest(range({len(columns)})) "
            f"AS col, unnest([{values}]) AS v FROM {relation_sql})) GROUP BY col")


def digit_runs(con: duckdb.DuckDBPyConnection, relation_sql: str, columns: list[str]
               ) -> dict[str, set[str]]:
    """{column: the distinct runs of 6+ digits in its values} of one relation."""
    if not columns:
        return {}
    return {columns[col]: set(runs or ())
            for col, runs in con.execute(_digit_runs_query(relation_sql, columns)).fetchall()}


def hits_in_relation(con: duckdb.DuckDBPyConnection, relation_sql: str, columns: list[str],
                     needles: set[str]) -> dict[str, set[str]]:
    """{column: raw ids found in it} for one relation."""
    found = {column: runs & needles
             for column, runs in digit_runs(con, relation_sql, columns).items()}
    return {column: runs for column, runs in found.items() if runs}


def raw_ids(plain: Path) -> set[str]:
    """Every raw id of the unredacted build: the 6+ digit runs of every column that names a
    question, a patient, an admission, a stay or a session, and of the reasons and excerpts
    of every reject (a damaged line's qid, a hadm_id that did not fit its column), plus every
    id the test planted."""
    con = duckdb.connect(str(plain), read_only=True)
    try:
        needles = {str(v) for v in IDS.values()}
        for (relation,) in con.execute("SELECT table_name FROM duckdb_tables() "
                                       "WHERE schema_name = 'main'").fetchall():
            id_columns = [c for c in _columns(con, relation)
                          if re.search(r"qid|subject|hadm|stay|session", c)]
            if relation == "rejects":
                id_columns += ["error", "excerpt"]
            for runs in digit_runs(con, _quoted(relation), id_columns).values():
                needles |= runs
        return needles
    finally:
        con.close()


@pytest.fixture(scope="module")
def needles(builds: dict[str, Path]) -> set[str]:
    found = raw_ids(builds["plain"])
    assert len(found) > 200, "the demo's qids spell patient ids"
    return found


def test_the_search_finds_the_ids_in_the_unredacted_build(builds: dict[str, Path],
                                                          needles: set[str]) -> None:
    """Control: without --redact the planted ids are where the test put them, so a search
    that finds none of them in the redacted build means something."""
    con = duckdb.connect(str(builds["plain"]), read_only=True)
    try:
        found: dict[str, set[str]] = {}
        for (relation,) in con.execute("SELECT table_name FROM duckdb_tables() "
                                       "WHERE schema_name = 'main'").fetchall():
            for column, runs in hits_in_relation(con, _quoted(relation),
                                                 _columns(con, relation), needles).items():
                found[f"{relation}.{column}"] = runs
    finally:
        con.close()
    every = set().union(*found.values())
    planted = {str(v) for v in IDS.values()}
    # Each planted id lands in the unredacted warehouse (a few only in the excerpt or the
    # text of a damaged line).
    assert planted <= every, sorted(planted - every)
    for column in ("results.session_id", "results.qid", "rejects.error", "messages.content",
                   "tool_calls.arguments", "results.extra", "run_meta.value",
                   "summary_metrics.json_path", "results.prediction", "tool_calls.call_id"):
        assert column in found, column


def test_no_raw_id_in_any_table_or_view(builds: dict[str, Path], needles: set[str]) -> None:
    con = duckdb.connect(str(builds["redacted"]), read_only=True)
    try:
        leaks = {}
        for relation in _relations(con):
            for column, runs in hits_in_relation(con, _quoted(relation),
                                                 _columns(con, relation), needles).items():
                leaks[f"{relation}.{column}"] = sorted(runs)[:3]
        rows = con.execute("SELECT count(*) FROM results").fetchone()[0]
    finally:
        con.close()
    assert rows > 1900
    assert leaks == {}


def test_no_raw_id_in_the_parquet_export(builds: dict[str, Path], needles: set[str]) -> None:
    out = builds["base"] / "export"
    run_etl("export", "--db", str(builds["redacted"]), "--parquet", str(out))
    files = sorted(p for p in out.rglob("*") if p.is_file())
    parquet = [p for p in files if p.suffix == ".parquet"]
    assert len(parquet) > 20
    leaks: dict[str, list[str]] = {}
    con = duckdb.connect()
    try:
        for path in parquet:
            relation = f"read_parquet('{path}', hive_partitioning = false)"
            columns = [d[0] for d in con.execute(f"SELECT * FROM {relation} LIMIT 0").description]
            for column, runs in hits_in_relation(con, relation, columns, needles).items():
                leaks[f"{path.relative_to(out)}:{column}"] = sorted(runs)[:3]
    finally:
        con.close()
    for path in files:
        if path.suffix != ".parquet":
            runs = set(DIGIT_RUN.findall(path.read_text(errors="replace"))) & needles
            if runs:
                leaks[str(path.relative_to(out))] = sorted(runs)[:3]
        runs = set(DIGIT_RUN.findall(str(path.relative_to(out)))) & needles
        if runs:
            leaks[f"name {path.relative_to(out)}"] = sorted(runs)[:3]
    assert leaks == {}


# -- the explorer --------------------------------------------------------------------------
class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "action") and value:
                self.hrefs.append(value)


def _links(html: str) -> list[str]:
    parser = _Links()
    parser.feed(html)
    return [h for h in parser.hrefs if h.startswith("/") and not h.startswith("//")
            and not h.startswith("/static/")]


@contextmanager
def serving(db: Path) -> Iterator[str]:
    """etl serve over db, as a user starts it (the SQL page's deadline past the test's
    safety net: a table's answer must not depend on how busy the machine is)."""
    from tests.serving import free_port, wait_for_server
    from tests.waiting import SAFETY_SECONDS

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "etl.cli", "serve", "--db", str(db),
                             "--port", str(port), "--sql-timeout", str(SAFETY_SECONDS)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for_server(base, proc)
        yield base
    finally:
        proc.terminate()
        proc.wait(30)


@pytest.fixture(scope="module")
def explorer(builds: dict[str, Path]) -> Iterator[str]:
    with serving(builds["redacted"]) as base:
        yield base


PER_ROUTE = 25  # pages crawled per route (path): every route, a sample of its pages


def crawl(base: str) -> Iterator[tuple[str, bytes]]:
    """(url, body) of the pages reachable from the home page (at most PER_ROUTE per path),
    each as HTML, JSON and CSV."""
    from tests.serving import get

    queue = deque(["/"])
    seen: set[str] = set()
    per_route: dict[str, int] = {}
    while queue:
        link = queue.popleft()
        if link in seen:
            continue
        seen.add(link)
        path = urlsplit(link).path
        if per_route.get(path, 0) >= PER_ROUTE:
            continue
        per_route[path] = per_route.get(path, 0) + 1
        status, headers, body = get(base + link)
        yield link, body
        if "html" in headers.get("content-type", ""):
            queue.extend(_links(body.decode("utf-8", "replace")))
            params = [(k, v) for k, v in parse_qsl(urlsplit(link).query) if k != "format"]
            for fmt in ("json", "csv"):
                variant = path + "?" + urlencode([*params, ("format", fmt)])
                yield variant, get(base + variant)[2]


def test_no_raw_id_in_any_page_of_the_explorer(builds: dict[str, Path], needles: set[str],
                                               explorer: str) -> None:
    from tests.serving import get, post_sql

    con = duckdb.connect(str(builds["redacted"]), read_only=True,
                         config={"enable_external_access": False})
    try:
        hostile = con.execute("SELECT qid, run_index FROM results WHERE run_id = ?",
                              [HOSTILE_RUN]).fetchall()
        tables = [t for (t,) in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'").fetchall()]
    finally:
        con.close()
    assert len(hostile) == 2
    from tests.serving import get as plain_get

    # Control: the pages of the unredacted warehouse show the ids these pages are searched
    # for (the rejects page, its CSV, a hostile trajectory).
    with serving(builds["plain"]) as plain:
        qid = f"labevents_{IDS['subject']}_{IDS['hadm']}"
        key = urlencode({"run": HOSTILE_RUN, "qid": qid, "index": 1})
        for url in ("/rejects?format=csv", f"/trajectory?{key}"):
            found = set(DIGIT_RUN.findall(plain_get(plain + url)[2].decode())) & needles
            assert found, url
    leaks: dict[str, list[str]] = {}
    routes: set[str] = set()
    n_pages = 0

    def check(url: str, body: bytes) -> None:
        runs = set(DIGIT_RUN.findall(body.decode("utf-8", "replace"))) & needles
        if runs:
            leaks[url] = sorted(runs)[:3]

    for url, body in crawl(explorer):
        routes.add(urlsplit(url).path)
        check(url, body)
        n_pages += 1
    # The hostile run's trajectories, messages and rejects page by page.
    for qid, run_index in hostile:
        for url in (f"/trajectory?{urlencode({'run': HOSTILE_RUN, 'qid': qid})}"
                    f"&index={run_index}",
                    f"/questions?{urlencode({'run': HOSTILE_RUN})}"):
            for fmt in ("html", "json", "csv"):
                check(f"{url}&format={fmt}", get(f"{explorer}{url}&format={fmt}")[2])
    for fmt in ("html", "json", "csv"):
        for params in ({}, {"path": f"{HOSTILE_RUN}/results.jsonl"}):
            url = f"/rejects?{urlencode({**params, 'format': fmt})}"
            check(url, get(explorer + url)[2])
    # The SQL page: every table, as the page shows it and as its CSV.
    for table in tables:
        for fmt in ("html", "csv"):
            status, body = post_sql(explorer, f"SELECT * FROM {table}", fmt)
            assert status == 200, (table, body[:300])
            check(f"/sql {table} {fmt}", body)
    assert {"/", "/board", "/questions", "/trajectory", "/rejects", "/sql"} <= routes, routes
    assert n_pages > 150, n_pages
    assert leaks == {}, leaks


# -- the rule for ids inside a text, against its documentation --------------------------------
def documented_redact_ids(text: str, key: str) -> str:
    """docs/SAFETY.md, written again here: in each word (a run of letters, digits and '_'),
    every '_'-separated token of 6+ digits becomes the keyed hash of the n-th such token's
    kind (subject, hadm, stay, then number); a run of 6+ digits inside a longer token its
    'number' hash; everything else stays."""
    from tests.redact.keyed import keyed_id

    out = []
    for piece in re.findall(r"[A-Za-z0-9_]+|[^A-Za-z0-9_]+", text):
        if not re.match(r"[A-Za-z0-9_]", piece):
            out.append(piece)
            continue
        tokens, n = [], 0
        for token in piece.split("_"):
            if re.fullmatch(r"[0-9]{6,}", token):
                kind = ("subject", "hadm", "stay")[n] if n < 3 else "number"
                tokens.append(str(keyed_id(key, kind, token)))
                n += 1
            else:
                tokens.append(re.sub(r"[0-9]{6,}",
                                     lambda m: str(keyed_id(key, "number", m.group())), token))
        out.append("_".join(tokens))
    return "".join(out)


ID_TEXT = st.lists(st.one_of(
    st.from_regex(r"[0-9]{1,12}", fullmatch=True), st.sampled_from(["_", "__", "-", " ", "\n",
                                                                     "(", '"', "é", "q"]),
    st.text(max_size=4)), max_size=12).map("".join)


@given(st.lists(ID_TEXT, min_size=1, max_size=25))
@settings(max_examples=examples(60), deadline=None)
def test_ids_in_any_text_are_hashed_by_the_documented_rule(texts: list[str]) -> None:
    from etl.redact import prepare_redaction

    con = _RULE_CONNECTION.setdefault("con", duckdb.connect())
    if "ready" not in _RULE_CONNECTION:
        prepare_redaction(con, KEY)
        _RULE_CONNECTION["ready"] = True
    # One query per example (binding the macros costs more than running them).
    got = con.execute("SELECT list_transform(?::VARCHAR[], lambda t: redact_ids(t))",
                      [texts]).fetchone()[0]
    for text, redacted in zip(texts, got, strict=True):
        assert redacted == documented_redact_ids(text, KEY)
        # No run of 6+ digits of the text is left whole in the result.
        assert not set(re.findall(r"[0-9]{6,}", text)) & set(re.findall(r"[0-9]+", redacted))


_RULE_CONNECTION: dict = {}
