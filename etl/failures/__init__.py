"""Failure labels: why a tool call or a result went wrong, one home.

- registry.py  FAILURES, the one list: each label's name, title, description and example
               (the glossary), and how it is decided; written to table ``failures``.
- rules.py     the rules decided when a file is parsed: one function per label, per tool
               call or per result.
- texts.py     the texts the writer's tools return on each failure (TEXT_RULES), each with
               the file and function of UCSC-VLAA/ClinSeekAgent that returns it; also the
               rule of tool_calls.is_error.
- tools.py     the writer's tools: each benchmark's tool set, their required arguments,
               the result cap.
- rows.py      the one builder of the call_failures and result_checks rows of a result.

The labels decided from what the load computes (an infrastructure error of a whole run,
run_error, none) and the views tying labels to the score, the cost and the repeats of a
question are in sql/86_failures.sql.

A new label: its rule in rules.py (or in the view), one entry in registry.FAILURES.
This module imports nothing, so etl/normalize.py can use texts.py without a cycle.
"""
