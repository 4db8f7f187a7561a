"""Every property of `make test` states its budget through tests/budgets.py examples(n), so
that `make fuzz` runs it on its long budget, and none sets derandomize or an example database
of its own (the profiles do: docs/DEVELOPMENT.md, "Hypothesis budgets")."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
# Not a property: a fixed draw of Hypothesis' own generator that a smoke test ingests.
ALLOWED = {("fuzz/test_fuzz_ingest.py", "collect")}


def _settings_calls(tree: ast.AST) -> list[tuple[str, ast.Call]]:
    """(what it sets, call) of every settings(...) of a module: the decorators of each
    function, and the module's own statements (a shared settings object)."""
    found = []
    owners = [(node.name, node.decorator_list) for node in ast.walk(tree)
              if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]
    owners.append(("<module>", [n for n in tree.body if not isinstance(
        n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]))
    for owner, nodes in owners:
        for node in nodes:
            for call in ast.walk(node):
                if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                        and call.func.id == "settings"):
                    found.append((owner, call))
    return found


def _problems(path: Path) -> set[str]:
    rel = path.relative_to(TESTS).as_posix()
    problems = set()
    for function, call in _settings_calls(ast.parse(path.read_text(encoding="utf-8"))):
        if (rel, function) in ALLOWED:
            continue
        for keyword in call.keywords:
            if keyword.arg in ("derandomize", "database"):
                problems.add(f"{rel}::{function} sets {keyword.arg}")
            if keyword.arg == "max_examples" and isinstance(keyword.value, ast.Constant):
                problems.add(f"{rel}::{function} max_examples={keyword.value.value} "
                             "(use examples(n))")
    return problems


def test_every_budget_is_stated_through_examples() -> None:
    problems = sorted(p for path in TESTS.rglob("test_*.py") for p in _problems(path))
    assert problems == [], problems


def test_the_check_sees_a_literal_budget(tmp_path: Path) -> None:
    module = tmp_path / "test_x.py"
    module.write_text("@settings(max_examples=200, derandomize=True)\n"
                      "@given(st.integers())\ndef test_p(x): pass\n")
    calls = _settings_calls(ast.parse(module.read_text()))
    assert [(f, [k.arg for k in c.keywords]) for f, c in calls] == [
        ("test_p", ["max_examples", "derandomize"])]
