"""The failure registry (etl/failures/registry.py) is the one home of the labels: every label
the warehouse holds or the SQL names is registered and described, a broken entry is refused
by name, and a new label needs its rule plus one registry entry and nothing else (a copy of
the package with one added ingests it into the labels and their views)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import duckdb
import pytest

from etl import glossary
from etl.failures import registry
from etl.failures.registry import FAILURES, RegistryError
from tests.package_copy import copy_package, ingest_with

PROJECT = Path(__file__).resolve().parents[2]

_LABEL = re.compile(r"\bfailure\s*(?:=|<>|!=)\s*'([^']*)'|THEN\s*'([a-z_]+)'\s+ELSE\s*"
                    r"'([a-z_]+)'\s+END\s+AS\s+failure|coalesce\(\w+\.failure,\s*'([a-z_]+)'\)",
                    re.I)
_LABEL_IN = re.compile(r"\bfailure\s+(?:NOT\s+)?IN\s*\(([^()]*)\)", re.I)


def _labels_named(sql: str) -> set[str]:
    code = re.sub(r"--[^\n]*", "", re.sub(r"COMMENT ON .*?';\s*$", "", sql,
                                           flags=re.I | re.M | re.S))
    names = {n for groups in _LABEL.findall(code) for n in groups if n}
    for inside in _LABEL_IN.findall(code):
        names.update(re.findall(r"'([^']*)'", inside))
    return names


def test_every_label_the_sql_names_is_registered() -> None:
    named = {p.relative_to(PROJECT).as_posix(): _labels_named(p.read_text())
             for p in sorted((PROJECT / "sql").rglob("*.sql"))}
    registered = {f.name for f in FAILURES}
    unknown = {path: names - registered for path, names in named.items() if names - registered}
    assert not unknown, f"labels in sql/ that etl/failures/registry.py lacks: {unknown}"
    assert {"infrastructure", "run_error", "none"} <= named["sql/86_failures.sql"]


def test_every_label_of_the_warehouse_is_registered_and_described(demo_db: Path) -> None:
    with duckdb.connect(str(demo_db), read_only=True) as con:
        held = {r[0] for r in con.execute(
            "SELECT failure FROM call_failures UNION SELECT failure FROM result_checks "
            "UNION SELECT failure FROM result_failures").fetchall()}
        table = con.execute("SELECT * FROM failures ORDER BY position").fetchall()
        columns = [d[0] for d in con.description]
        texts = con.execute("SELECT failure FROM failure_texts").fetchall()
    rows = [dict(zip(columns, r, strict=True)) for r in table]
    assert rows == registry.table_rows()
    assert held <= {r["failure"] for r in rows}
    assert {t for t, in texts} <= {r["failure"] for r in rows if r["per_call"]}
    for f in FAILURES:
        assert glossary.failure_name(f.name) == f.title
        assert glossary.failure_description(f.name) == f.description


@pytest.mark.parametrize(("change", "message"), [
    (lambda f: (*f, f[0]), "registered twice"),
    (lambda f: tuple(dataclasses.replace(x, example="") if x.name == "tool_error" else x
                     for x in f), "needs a title, a description and an example"),
    (lambda f: tuple(dataclasses.replace(x, call_rule=None, is_error=False)
                     if x.name == "infrastructure" else x for x in f),
     "shows 'infrastructure', which is no call label"),
    (lambda f: tuple(dataclasses.replace(x, result_rule=None) if x.name == "empty_answer"
                     else x for x in f), "decided nowhere"),
    (lambda f: tuple(dataclasses.replace(x, is_error=False) if x.name == "tool_error" else x
                     for x in f), "is_error disagrees"),
])
def test_a_broken_registry_is_refused_by_name(change, message: str) -> None:
    registry.check(FAILURES)
    with pytest.raises(RegistryError, match=message):
        registry.check(change(FAILURES))


_NEW_RULE = '''

def think_call(call: CallFacts) -> str | None:
    """A test's label: every call of the think tool."""
    return "thinking" if call.tool == "ehr.think" else None
'''
_NEW_ENTRY = '''    Failure(
        "think_call", "a think call", "A test's label: the call is the think tool.",
        "ehr.think with any response", call_rule=rules.think_call),
'''


def test_a_new_label_is_one_rule_and_one_registry_entry(demo_tree, tmp_path: Path) -> None:
    """Copy the package, add a rule and one entry to FAILURES, ingest the demo tree with the
    copy: every think call carries the label, each of their results too, and table failures
    holds its words."""
    copy = copy_package(tmp_path)
    rules_py = copy / "etl" / "failures" / "rules.py"
    rules_py.write_text(rules_py.read_text() + _NEW_RULE)
    registry_py = copy / "etl" / "failures" / "registry.py"
    source = registry_py.read_text()
    head = "FAILURES: tuple[Failure, ...] = (\n"
    assert source.count(head) == 1
    registry_py.write_text(source.replace(head, head + _NEW_ENTRY))

    db = tmp_path / "warehouse.duckdb"
    ingest_with(copy, demo_tree[0], db)
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT title, levels, per_call FROM failures "
                           "WHERE failure = 'think_call'").fetchall() == [
            ("a think call", "call", True)]
        labelled = con.execute("SELECT run_id, qid, run_index, msg_idx, call_idx FROM "
                               "call_failures WHERE failure = 'think_call' ORDER BY ALL"
                               ).fetchall()
        thinks = con.execute("SELECT run_id, qid, run_index, msg_idx, call_idx FROM tool_calls "
                             "WHERE tool = 'ehr.think' ORDER BY ALL").fetchall()
        assert labelled and labelled == thinks
        carried = con.execute("SELECT count(*) FROM result_failures WHERE failure = "
                              "'think_call'").fetchone()[0]
        assert carried == len({t[:3] for t in thinks})
