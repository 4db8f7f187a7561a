"""Failures planted in agentic trajectories, each with its truth (the label the warehouse must
give it, docs/ANALYSIS.md), in proportions that differ by model.

The texts are the ones UCSC-VLAA/ClinSeekAgent's tools return, typed here from the writer's
code (this module's own f-strings: it shares no code with etl/failures/, which it tests):

- the EHR MCP server (src/agentlite/mcp_tools/record_tools.py run_sql_query: ``SQL Execution
  Error: Execution failed on sql '<sql>': <sqlite error>``, ``Query executed successfully but
  returned no results.``; candidate_tools.py / table_tools.py: ``Error: Table '<t>' not
  found ...``, ``No records found in table ...``);
- FastMCP's refusals as the pools write an isError result (``Tool Error: [{'type': 'text',
  'text': 'Unknown tool: <name>'}]``, its ``Missing required argument`` validation error);
- the pools' own failures (ehr_pool.py / image_pool.py _call_mcp_tool: ``Error calling MCP
  tool '<t>': `` with httpx's empty ReadTimeout message, ``No data in SSE response``, ``HTTP
  Error <status>: ...``, ``MCP Error -32603: ...``);
- the executors (deploy_agent.py run_one_native: ``Error executing <tool>: <json error>``,
  ``Unknown tool namespace: <name>``);
- the image tools' JSON with ``"analysis_status": "failed"`` (src/mcp_image/tools/*.py);
- the browser (openresearcher_ehr/browser.py and the gpt-oss simple browser).

Rates are per tool call after the first (CALL_RATES) and per result (RESULT_RATES), from
what public agent evaluations report (MedAgentBench, FHIR-AgentEval: invalid calls and
formatting errors dominate, and weaker open models make more of them): the Claude models
fail least, the open models more, each with a habit of its own (GLM's malformed arguments,
Kimi's shortened tool names and repeated calls, gpt-oss's missing arguments)."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

# The writer's cap (deploy_agent.py / run_text.py DEFAULT_MAX_TOOL_RESULT_CHARS): a result cut
# by truncate_tool_result is exactly this long (its notice is empty).
WRITER_CAP = 100_000

# kind -> chance per tool call after the first; "truncated" cuts a big result at the cap
Rates = dict[str, float]
_BASE: Rates = {"sql_error": 0.04, "unknown_table": 0.01, "missing_argument": 0.005,
                "unknown_tool": 0.002, "empty_result": 0.05, "infrastructure": 0.01,
                "image_failed": 0.02, "not_loaded": 0.002, "truncated": 0.002}
CALL_RATES: dict[str, Rates] = {
    "claude_opus_4_6": {**_BASE, "sql_error": 0.02, "empty_result": 0.04},
    "claude_sonnet_4_6": {**_BASE, "sql_error": 0.03},
    "minimax_m2_5": {**_BASE, "sql_error": 0.05, "missing_argument": 0.015,
                     "unknown_tool": 0.008},
    "glm_4_7": {**_BASE, "sql_error": 0.06, "unknown_table": 0.02, "infrastructure": 0.02},
    "kimi_k2_5": {**_BASE, "sql_error": 0.05, "unknown_tool": 0.02, "image_failed": 0.04},
    "qwen3_vl_235b": {**_BASE, "sql_error": 0.07, "unknown_table": 0.03,
                      "empty_result": 0.07},
    "qwen3_235b": {**_BASE, "sql_error": 0.07, "unknown_table": 0.03},
    "gpt_oss_120b": {**_BASE, "sql_error": 0.05, "missing_argument": 0.03,
                     "not_loaded": 0.01},
}
# per result: a repeated call; an answer left empty or off the candidates (on results whose
# answer is wrong anyway, so the scores stay the plan's); an error of the run that is no
# infrastructure failure (on results planned as errors)
RESULT_RATES: dict[str, Rates] = {
    "claude_opus_4_6": {"repeat": 0.03, "empty_answer": 0.02, "outside": 0.03, "run_error": 0.2},
    "claude_sonnet_4_6": {"repeat": 0.04, "empty_answer": 0.02, "outside": 0.04,
                          "run_error": 0.2},
    "minimax_m2_5": {"repeat": 0.08, "empty_answer": 0.03, "outside": 0.1, "run_error": 0.3},
    "glm_4_7": {"repeat": 0.1, "empty_answer": 0.04, "outside": 0.12, "run_error": 0.3},
    "kimi_k2_5": {"repeat": 0.15, "empty_answer": 0.03, "outside": 0.1, "run_error": 0.3},
    "qwen3_vl_235b": {"repeat": 0.12, "empty_answer": 0.05, "outside": 0.15,
                      "run_error": 0.3},
    "qwen3_235b": {"repeat": 0.12, "empty_answer": 0.05, "outside": 0.15, "run_error": 0.3},
    "gpt_oss_120b": {"repeat": 0.08, "empty_answer": 0.06, "outside": 0.08, "run_error": 0.3},
}
_DEFAULT_RESULT: Rates = {"repeat": 0.05, "empty_answer": 0.03, "outside": 0.05,
                          "run_error": 0.25}

# Tool names no registry of the writer holds, which the multimodal executor's fuzzy match
# (deploy_agent_mm.py _fuzzy_match_suffix) cannot route either: the EHR server answers
# FastMCP's "Unknown tool".
UNKNOWN_NAMES = ("get_patient_summary", "lookup_diagnosis_codes", "get_lab_trend")
# answers no question of the tree has among its candidates
OFF_LIST = ("Sepsis, unspecified", "Chest pain NOS", "Acute on chronic kidney disease",
            "Maybe")
# the run's own errors: the text the synth writes -> (label, the kind the warehouse's
# error_kind rule must find in it)
RUN_ERRORS: dict[str, tuple[str, str]] = {
    "ReadTimeoutError: Read timed out. (read timeout=120)": ("infrastructure", "timeout"),
    "SSLError: EOF occurred in violation of protocol (_ssl.c:2427)": ("infrastructure", "ssl"),
    "ConnectionResetError: [Errno 104] Connection reset by peer":
        ("infrastructure", "connection"),
    "APIConnectionError: Connection error.": ("infrastructure", "connection"),
    "[ERROR] ThrottlingException: An error occurred (ThrottlingException) when calling the "
    "InvokeModel operation: Too many requests": ("infrastructure", "throttling"),
    "ValidationException: Input is too long for requested model.":
        ("run_error", "context_length"),
}
CONTEXT_ERROR = "ValidationException: Input is too long for requested model."


@dataclass(slots=True)
class Planted:
    """The truth of one record: (msg_idx, call_idx, label, detail) per labelled call and
    (label, detail, n_calls) per label of the whole result."""

    calls: list[tuple[int, int, str, str]] = field(default_factory=list)
    results: list[tuple[str, str, int]] = field(default_factory=list)


@dataclass(slots=True)
class Call:
    """One tool call as it will be written: the recorded name, its arguments (a dict, or
    the malformed text), the result text, and the labels planted on it."""

    name: str
    executed: str  # the normalized, routed name the warehouse's tool column holds
    arguments: Any
    result: str
    labels: list[tuple[str, str]] = field(default_factory=list)


def tool_arguments(executed: str, q_task: str, inputs: dict[str, Any], step: int) -> dict[str, Any]:
    """Arguments the writer's tool schemas require (all_ehr_tools.json, browser_tools.json,
    the image tools' parameters), different at every step so that no call repeats another
    unless one is planted to."""
    sid = str(inputs.get("subject_id"))
    family, _, bare = executed.partition(".")
    if bare == "load_ehr":
        return {"subject_id": sid, "timestamp": str(inputs.get("prediction_time"))}
    if bare == "get_records_by_time":
        when = str(inputs.get("prediction_time"))
        return {"subject_id": sid,
                "table_name": ("labevents", "chartevents", "prescriptions", "transfers")[step % 4],
                "start_time": f"{when[:4]}-01-{1 + step % 28:02d} {step // 28 % 24:02d}:00:00",
                "end_time": when}
    if bare == "run_sql_query":
        return {"subject_id": sid, "sql_query": f"SELECT * FROM labevents WHERE subject_id = "
                                                f"{sid} LIMIT {step + 5}"}
    if bare == "get_candidates_by_keyword":
        return {"table_name": f"{q_task}_candidates", "keyword": f"term {step}"}
    if bare == "think":
        return {"response": f"Step {step + 1}: weighing the records so far. 检查 ✓"}
    if bare == "search":
        return {"query": f"{q_task.replace('_', ' ')} clinical criteria, source {step}",
                "topn": 5}
    if bare == "open":
        return {"id": step % 10, "cursor": step // 10}
    if bare == "find":
        return {"pattern": "lactate", "cursor": step}
    if family == "image":
        return {"image_path": f"files/p{sid[:2]}/p{sid}/s{step:03d}/view.jpg"}
    return {"subject_id": sid, "step": step}


# a required argument of each tool (the writer's schemas) and the wrong name a model gives it
_MISNAMED = {"run_sql_query": ("sql_query", "query"),
             "get_candidates_by_keyword": ("keyword", "keywords"),
             "load_ehr": ("timestamp", "time"), "think": ("response", "thought"),
             "search": ("query", "q"), "find": ("pattern", "text"),
             "get_records_by_time": ("start_time", "start")}


def _tool_error_content(text: str) -> str:
    """The pools' isError result: f"Tool Error: {tool_result.get('content')}", content being
    the decoded list of text blocks."""
    return f"Tool Error: {[{'type': 'text', 'text': text}]}"


def _validation(bare: str, missing: str, args: dict[str, Any]) -> str:
    return _tool_error_content(
        f"Error calling tool '{bare}': 1 validation error for call[{bare}]\n{missing}\n  "
        f"Missing required argument [type=missing_argument, input_value={args!r}, "
        "input_type=dict]")


def executor_json_error(tool: str, arguments: str) -> str:
    """deploy_agent.py run_one_native: json.loads of the arguments raised."""
    try:
        json.loads(arguments)
    except json.JSONDecodeError as exc:
        return f"Error executing {tool}: {exc}"
    raise ValueError("the arguments parse")


class Planter:
    """Decides, from a random stream of its own, which calls and results of one trajectory
    carry a failure (the rest of the tree does not change with it)."""

    def __init__(self, model: str, rng: random.Random, *, multimodal: bool) -> None:
        self.rng = rng
        self.rates = CALL_RATES.get(model, _BASE)
        self.result_rates = RESULT_RATES.get(model, _DEFAULT_RESULT)
        self.multimodal = multimodal

    def result_label(self, kind: str) -> bool:
        return self.rng.random() < self.result_rates[kind]

    def off_list(self) -> str:
        return self.rng.choice(OFF_LIST)

    def repeat_step(self, n_steps: int) -> int | None:
        """The step that repeats an earlier call, or None."""
        if n_steps < 3 or not self.result_label("repeat"):
            return None
        return 2 + self.rng.randrange(n_steps - 2)

    def plant(self, call: Call, bare: str, q_task: str, step: int) -> None:
        """Maybe turn one clean call into a failing one (its name, arguments, result and
        labels), by the model's rates; the first call (load_ehr) never fails."""
        if step == 0:
            return
        r = self.rng.random()
        kinds = [k for k in ("sql_error", "unknown_table", "missing_argument", "unknown_tool",
                             "empty_result", "infrastructure", "image_failed", "not_loaded",
                             "truncated") if self._applies(k, call.executed, bare)]
        acc = 0.0
        for kind in kinds:
            acc += self.rates[kind]
            if r < acc:
                getattr(self, "_" + kind)(call, bare, q_task, step)
                return

    def _applies(self, kind: str, executed: str, bare: str) -> bool:
        family = executed.split(".", 1)[0]
        return {
            "sql_error": bare == "run_sql_query",
            "unknown_table": bare in ("get_records_by_time", "get_candidates_by_keyword"),
            "missing_argument": bare in _MISNAMED,
            "unknown_tool": family == "ehr" and bare not in ("load_ehr", "think"),
            "empty_result": bare in ("run_sql_query", "get_candidates_by_keyword", "search",
                                     "find"),
            "infrastructure": family != "browser" or bare == "search",
            "image_failed": family == "image",
            "not_loaded": bare == "run_sql_query",
            "truncated": bare == "run_sql_query",
        }[kind]

    # ---- the failures ------------------------------------------------------------------
    def _sql_error(self, call: Call, bare: str, q_task: str, step: int) -> None:
        sql = call.arguments["sql_query"]
        message, detail = self.rng.choice((
            ('near "FROM": syntax error', "sql_syntax"),
            ("no such column: valuenum_x", "sql_unknown_column"),
            ("no such table: lab_events", "sql_unknown_table")))
        call.result = f"SQL Execution Error: Execution failed on sql '{sql}': {message}"
        call.labels.append(("tool_error", detail))

    def _unknown_table(self, call: Call, bare: str, q_task: str, step: int) -> None:
        if bare == "get_candidates_by_keyword":
            call.result = (f"Error: Table '{q_task}_candidate' not found in candidate table "
                           f"list: ['{q_task}_candidates'].")
        else:
            call.result = ("Error: Table 'lab_events' not found in EHR Table list: "
                           "['admissions', 'labevents', 'prescriptions']. Make sure to call "
                           "load_ehr first.")
        call.labels.append(("tool_error", "unknown_table"))

    def _missing_argument(self, call: Call, bare: str, q_task: str, step: int) -> None:
        """A required argument under a wrong name (the value kept, so the call stays its
        step's own)."""
        missing, wrong = _MISNAMED[bare]
        args = {(wrong if k == missing else k): v for k, v in call.arguments.items()}
        call.arguments = args
        if call.executed.startswith("browser."):
            call.result = (f"Error: Invalid arguments for function '{bare}'. Please check the "
                           f"function signature. Details: SimpleBrowserTool.{bare}() got an "
                           f"unexpected keyword argument '{wrong}'")
        else:
            call.result = _validation(bare, missing, args)
        call.labels.append(("invalid_arguments", "missing_argument"))

    def _unknown_tool(self, call: Call, bare: str, q_task: str, step: int) -> None:
        name = self.rng.choice(UNKNOWN_NAMES)
        sep = "_" if call.name.startswith("ehr_") else "."
        call.name = f"ehr{sep}{name}"
        call.executed = f"ehr.{name}"
        call.result = _tool_error_content(f"Unknown tool: {name}")
        call.labels.append(("unknown_tool", "not_a_benchmark_tool"))

    def _empty_result(self, call: Call, bare: str, q_task: str, step: int) -> None:
        args = call.arguments
        call.result = {
            "run_sql_query": "Query executed successfully but returned no results.",
            "get_candidates_by_keyword": f"No records found in table '{args.get('table_name')}'"
                                         f" containing the keyword '{args.get('keyword')}'.",
            "search": f"Error during search for `{args.get('query')}`: No results returned "
                      f"for any query: ['{args.get('query')}']",
            "find": f"No `find` results for pattern: `{args.get('pattern')}`",
        }[bare]
        detail = {"run_sql_query": "no_rows", "get_candidates_by_keyword": "no_rows",
                  "search": "no_search_results", "find": "no_matches"}[bare]
        call.labels.append(("empty_result", detail))

    def _infrastructure(self, call: Call, bare: str, q_task: str, step: int) -> None:
        family = call.executed.split(".", 1)[0]
        if family == "browser":
            query = call.arguments.get("query", "x") if isinstance(call.arguments, dict) else "x"
            call.result = f"Error during search for `{query}`: Search error 503: unavailable"
            call.labels.append(("infrastructure", "search_backend"))
            return
        pool = "image tool" if family == "image" else "MCP tool"
        text, detail = self.rng.choice((
            (f"Error calling {pool} '{bare}': ", "timeout"),
            ("No data in SSE response", "empty_sse"),
            ("HTTP Error 502: <html><body>Bad Gateway</body></html>", "http_error"),
            ("MCP Error -32603: database is locked", "mcp_error")))
        call.result = text
        call.labels.append(("infrastructure", detail))

    def _image_failed(self, call: Call, bare: str, q_task: str, step: int) -> None:
        path = call.arguments.get("image_path")
        call.result = json.dumps({
            "output": {"error": f"Image not found at '{path}' (bench_roots=['/data/mm'])"},
            "metadata": {"image_path": path, "analysis_status": "failed"}}, indent=2)
        call.labels.append(("tool_error", "image_not_found"))

    def _not_loaded(self, call: Call, bare: str, q_task: str, step: int) -> None:
        sid = call.arguments.get("subject_id")
        call.result = f"Error: No tables found for subject_id {sid}. Please call load_ehr first."
        call.labels.append(("tool_error", "ehr_not_loaded"))

    def _truncated(self, call: Call, bare: str, q_task: str, step: int) -> None:
        call.result = ""  # the caller writes WRITER_CAP characters of its filler
        call.labels.append(("truncated_result", "at_writer_cap"))
