"""Property-based fuzzing of the ingest (issue 12): nothing crashes it and nothing is lost.

Hypothesis generates small results trees (tests/strategies.py) whose lines are raw JSON
text, damaged or not, each with the fate DESIGN.md's rules give it; tests/fuzz_check.py
ingests the tree in-process and checks every line's fate on the built warehouse.

Budgets (the Hypothesis profiles of tests/budgets.py):
- ``test`` (`make test`): derandomized, 25 trees, no example database: the same inputs on
  every run, well under a minute on 2 cores.
- ``fuzz``: random, many examples, failures remembered in .hypothesis/ (git-ignored) and
  each minimal failing tree written to .fuzz-failures/<hash>.json. `make fuzz` loops it
  for FUZZ_MINUTES (tests/fuzz_run.py). Copy a failure file into tests/fuzz_regressions/
  to keep it as a test (tests/fuzz/test_fuzz_regressions.py replays them).
ETL_FUZZ_EXAMPLES sets the number of trees under `fuzz` (500 when unset); the line-level
properties run ten times as many.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from etl.read import decode_line
from tests.budgets import SLOW_OK, examples, fuzzing
from tests.fuzz_check import ingest_and_check, save_failure, scratch_dir, write_tree
from tests.strategies import LineSpec, Raw, TreeSpec, any_json, line, render, trees

PROJECT = Path(__file__).resolve().parents[2]
FUZZ = settings(max_examples=examples(25, int(os.environ.get("ETL_FUZZ_EXAMPLES", "500"))),
                suppress_health_check=SLOW_OK)


def _is_final_run() -> bool:
    try:
        from hypothesis.control import current_build_context
        return bool(current_build_context().is_final)
    except Exception:  # noqa: BLE001 - an internal API: without it, save every failure
        return True


@FUZZ
@given(trees())
def test_every_line_of_a_generated_tree_ends_in_one_place(tree: TreeSpec) -> None:
    if os.environ.get("ETL_FUZZ_STATS"):  # tests/fuzz_run.py adds up what was tried
        lines = [spec for f in tree.files for spec in f.lines]
        with open(os.environ["ETL_FUZZ_STATS"], "a") as fh:
            fh.write(json.dumps({"trees": 1, "files": len(tree.files), "lines": len(lines),
                                 "objects": sum(len(x.objects) for x in lines)}) + "\n")
    try:
        ingest_and_check(tree)
    except BaseException as exc:
        if fuzzing() and _is_final_run():
            print(f"failing tree saved to {save_failure(tree, exc)}")
        raise


@settings(FUZZ, max_examples=FUZZ.max_examples * 10)
@given(st.sampled_from(["results", "scored", "per_question"]).flatmap(line), st.booleans())
def test_decode_line_never_raises_and_yields_storable_objects(spec: LineSpec,
                                                              crlf: bool) -> None:
    """The read step alone, on many more lines than the trees hold: each line decodes to
    what its spec says (blank: nothing; error: one error; else that many objects, each
    storable: finite numbers, text UTF-8 can encode) without an exception."""
    out = decode_line(spec.raw + (b"\r" if crlf else b""), 3)
    if spec.kind == "blank":
        assert out == []
    elif spec.kind == "error":
        assert [(x.line_no, x.severity, x.obj) for x in out] == [(3, "error", None)]
    else:
        assert len(out) == len(spec.objects)
        assert {x.severity for x in out} == {"repaired" if spec.repaired else None}
        for x in out:
            json.dumps(x.obj, allow_nan=False, ensure_ascii=False).encode("utf-8")


@settings(FUZZ, max_examples=FUZZ.max_examples * 10)
@given(any_json)
def test_the_oracle_renderer_writes_json(value: object) -> None:
    """A check of the test tool: plain values render to JSON the stdlib reads back, so a
    fuzz failure is the ingest's, not the generator's."""
    assume(not _has_raw(value))
    text, flags = render(value)
    assert not flags and json.loads(text) == value


def _has_raw(value: object) -> bool:
    if isinstance(value, Raw):
        return True
    if isinstance(value, dict):
        return any(_has_raw(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_raw(v) for v in value)
    return False


@pytest.mark.parametrize("seed", [1, 2])
def test_cli_on_a_generated_tree_exits_0_without_traceback(seed: int) -> None:
    """The command line as a user runs it, on generated damaged trees: exit 0, no Python
    traceback on stderr (the in-process property cannot see what the CLI prints)."""
    tree = _fixed_tree(seed)
    work = scratch_dir()
    try:
        write_tree(tree, work / "tree")
        proc = subprocess.run([sys.executable, "-m", "etl.cli", "ingest", str(work / "tree"),
                               "--db", str(work / "w.duckdb"), "--quiet"],
                              capture_output=True, text=True, cwd=PROJECT, timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert "Traceback" not in proc.stderr + proc.stdout
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _fixed_tree(seed: int) -> TreeSpec:
    """A deterministic generated tree: Hypothesis' own draw with a fixed seed, the largest
    of a few, so the CLI smoke sees many kinds of damage at once."""
    found: list[TreeSpec] = []

    @settings(derandomize=True, database=None, max_examples=10 * seed, deadline=None,
              suppress_health_check=SLOW_OK)
    @given(trees())
    def collect(tree: TreeSpec) -> None:
        found.append(tree)

    collect()
    return max(found, key=lambda t: sum(len(f.data()) for f in t.files))
