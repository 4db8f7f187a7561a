"""The cache stage (etl/pipeline/cache.py).

The parse cache is keyed by every input of a staged row, so an incremental ingest always
equals a full rebuild, also after a change to the code or data files that decide the rows
(discover, the archive name rules and etl/archive_overrides.json, model aliases, the DDL).

The change tests edit a private copy of the package (never the checkout) and run the real
command from it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import orjson
import pytest

import etl
from tests.small_tree import assert_same_warehouse

PACKAGE_DIR = Path(etl.__file__).resolve().parent
CHECKOUT_DIR = PACKAGE_DIR.parent  # the tests run from a checkout: schema/ and sql/ beside

# Runs the command line from the package copy given as first argument (the checkout's
# editable install would otherwise win the import of `etl`). One process: -j 1.
RUNNER = ("import sys; sys.meta_path[:] = [f for f in sys.meta_path "
          "if 'editable' not in repr(f).lower()]; sys.path.insert(0, sys.argv.pop(1)); "
          "from etl.cli import cli; cli(sys.argv[1:], prog_name='etl')")
ARCHIVE = "_archive/zz_mystery_dump"
RUN = "ehr_bench/agentic/full1800/opus_next"


def test_every_module_of_the_staging_path_is_in_the_key() -> None:
    """Whatever etl module discover, the copy rule, the stage and the extractors import must
    be hashed."""
    from etl.schema import row_input_files

    code = ("import sys, etl.pipeline.discover, etl.pipeline.copies, etl.archive, "
            "etl.pipeline.stage; "
            "from etl.extract import load_all; load_all(); "
            "print('\\n'.join(sorted(m.__file__ for n, m in sys.modules.items() "
            "if (n == 'etl' or n.startswith('etl.')) and getattr(m, '__file__', None))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    imported = {Path(p).resolve() for p in out}
    assert len(imported) > 10
    assert imported <= {p.resolve() for p in row_input_files()}, \
        imported - {p.resolve() for p in row_input_files()}
    assert (PACKAGE_DIR / "archive_overrides.json") in row_input_files()


def _record(qid: str) -> bytes:
    finish = {"id": "c1", "type": "function", "function": {
        "name": "ehr.finish", "arguments": orjson.dumps({"response": ["a"]}).decode()}}
    return orjson.dumps({"qid": qid, "run_index": 1, "task": "labevents", "label": ["a"],
                         "status": "success", "completed": True,
                         "stop_reason": "finish_tool_call",
                         "messages": [{"role": "assistant", "content": "",
                                       "tool_calls": [finish]}]}) + b"\n"


@pytest.fixture()
def package_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "pkg"
    ignore = shutil.ignore_patterns("__pycache__", "_data")
    shutil.copytree(PACKAGE_DIR, copy / "etl", ignore=ignore)
    for name in ("schema", "sql"):
        shutil.copytree(CHECKOUT_DIR / name, copy / name, ignore=ignore)
    return copy


def _ingest(package: Path, root: Path, db: Path, *extra: str) -> None:
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(package), "ingest", str(root),
                           "--db", str(db), "-q", "-j", "1", *extra],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def _models(db: Path) -> dict[str, set]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {"results": set(con.execute("SELECT run_id, model FROM results").fetchall()),
                "runs": set(con.execute("SELECT run_id, model FROM runs").fetchall())}
    finally:
        con.close()


def _tree(root: Path) -> Path:
    for run in (ARCHIVE, RUN):
        (root / run).mkdir(parents=True)
        (root / run / "results.jsonl").write_bytes(_record("q1") + _record("q2"))
    return root


def test_changed_archive_override_gives_what_a_full_rebuild_gives(package_copy: Path,
                                                                  tmp_path: Path) -> None:
    root, db = _tree(tmp_path / "tree"), tmp_path / "incremental.duckdb"
    _ingest(package_copy, root, db)
    assert (ARCHIVE, None) in _models(db)["results"]  # the name says no model
    overrides = package_copy / "etl" / "archive_overrides.json"
    data = json.loads(overrides.read_text())
    data["zz_mystery_dump"] = {"benchmark": "ehr_bench", "mode": "agentic", "model": "opus46",
                               "split": "full1800"}
    overrides.write_text(json.dumps(data))
    _ingest(package_copy, root, db)
    full = tmp_path / "full.duckdb"
    _ingest(package_copy, root, full, "--full")
    assert (ARCHIVE, "claude_opus_4_6") in _models(full)["results"]
    assert_same_warehouse(db, full)


def test_changed_discover_rule_gives_what_a_full_rebuild_gives(package_copy: Path,
                                                               tmp_path: Path) -> None:
    """discover decides the run fields every staged row carries (results.model here)."""
    root, db = _tree(tmp_path / "tree"), tmp_path / "incremental.duckdb"
    _ingest(package_copy, root, db)
    assert (RUN, "opus_next") in _models(db)["results"]
    discover = package_copy / "etl" / "pipeline" / "discover.py"
    rule = "model=canonical_model(model_dir), model_dir=model_dir, is_archived=False,"
    text = discover.read_text()
    assert text.count(rule) == 1
    discover.write_text(text.replace(rule, rule.replace(
        "canonical_model(model_dir)", "canonical_model(model_dir.removesuffix('_next'))")))
    _ingest(package_copy, root, db)
    full = tmp_path / "full.duckdb"
    _ingest(package_copy, root, full, "--full")
    assert (RUN, "claude_opus_4_6") in _models(full)["results"]
    assert_same_warehouse(db, full)
