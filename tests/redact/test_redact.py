"""`ingest --redact`: a shareable warehouse with no free text from the records and keyed
hashes for patient / admission / stay ids, in which every count, score and view is unchanged.

Secrets are planted in every free-text field of a hand-written tree (question, message
content, reasoning, tool arguments, tool results, error text, multimodal text blocks, a
damaged line) and searched for in every VARCHAR column of every table AND in the raw bytes
of the database file (freed pages must not keep them either)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest

from etl.pipeline.ingest import IngestOptions, run_ingest
from tests.conftest import run_etl
from tests.redact.keyed import keyed_id
from tests.small_tree import stable

AGENTIC = "ehr_bench/agentic/full1800/claude_opus_4_6"
ONESHOT = "ehr_bench/oneshot/full1800/claude_opus_4_6"
MM = "mm_bench/agentic/full2703/qwen3_vl_235b"
KEY, OTHER_KEY = "k3y-for-tests", "another-key"
SECRETS = {
    "question": "SECRETQUESTION",
    "user": "SECRETUSERTEXT",
    "assistant": "SECRETASSISTANTTEXT",
    "reasoning": "SECRETREASONING",
    "arguments": "SECRETSQLARGUMENT",
    "tool_result": "SECRETTOOLRESULT",
    "error": "SECRETERRORTEXT",
    "image_text": "SECRETIMAGEBLOCKTEXT",
    "damaged": "SECRETDAMAGEDLINE",
}
# (subject_id, hadm_id, stay_id) per question; q0 and q1 share a patient.
PATIENTS = {"q0": (19990001, 29990001, 39990001), "q1": (19990001, 29990002, None),
            "q2": (19990003, 29990003, 39990003), "q3": ("S-19990004", None, None)}


def _record(qid: str, answer: list[str], error: bool = False) -> dict[str, Any]:
    subject, hadm, stay = PATIENTS[qid]
    base = {"qid": qid, "run_index": 1, "task": "prescriptions",
            "label": ["aspirin", "heparin"], "subject_id": subject, "hadm_id": hadm,
            "stay_id": stay, "question": f"{SECRETS['question']} about {qid}"}
    if error:
        return {**base, "status": "error", "completed": False, "stop_reason": "exception",
                "error": f"{SECRETS['error']}: patient {subject}", "messages": []}
    sql = {"id": "c1", "type": "function", "function": {
        "name": "ehr.run_sql_query",
        "arguments": orjson.dumps({"sql": f"SELECT {SECRETS['arguments']}"}).decode()}}
    finish = {"id": "c2", "type": "function", "function": {
        "name": "ehr.finish", "arguments": orjson.dumps({"response": answer}).decode()}}
    return {**base, "status": "success", "completed": True, "stop_reason": "finish_tool_call",
            "error": None, "messages": [
                {"role": "system", "content": "You are an agent."},
                {"role": "user", "content": f"{SECRETS['user']} subject {subject}"},
                {"role": "assistant", "content": SECRETS["assistant"],
                 "reasoning_content": SECRETS["reasoning"], "tool_calls": [sql]},
                {"role": "tool", "content": f"{SECRETS['tool_result']} {hadm}",
                 "tool_call_id": "c1"},
                {"role": "assistant", "content": "", "tool_calls": [finish]},
                {"role": "tool", "content": "ok", "tool_call_id": "c2"}]}


def _mm_record(qid: str) -> dict[str, Any]:
    record = _record(qid, ["pneumonia"])
    record["task"] = "medmod_phenotyping"
    record["label"] = [{"name": "pneumonia"}, {"name": "sepsis"}]
    record["messages"][1]["content"] = [
        {"type": "text", "text": SECRETS["image_text"]},
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg",
                                     "data": "U0VDUkVUSU1BR0VEQVRB"}}]
    return record


def build_tree(root: Path) -> None:
    for run_id, answers in ((AGENTIC, (["aspirin"], ["heparin", "x"], ["aspirin", "heparin"])),
                            (ONESHOT, (["x"], ["aspirin"], []))):
        (root / run_id).mkdir(parents=True)
        lines = [orjson.dumps(_record(f"q{i}", a)) for i, a in enumerate(answers)]
        lines.append(orjson.dumps(_record("q3", [], error=True)))
        lines.append(f'{{"qid": "q9", "question": "{SECRETS["damaged"]}'.encode())  # truncated
        (root / run_id / "results.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    (root / MM).mkdir(parents=True)
    (root / MM / "results.jsonl").write_bytes(
        b"\n".join(orjson.dumps(_mm_record(q)) for q in ("q0", "q1", "q2")) + b"\n")


def _ingest(root: Path, db: Path, key: str | None) -> Path:
    run_ingest(root, db, IngestOptions(jobs=1, redact=key is not None,
                                       redact_key=key))
    return db


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("redact")
    build_tree(base / "tree")
    return {
        "plain": _ingest(base / "tree", base / "plain.duckdb", None),
        "redacted": _ingest(base / "tree", base / "redacted.duckdb", KEY),
        "same_key": _ingest(base / "tree", base / "same_key.duckdb", KEY),
        "other_key": _ingest(base / "tree", base / "other_key.duckdb", OTHER_KEY),
    }


def _connect(db: Path) -> duckdb.DuckDBPyConnection:
    return duckdb.connect(str(db), read_only=True)


def _texts(db: Path) -> dict[str, list[str]]:
    """Every non-NULL value of every VARCHAR column of every table, by table.column. (Views
    are computed from these tables, so they cannot hold text the tables do not.)"""
    con = _connect(db)
    try:
        columns = con.execute(
            "SELECT c.table_name, c.column_name FROM duckdb_columns() c JOIN duckdb_tables() t "
            "USING (schema_name, table_name) WHERE c.schema_name = 'main' "
            "AND c.data_type = 'VARCHAR' ORDER BY ALL").fetchall()
        return {f"{table}.{column}": [value for (value,) in con.table(table).select(
                    duckdb.ColumnExpression(column)).fetchall() if value is not None]
                for table, column in columns}
    finally:
        con.close()


def _text_hits(db: Path, needle: str) -> list[str]:
    """table.column of every VARCHAR column holding needle."""
    return [name for name, values in _texts(db).items()
            if any(needle in value for value in values)]


def test_the_unredacted_warehouse_holds_every_secret(built: dict[str, Path]) -> None:
    """The search finds what it looks for: without --redact every secret is in a table."""
    for name, secret in SECRETS.items():
        assert _text_hits(built["plain"], secret), name


def test_no_free_text_left_in_any_column(built: dict[str, Path]) -> None:
    for name, secret in SECRETS.items():
        assert _text_hits(built["redacted"], secret) == [], name


def test_no_free_text_left_in_the_file_bytes(built: dict[str, Path]) -> None:
    db = built["redacted"]
    assert not db.with_name(db.name + ".wal").exists()
    data = db.read_bytes()
    plain = built["plain"].read_bytes()
    # Control: the search finds text that is stored as is. Trajectory text is stored with
    # ZSTD (invisible to a byte search either way), the results table's is not.
    visible = [name for name, secret in SECRETS.items() if secret.encode() in plain]
    assert {"question", "error"} <= set(visible), visible
    for name, secret in SECRETS.items():
        assert secret.encode() not in data, name
    assert KEY.encode() not in data


def _ids(db: Path) -> dict[tuple[str, str], tuple]:
    con = _connect(db)
    try:
        return {(run_id, qid): rest for run_id, qid, *rest in con.execute(
            "SELECT run_id, qid, subject_id, subject_id_text, hadm_id, stay_id FROM results"
        ).fetchall()}
    finally:
        con.close()


def test_ids_are_keyed_hashes(built: dict[str, Path]) -> None:
    plain, redacted = _ids(built["plain"]), _ids(built["redacted"])
    same, other = _ids(built["same_key"]), _ids(built["other_key"])
    assert plain.keys() == redacted.keys() == same.keys() == other.keys()
    originals = {str(v) for ids in PATIENTS.values() for v in ids if v is not None}
    for key, ids in redacted.items():
        assert ids == same[key], "one key gives the same hashes in every build"
        for original, hashed, hashed_other in zip(plain[key], ids, other[key], strict=True):
            assert (original is None) == (hashed is None), key  # NULL stays NULL
            if original is not None:
                assert str(hashed) not in originals, key
                assert hashed != hashed_other, f"{key}: another key, another hash"
    # Same original -> same hash: q0 and q1 share a patient, q2 is another one.
    subject = {qid: ids[0] for (run_id, qid), ids in redacted.items() if run_id == AGENTIC}
    assert subject["q0"] == subject["q1"] != subject["q2"]
    hadm = {qid: ids[2] for (run_id, qid), ids in redacted.items() if run_id == AGENTIC}
    assert len({hadm["q0"], hadm["q1"], hadm["q2"]}) == 3
    # The text subject id is hashed too; the same patient in two runs joins.
    assert {ids[1] for (_, qid), ids in redacted.items() if qid == "q3"} != {"S-19990004"}
    assert len({ids[0] for (_, qid), ids in redacted.items() if qid == "q0"}) == 1
    for original in originals:
        assert _text_hits(built["redacted"], original) == [], original


BOOTSTRAP_VIEWS = ("paired_comparisons_adjusted", "model_comparison_cells", "model_comparison",
                   "model_comparison_by_group", "model_comparison_by_task", "mode_delta_paired")
BOOTSTRAP_COLUMNS = ("ci_low", "ci_high")


def _everything(db: Path, qid_map: Callable[[str], str] | None = None,
                skip_drawn: bool = False) -> dict[str, Any]:
    """Row counts of every table, and every view in full (floats as in test_load),
    with qid_map applied to every qid column."""
    con = _connect(db)
    try:
        out: dict[str, Any] = {}
        for (name,) in con.execute("SELECT table_name FROM duckdb_tables() "
                                   "WHERE schema_name = 'main'").fetchall():
            out[name] = con.table(name).count("*").fetchall()[0][0]
        for (name,) in con.execute("SELECT view_name FROM duckdb_views() "
                                   "WHERE schema_name = 'main' AND NOT internal").fetchall():
            relation = con.table(name)
            # The paired bootstrap draws each question's weight from a hash of its qid, so
            # with patient ids hashed inside the qids the interval is another (equally
            # valid, equally reproducible) draw: docs/SAFETY.md says so. Every other number
            # of those views (diff, wins, exact sign-test p, Holm, rank groups) is the same.
            drawn = set(BOOTSTRAP_COLUMNS) if skip_drawn and name in BOOTSTRAP_VIEWS else set()
            if drawn:
                relation = relation.select(*[c for c in relation.columns if c not in drawn])
            mapped = [qid_map if qid_map and c == "qid" else None for c in relation.columns]
            out[name] = sorted((tuple(stable(f(v) if f and v is not None else v)
                                      for f, v in zip(mapped, row, strict=True))
                                for row in relation.fetchall()), key=repr)
        return out
    finally:
        con.close()


def test_counts_scores_and_views_unchanged(built: dict[str, Path]) -> None:
    plain, redacted = _everything(built["plain"]), _everything(built["redacted"])
    assert plain.keys() == redacted.keys()
    assert plain["leaderboard"], "the tree puts runs on the leaderboard"
    for name in plain:
        if name == "ingests":
            continue
        assert redacted[name] == plain[name], name
    con_p, con_r = _connect(built["plain"]), _connect(built["redacted"])
    try:
        sql = ("SELECT run_id, qid, scorer, precision, recall, f1, exact_match FROM "
               "question_scores ORDER BY ALL")
        assert con_r.execute(sql).fetchall() == con_p.execute(sql).fetchall()
        sql = "SELECT run_id, qid, status, n_messages, n_tool_calls, prediction FROM results"
        assert sorted(con_r.execute(sql).fetchall()) == sorted(con_p.execute(sql).fetchall())
        assert con_r.execute("SELECT options FROM ingests").fetchone()[0] == \
            '{"keep_images":false,"redact":true}'
    finally:
        con_p.close()
        con_r.close()


def test_demo_tree_redacted_keeps_counts_and_views(request: pytest.FixtureRequest,
                                                   tmp_path: Path) -> None:
    root, _ = request.getfixturevalue("demo_tree")
    # The demo qids spell patient ids (<task>_<subject_id>_<hadm_id>): hashed in place.
    plain = _everything(request.getfixturevalue("demo_db"), lambda q: expected_qid(q, KEY),
                        skip_drawn=True)
    db = _ingest(root, tmp_path / "redacted.duckdb", KEY)
    redacted = _everything(db, skip_drawn=True)
    for name in plain:
        if name != "ingests":
            assert redacted[name] == plain[name], name
    texts = _texts(db)
    for column in ("messages.content", "messages.reasoning", "tool_calls.arguments",
                   "results.question", "images.data", "rejects.excerpt"):
        assert texts[column] == [], column
    assert set(texts["results.error"]) <= {"[redacted]"}


def test_cli_needs_a_key_and_reads_it_from_the_environment(tmp_path: Path) -> None:
    build_tree(tmp_path / "tree")
    db = tmp_path / "shared.duckdb"
    env = {k: v for k, v in os.environ.items() if k != "ETL_REDACT_KEY"}
    refused = run_etl("ingest", str(tmp_path / "tree"), "--db", str(db), "--redact", "-q",
                      check=False, env=env)
    assert refused.returncode == 2 and "--redact-key" in refused.stderr
    assert not db.exists()
    run_etl("ingest", str(tmp_path / "tree"), "--db", str(db), "--redact", "-q",
            env={**env, "ETL_REDACT_KEY": KEY})
    assert _text_hits(db, SECRETS["question"]) == []
    assert _ids(db) == _ids(_ingest(tmp_path / "tree", tmp_path / "api.duckdb", KEY))


# ---- patient ids inside question ids ------------------------------------------------------
def expected_qid(qid: str, key: str) -> str:
    """Documented rule: each '_'-separated token of 6+ digits is replaced by the keyed hash
    of the n-th such token's kind (subject, hadm, stay, then number); the rest is kept."""
    out, n = [], 0
    for token in qid.split("_"):
        if re.fullmatch(r"[0-9]{6,}", token):
            out.append(str(keyed_id(key, ("subject", "hadm", "stay")[n] if n < 3 else "number",
                                    token)))
            n += 1
        else:
            out.append(token)
    return "_".join(out)


ID_QIDS = {  # qid -> (subject_id, hadm_id); the qid spells both, as the real tree does
    "ED_Hospitalization_18880001_28880001": (18880001, 28880001),
    "ED_Hospitalization_18880001_28880002": (18880001, 28880002),
    "ICU_Mortality_3day_18880003_28880003": (18880003, 28880003),
    "prescriptions_18880004": (18880004, None),
}


def test_patient_ids_inside_qids_are_hashed_everywhere(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    for run_id in (AGENTIC, MM):
        (root / run_id).mkdir(parents=True)
        lines = []
        for i, (qid, (subject, hadm)) in enumerate(ID_QIDS.items()):
            record = _mm_record("q0") if run_id == MM else _record("q0", ["aspirin"])
            record.update(qid=qid, subject_id=subject, hadm_id=hadm, stay_id=None)
            lines.append(orjson.dumps(record))
            if i == 0:
                lines.append(f'{{"qid": "{qid}", "trunc'.encode())  # a damaged line
        (root / run_id / "results.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    plain = _ingest(root, tmp_path / "plain.duckdb", None)
    redacted = _ingest(root, tmp_path / "redacted.duckdb", KEY)
    ids = {str(v) for pair in ID_QIDS.values() for v in pair if v is not None}

    # Control: the searches find the ids where they are stored in clear.
    plain_bytes = plain.read_bytes()
    assert all(_text_hits(plain, i) for i in ids)
    assert any(i.encode() in plain_bytes for i in ids)
    for original in ids:
        assert _text_hits(redacted, original) == [], original
        assert original.encode() not in redacted.read_bytes(), original

    con = _connect(redacted)
    try:
        rows = con.execute("SELECT qid, subject_id, hadm_id FROM results").fetchall()
        assert sorted(q for q, _, _ in rows) == sorted(
            expected_qid(q, KEY) for q in ID_QIDS for _ in (AGENTIC, MM))
        for qid, subject, hadm in rows:
            # The hashes in the qid are the row's own hashed id columns: still joinable.
            assert qid.split("_")[-2:] == [str(subject), str(hadm)] or (
                hadm is None and qid.endswith(f"_{subject}")), qid
            assert qid.startswith(("ED_Hospitalization_", "ICU_Mortality_3day_",
                                   "prescriptions_")), qid
        qids = {q for q, _, _ in rows}
        for table in ("messages", "tool_calls", "images", "question_scores"):
            found = {q for (q,) in con.execute(f"SELECT DISTINCT qid FROM {table}").fetchall()}
            assert found and found <= qids, table
        assert con.execute("SELECT count(*) FROM rejects").fetchall()[0][0] == 2
    finally:
        con.close()
    plain_views = _everything(plain, lambda q: expected_qid(q, KEY))
    redacted_views = _everything(redacted)
    for name in plain_views:
        if name != "ingests":
            assert redacted_views[name] == plain_views[name], name


def test_ids_written_as_numbers_under_keys_that_name_them(tmp_path: Path) -> None:
    """A summary or a metadata file may write a patient id as a JSON number, where no text
    rule sees a digit run, and of any length (a 5-digit id too): a number under a key that
    names a subject, patient, hadm, stay or session (or a list of them) is removed from a
    number column and hashed, by its kind, in a text column; a count of them is kept."""
    root = tmp_path / "tree"
    (root / AGENTIC).mkdir(parents=True)
    (root / AGENTIC / "results.jsonl").write_bytes(orjson.dumps(_record("q0", ["aspirin"])))
    (root / AGENTIC / "summary.json").write_text(orjson.dumps({"overall": {
        "f1": 0.5, "n_subjects": 3, "worst_subject_id": 4242, "hadm_ids": [5151, 6161],
        "patients": [{"id": 7171}], "worstStayId": 8181, "length_of_stay": 2.5}}).decode())
    (root / AGENTIC / "status.json").write_text(orjson.dumps(
        {"returncode": 0, "subject_id": 4242, "hadm_ids": [5151], "session_id": 9191,
         "pid": 1234}).decode())
    (root / AGENTIC / "cmd.txt").write_text("python run.py --subject_id 4242 --max_turns 30\n")
    plain = _ingest(root, tmp_path / "plain.duckdb", None)
    redacted = _ingest(root, tmp_path / "redacted.duckdb", KEY)

    def summary(db: Path) -> dict[str, float | None]:
        with _connect(db) as con:
            return dict(con.execute("SELECT metric, value FROM summary_metrics").fetchall())

    def meta(db: Path) -> dict[str, str | None]:
        with _connect(db) as con:
            return dict(con.execute("SELECT key, value FROM run_meta").fetchall())

    assert summary(plain)["worst_subject_id"] == 4242  # control: stored as written
    assert summary(redacted) == {
        "f1": 0.5, "n_subjects": 3, "worst_subject_id": None, "hadm_ids[0]": None,
        "hadm_ids[1]": None, "patients[0].id": None, "worstStayId": None,
        "length_of_stay": 2.5}
    assert meta(plain)["subject_id"] == "4242"
    got = meta(redacted)
    assert {k: got[k] for k in ("subject_id", "hadm_ids[0]", "session_id", "--subject_id",
                                "pid", "returncode", "--max_turns")} == {
        "subject_id": str(keyed_id(KEY, "subject", "4242")),
        "hadm_ids[0]": str(keyed_id(KEY, "hadm", "5151")),
        "session_id": str(keyed_id(KEY, "session", "9191")),
        "--subject_id": str(keyed_id(KEY, "subject", "4242")),
        "pid": "1234", "returncode": "0", "--max_turns": "30"}
