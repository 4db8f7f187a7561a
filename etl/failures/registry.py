"""The registry of failure labels: every label the warehouse gives a tool call or a result,
in one list (FAILURES), like the scorers' registry (etl/scoring/registry.py).

An entry says what a label is (title, description: the glossary the explorer, the report
and ``etl failures`` show), an example, and how it is decided:

- ``call_rule``: a function of one tool call (etl/failures/rules.py CallFacts), run when the
  file is parsed; its rows are table ``call_failures`` (one per call and label);
- ``result_rule``: a function of one result (ResultFacts), run when the file is parsed; its
  rows are table ``result_checks``;
- ``result_sql``: decided by view ``result_failures`` (sql/86_failures.sql) from what the
  load decides (results.error_kind, whose rule is sql/load/error_kind.sql) or from the
  other labels (``none``).

View ``result_failures`` gives every result its labels: its result rules' rows, each label
of its calls (a result carries a label when one of its calls does), its result_sql labels,
and ``none`` when it has no label at all. Every build writes this list into table
``failures`` (schema/86_failures.sql; etl/views.py write_rule_tables) and the writer's texts
(etl/failures/texts.py TEXT_RULES) into ``failure_texts``, so the views and surfaces read
the labels instead of naming them.

A new label is one rule (a function of rules.py) plus one entry below.
tests/failures/test_failure_registry.py holds the registry to that.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from etl.failures import rules, texts
from etl.failures.rules import CallFacts, Outcome, ResultFacts

CallRule = Callable[[CallFacts], str | None]
ResultRule = Callable[[ResultFacts], Outcome]

CALL, RESULT = "call", "result"


@dataclass(frozen=True, slots=True)
class Failure:
    """One label: what it is, an example, and how it is decided (module doc)."""

    name: str
    title: str
    description: str
    example: str
    call_rule: CallRule | None = None
    result_rule: ResultRule | None = None
    result_sql: bool = False
    is_error: bool = False  # a call carrying it is an error (tool_calls.is_error)

    def levels(self) -> str:
        """call, result, or call and result: what carries the label."""
        if self.call_rule is not None and (self.result_rule is not None or self.result_sql):
            return "call and result"
        return CALL if self.call_rule is not None else RESULT

    def decided(self) -> str:
        """Where the label is decided, in words (failures.decided)."""
        parts = []
        if self.call_rule is not None:
            parts.append(f"per tool call at parse time ({_where(self.call_rule)})")
        if self.result_rule is not None:
            parts.append(f"per result at parse time ({_where(self.result_rule)})")
        if self.result_sql:
            parts.append("per result by view result_failures (sql/86_failures.sql)")
        return "; ".join(parts)


def _where(rule: Callable[..., Any]) -> str:
    return f"{rule.__module__.replace('.', '/')}.py {rule.__name__}"


FAILURES: tuple[Failure, ...] = (
    Failure(
        "invalid_arguments", "invalid arguments",
        "The call's arguments do not parse to a JSON object, lack an argument the tool "
        "requires (the writer's tool schemas), or the tool refused them.",
        'ehr.run_sql_query with {"subject_id": "10001"} and no sql_query',
        call_rule=rules.invalid_arguments, is_error=True),
    Failure(
        "unknown_tool", "unknown tool",
        "The call names a tool the benchmark does not have (the executor answers "
        "'Unknown tool namespace', the MCP server 'Unknown tool').",
        "functions.finish, answered 'Unknown tool namespace: functions.finish'",
        call_rule=rules.unknown_tool, is_error=True),
    Failure(
        "tool_error", "tool error",
        "The tool ran and returned an error; the detail says which kind: SQL syntax, an "
        "unknown table or column, an image tool failure, an EHR not loaded, ...",
        "SQL Execution Error: Execution failed on sql '...': no such column: valuenum",
        call_rule=rules.tool_error, is_error=True),
    Failure(
        "empty_result", "empty result",
        "The tool answered with nothing: a query without rows, no candidates, no search "
        "hits, an empty text.",
        "Query executed successfully but returned no results.",
        call_rule=rules.empty_result),
    Failure(
        "truncated_result", "truncated result",
        "The result is exactly the writer's cap long (100,000 characters): the harness cut "
        "it, and the model read only its start.",
        "a labevents query whose 2.4 million characters were cut to 100,000",
        call_rule=rules.truncated_result),
    Failure(
        "infrastructure", "infrastructure",
        "The service failed, not the model: a tool call timed out or lost its connection or "
        "MCP session, or the whole run ended in a throttling, timeout, connection, SSL or "
        "server error (results.error_kind). A re-run would likely succeed.",
        "Error calling MCP tool 'run_sql_query': (an httpx ReadTimeout)",
        call_rule=rules.infrastructure, result_sql=True, is_error=True),
    Failure(
        "repeated_call", "repeated call",
        "The result calls the same tool with the same arguments more than once.",
        "ehr.get_table_names with the same subject_id three times",
        result_rule=rules.repeated_call),
    Failure(
        "no_final_answer", "no final answer",
        "The run did not fail with an error but left no answer the scorer can read: no "
        "finish call, or a finish call without a readable response.",
        "a run that stopped after 200 rounds of SQL without calling ehr.finish",
        result_rule=rules.no_final_answer),
    Failure(
        "empty_answer", "empty answer",
        "The finish call's answer holds no item.",
        'ehr.finish with {"response": []}',
        result_rule=rules.empty_answer),
    Failure(
        "answer_outside_candidates", "answer outside the candidates",
        "An answer item is not among the question's candidates, which the prompt says the "
        "answer must be chosen from (questions with candidates only).",
        "'Sepsis, unspecified' where the candidates hold 'Sepsis'",
        result_rule=rules.answer_outside_candidates),
    Failure(
        "run_error", "run error",
        "The run ended in an exception that is not an infrastructure failure (context "
        "length, unparseable model output, another error): the writer recorded status "
        "error and no trajectory.",
        "ValidationException: Input is too long for requested model",
        result_sql=True),
    Failure(
        "none", "clean",
        "The result carries no other label: every call answered, an answer was given.",
        "a run that loaded the EHR, queried it and called ehr.finish with candidates",
        result_sql=True),
)


class RegistryError(ValueError):
    """An entry of FAILURES breaks a rule the rows or the views rely on."""


def check(failures: tuple[Failure, ...]) -> None:
    """Raise RegistryError naming the entry when the list cannot be used."""
    names = [f.name for f in failures]
    for f in failures:
        where = f"failure {f.name!r} (etl/failures/registry.py)"
        if names.count(f.name) > 1:
            raise RegistryError(f"{where} is registered twice")
        if not (f.title and f.description and f.example):
            raise RegistryError(f"{where} needs a title, a description and an example")
        if f.call_rule is None and f.result_rule is None and not f.result_sql:
            raise RegistryError(f"{where} is decided nowhere: give it a rule")
        if f.result_rule is not None and f.result_sql:
            raise RegistryError(f"{where}: a result label is decided in one place")
        if f.is_error and f.call_rule is None:
            raise RegistryError(f"{where}: is_error is about calls; give it a call_rule")
    for rule in texts.TEXT_RULES:
        target = next((f for f in failures if f.name == rule.failure), None)
        if target is None or target.call_rule is None:
            raise RegistryError(f"text rule {rule.name!r} (etl/failures/texts.py) shows "
                                f"{rule.failure!r}, which is no call label of the registry")
        if target.is_error != (rule.failure in texts.ERROR_FAILURES):
            raise RegistryError(f"{rule.failure!r}: is_error disagrees with "
                                "texts.ERROR_FAILURES")


check(FAILURES)
BY_NAME: dict[str, Failure] = {f.name: f for f in FAILURES}


def call_failures() -> tuple[Failure, ...]:
    """The labels decided per tool call, in registry order."""
    return tuple(f for f in FAILURES if f.call_rule is not None)


def result_failures() -> tuple[Failure, ...]:
    """The labels decided per result when the file is parsed, in registry order."""
    return tuple(f for f in FAILURES if f.result_rule is not None)


def table_rows(failures: tuple[Failure, ...] | None = None) -> list[dict[str, Any]]:
    """Rows of table failures (schema/86_failures.sql); FAILURES as it is when called."""
    failures = FAILURES if failures is None else failures
    return [{
        "failure": f.name, "position": i + 1, "title": f.title, "description": f.description,
        "example": f.example, "levels": f.levels(), "decided": f.decided(),
        "per_call": f.call_rule is not None, "is_error": f.is_error,
    } for i, f in enumerate(failures)]


def text_rows() -> list[dict[str, Any]]:
    """Rows of table failure_texts: every text rule of etl/failures/texts.py."""
    return [{
        "rule": r.name, "position": i + 1, "failure": r.failure,
        "detail": r.detail if isinstance(r.detail, str) else None,
        "starts": " | ".join(r.starts) if r.starts else None,
        "pattern": r.pattern.pattern if r.pattern is not None else None,
        "source": r.source, "example": r.example,
    } for i, r in enumerate(texts.TEXT_RULES)]
