"""What a tool result's text says went wrong: the texts the writer's tools really return.

Every text the ClinSeekAgent harness (UCSC-VLAA/ClinSeekAgent) writes into a tool message
when a call goes wrong, or when it returns nothing, is one TextRule below: the start (or
pattern) of the text, the failure it is (a label of etl/failures/registry.py), the kind of
failure (``detail``) and the writer's file and function that return it. ``verdict(text)``
gives the first rule that matches, in list order (specific rules before general ones).

Where the texts come from, read in the writer's code:

- the executors: openresearcher_ehr/deploy_agent.py ``run_one_native``,
  openresearcher_ehr/deploy_agent_mm.py ``run_one_native_mm``, clinseekagent/run_text.py
  and run_multimodal.py (``Error executing <tool>: <exception>`` around the argument parse
  and the pool call, ``Unknown tool namespace:``, ``Error: EHR tools not available.``);
- the MCP client pools: openresearcher_ehr/ehr_pool.py and image_pool.py,
  clinseekagent/ehr_tool_pool.py and image_tool_pool.py ``_call_mcp_tool`` (``Error calling
  MCP tool '<t>': <exception>`` for every exception, a timeout included: httpx's
  ReadTimeout usually has an empty message, so the text ends after the colon; ``HTTP Error
  <status>:``, ``No data in SSE response``, ``MCP Error <code>:``, ``Invalid MCP
  response:``, ``Tool Error: <content>`` for an isError result, whose content is FastMCP's
  ``Unknown tool: <name>`` or its argument validation error);
- the EHR MCP server: src/run_mcp_server.py ``load_ehr`` and src/agentlite/mcp_tools/
  record_tools.py, table_tools.py, candidate_tools.py (``SQL Execution Error: <sqlite
  error>`` from ``run_sql_query``, ``Error: Table '<t>' not found ...``, ``Error: Column
  '<c>' not found in table '<t>'.``, ``Query executed successfully but returned no
  results.``, ``No records found in table ...``, ...);
- the image MCP server: src/mcp_image/tools/*.py return a JSON object whose
  ``metadata.analysis_status`` is ``failed`` (``Image not found at '<path>'`` when the path
  does not resolve, src/mcp_image/tools/base.py ``resolve_image_path``) or
  ``completed_no_finding``;
- the browser: deploy_agent.py ``BrowserPool.call_tool``, openresearcher_ehr/browser.py
  ``BrowserTool._process`` and the gpt-oss simple browser it extends (``Error during search
  for ...``, ``Error fetching URL ...``, ``No `find` results for pattern: ...``).

The writer's truncation (deploy_agent.py / run_text.py ``truncate_tool_result``) appends an
empty notice: a truncated result carries no marker, only its length (etl/failures/tools.py
WRITER_RESULT_CAP). A failure text the writer truncates keeps its start, so a prefix still
matches.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

# The failures a text can show (names of etl/failures/registry.py, checked there).
INFRASTRUCTURE = "infrastructure"
UNKNOWN_TOOL = "unknown_tool"
INVALID_ARGUMENTS = "invalid_arguments"
TOOL_ERROR = "tool_error"
EMPTY_RESULT = "empty_result"
# The failures that make a result an error (tool_calls.is_error): the others (an empty
# result) are answers the tool gave.
ERROR_FAILURES = frozenset({INFRASTRUCTURE, UNKNOWN_TOOL, INVALID_ARGUMENTS, TOOL_ERROR})


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one tool result's text shows: a failure label and its kind."""

    failure: str
    detail: str


Detail = Callable[[str], str | None]


@dataclass(frozen=True, slots=True)
class TextRule:
    """One text the writer returns: `starts` (the text starts with one of them) or
    `pattern` (a regular expression searched from the start), the failure it is, its kind
    (`detail`: a name, or a function of the text returning a name, or None when the text
    is not this rule's after all), and where the writer returns it."""

    name: str
    failure: str
    detail: str | Detail
    source: str
    starts: tuple[str, ...] = ()
    pattern: re.Pattern[str] | None = None
    example: str = ""

    def matches(self, text: str) -> Verdict | None:
        if self.starts:
            if not text.startswith(self.starts):
                return None
        elif self.pattern is None or self.pattern.match(text) is None:
            return None
        detail = self.detail(text) if callable(self.detail) else self.detail
        return Verdict(self.failure, detail) if detail is not None else None


# ---- kinds read from inside a text ------------------------------------------------------

_TIMEOUT = re.compile(r"(?i)read ?timeout|timed out|timeout|deadline exceeded")
_JSON_ERRORS = ("Expecting ", "Unterminated string", "Extra data", "Invalid control character",
                "Invalid \\escape", "Invalid \\uXXXX escape",
                "the JSON object must be str, bytes or bytearray")
_VALIDATION = re.compile(r"(?i)validation error|missing required argument|"
                         r"unexpected keyword argument|field required|missing_argument")


def _after_colon(text: str) -> str:
    """What follows the first ': ' of a text (the exception or server message)."""
    head, sep, rest = text.partition(": ")
    return rest if sep else ""


def _pool_exception(text: str) -> str:
    """`Error calling MCP tool '<t>': <exception>`: an empty exception text is httpx's
    ReadTimeout (its message is empty), as is any text naming a timeout."""
    message = text.split("': ", 1)[1] if "': " in text else _after_colon(text)
    if not message.strip() or _TIMEOUT.search(message):
        return "timeout"
    if "Failed to initialize" in message:
        return "mcp_session"
    return "connection"


def _executor_exception(text: str) -> str | None:
    """`Error executing <tool>: <exception>`: the arguments did not parse (json.loads), the
    pool's session could not start, or another exception of the call."""
    message = _after_colon(text)
    if message.startswith(_JSON_ERRORS):
        return None  # the argument rule below
    if "Failed to initialize" in message and "MCP session" in message:
        return None  # the session rule below
    return "executor_exception"


def _json_decode(text: str) -> str | None:
    return "unparseable_arguments" if _after_colon(text).startswith(_JSON_ERRORS) else None


def _session(text: str) -> str | None:
    message = _after_colon(text)
    return "mcp_session" if "Failed to initialize" in message and "MCP session" in message \
        else None


def _mcp_error(failure: str) -> Detail:
    """`MCP Error <code>: <message>` (a JSON-RPC error object): FastMCP's unknown tool, an
    invalid-params error (-32602), or a server error."""
    def detail(text: str) -> str | None:
        unknown = "Unknown tool" in text
        invalid = "-32602" in text or "Invalid params" in text or _VALIDATION.search(text)
        if failure == UNKNOWN_TOOL:
            return "unknown_mcp_tool" if unknown else None
        if failure == INVALID_ARGUMENTS:
            return "rejected_arguments" if invalid and not unknown else None
        return None if unknown or invalid else "mcp_error"
    return detail


def _tool_error_content(failure: str) -> Detail:
    """`Tool Error: <content>` (an isError result): FastMCP's `Unknown tool: <name>`, its
    argument validation error, or the tool's own exception."""
    def detail(text: str) -> str | None:
        unknown = "Unknown tool" in text
        invalid = _VALIDATION.search(text) is not None
        if failure == UNKNOWN_TOOL:
            return "unknown_mcp_tool" if unknown else None
        if failure == INVALID_ARGUMENTS:
            return "rejected_arguments" if invalid and not unknown else None
        return None if unknown or invalid else "mcp_tool_error"
    return detail


def _sql_error(text: str) -> str:
    """`SQL Execution Error: <error>`: pandas.read_sql_query over SQLite wraps the sqlite3
    message (`Execution failed on sql '<sql>': no such column: x`)."""
    message = text.lower()
    if "no such table" in message:
        return "sql_unknown_table"
    if "no such column" in message:
        return "sql_unknown_column"
    if ("syntax error" in message or "incomplete input" in message
            or "unrecognized token" in message):
        return "sql_syntax"
    return "sql_error"


def _table_not_found(text: str) -> str:
    """`Error: Table '<t>' not found in EHR Table list: [...]. Make sure to call load_ehr
    first.`: an empty list means no EHR was loaded, else the table does not exist."""
    if "Table list: []" in text or "Table list: None" in text:
        return "ehr_not_loaded"
    return "unknown_table"


def _search_error(failure: str) -> Detail:
    """gpt-oss browser `Error during search for `<q>`: <message>`: no hits at all (the
    backend raises `No results returned for any query`), the search backend's HTTP status
    (`Search error <status>`), or anything else."""
    def detail(text: str) -> str | None:
        if "No results returned" in text:
            kind, name = EMPTY_RESULT, "no_search_results"
        elif "Search error" in text:
            kind, name = INFRASTRUCTURE, "search_backend"
        else:
            kind, name = TOOL_ERROR, "browser_error"
        return name if kind == failure else None
    return detail


_IMAGE_STATUS = re.compile(r'"analysis_status"\s*:\s*"(failed|completed_no_finding)"')


def _image_status(failure: str) -> Detail:
    """The image tools' JSON result: metadata.analysis_status failed (an exception inside
    the tool; `Image not found at ...` when the path does not resolve) or
    completed_no_finding (xray_phrase_grounding found nothing)."""
    def detail(text: str) -> str | None:
        found = _IMAGE_STATUS.search(text) if '"analysis_status"' in text else None
        if found is None:
            return None
        if found.group(1) == "completed_no_finding":
            return "no_finding" if failure == EMPTY_RESULT else None
        if failure != TOOL_ERROR:
            return None
        return "image_not_found" if "Image not found at" in text else "image_tool_failed"
    return detail


_NO_CANDIDATE_LINE = re.compile(r"--- No (?:semantically )?similar candidates found for ")


def _no_candidates(text: str) -> str | None:
    """candidate_tools.py: one `--- No similar candidates found ...` section per keyword;
    empty only when every section is one."""
    lines = [line for line in text.splitlines() if line.strip()]
    return "no_candidates" if lines and all(_NO_CANDIDATE_LINE.match(line) for line in lines) \
        else None


# ---- the rules, most specific first ----------------------------------------------------

EXECUTOR = "openresearcher_ehr/deploy_agent.py run_one_native, deploy_agent_mm.py " \
           "run_one_native_mm, clinseekagent/run_text.py run_one_native"
POOLS = "openresearcher_ehr/ehr_pool.py / image_pool.py, clinseekagent/ehr_tool_pool.py / " \
        "image_tool_pool.py _call_mcp_tool"
RECORD_TOOLS = "src/agentlite/mcp_tools/record_tools.py"
TABLE_TOOLS = "src/agentlite/mcp_tools/table_tools.py"
CANDIDATE_TOOLS = "src/agentlite/mcp_tools/candidate_tools.py"
IMAGE_TOOLS = "src/mcp_image/tools/*.py (chest_xray_classifier, image_visualizer, ...)"
BROWSER = "openresearcher_ehr/browser.py BrowserTool and gpt_oss simple_browser_tool.py"

TEXT_RULES: tuple[TextRule, ...] = (
    # executors: the arguments did not parse, the pool's session did not start, other
    TextRule("executor_json", INVALID_ARGUMENTS, _json_decode, EXECUTOR,
             starts=("Error executing ",),
             example="Error executing ehr.run_sql_query: Unterminated string starting at: "
                     "line 1 column 11 (char 10)"),
    TextRule("executor_session", INFRASTRUCTURE, _session,
             EXECUTOR + "; image_pool.py _init_mcp_session",
             starts=("Error executing ",),
             example="Error executing image.chest_xray_classifier: Failed to initialize "
                     "image MCP session: All connection attempts failed"),
    TextRule("executor_exception", TOOL_ERROR, _executor_exception,
             EXECUTOR + "; ehr_pool.py call_tool",
             starts=("Error executing ",),
             example="Error executing load_ehr: argument of type 'int' is not iterable"),
    TextRule("tools_disabled", INFRASTRUCTURE, "tools_unavailable", EXECUTOR,
             starts=("Error: EHR tools not available.", "Error: Image tools not available."),
             example="Error: EHR tools not available. Start with --enable_ehr flag."),
    TextRule("unknown_namespace", UNKNOWN_TOOL, "unknown_namespace", EXECUTOR,
             starts=("Unknown tool namespace: ",),
             example="Unknown tool namespace: functions.finish"),
    # MCP client pools
    TextRule("pool_exception", INFRASTRUCTURE, _pool_exception, POOLS,
             starts=("Error calling MCP tool ", "Error calling image tool "),
             example="Error calling MCP tool 'run_sql_query': "),
    TextRule("pool_http", INFRASTRUCTURE, "http_error", POOLS, starts=("HTTP Error ",),
             example="HTTP Error 502: Bad Gateway"),
    TextRule("pool_sse", INFRASTRUCTURE, "empty_sse", POOLS,
             starts=("No data in SSE response",), example="No data in SSE response"),
    TextRule("pool_invalid", INFRASTRUCTURE, "mcp_protocol", POOLS,
             starts=("Invalid MCP response:",),
             example="Invalid MCP response: {'jsonrpc': '2.0', 'id': 1}"),
    TextRule("mcp_error_unknown_tool", UNKNOWN_TOOL, _mcp_error(UNKNOWN_TOOL), POOLS,
             starts=("MCP Error ",), example="MCP Error -32602: Unknown tool: sql_query"),
    TextRule("mcp_error_arguments", INVALID_ARGUMENTS, _mcp_error(INVALID_ARGUMENTS), POOLS,
             starts=("MCP Error ",), example="MCP Error -32602: Invalid params"),
    TextRule("mcp_error", INFRASTRUCTURE, _mcp_error(INFRASTRUCTURE), POOLS,
             starts=("MCP Error ",), example="MCP Error -32603: database is locked"),
    TextRule("tool_error_unknown_tool", UNKNOWN_TOOL, _tool_error_content(UNKNOWN_TOOL),
             POOLS + " (isError) over fastmcp ToolManager.get_tool",
             starts=("Tool Error: ",),
             example="Tool Error: [{'type': 'text', 'text': 'Unknown tool: sql_query'}]"),
    TextRule("tool_error_arguments", INVALID_ARGUMENTS, _tool_error_content(INVALID_ARGUMENTS),
             POOLS + " (isError) over FastMCP's argument validation",
             starts=("Tool Error: ",),
             example="Tool Error: [{'type': 'text', 'text': \"Error calling tool "
                     "'run_sql_query': 1 validation error for call[run_sql_query]\\n"
                     "sql_query\\n  Missing required argument\"}]"),
    TextRule("tool_error", TOOL_ERROR, _tool_error_content(TOOL_ERROR), POOLS + " (isError)",
             starts=("Tool Error: ",),
             example="Tool Error: [{'type': 'text', 'text': \"Error calling tool "
                     "'get_latest_records': KeyError('charttime')\"}]"),
    # EHR MCP server
    TextRule("sql_error", TOOL_ERROR, _sql_error, RECORD_TOOLS + " run_sql_query",
             starts=("SQL Execution Error: ",),
             example="SQL Execution Error: Execution failed on sql 'SELECT valuenum FROM "
                     "labevents WHERE itemid = 5': no such column: valuenum"),
    TextRule("sql_no_table", TOOL_ERROR, "sql_unknown_table", RECORD_TOOLS + " run_sql_query",
             starts=("Error: The SQL query does not seem to reference any available tables.",),
             example="Error: The SQL query does not seem to reference any available tables. "
                     "Available tables: ['admissions', 'labevents']"),
    TextRule("not_loaded", TOOL_ERROR, "ehr_not_loaded",
             RECORD_TOOLS + ", " + TABLE_TOOLS + ", " + CANDIDATE_TOOLS
             + " (a session without load_ehr; clinseekagent/ehr_tool_pool.py call_tool "
             "retries these once)",
             starts=("Error: No tables found for subject_id", "Error: No EHR data loaded.",
                     "Error: No candidate data loaded.",
                     "No tables are currently loaded or available."),
             example="Error: No tables found for subject_id 10001. Please call load_ehr first."),
    TextRule("table_not_found", TOOL_ERROR, _table_not_found,
             RECORD_TOOLS + ", " + TABLE_TOOLS + ", " + CANDIDATE_TOOLS,
             pattern=re.compile(r"(?:Error: )?Table '[^']*' not found"),
             example="Error: Table 'lab_events' not found in EHR Table list: ['labevents']. "
                     "Make sure to call load_ehr first."),
    TextRule("column_not_found", TOOL_ERROR, "unknown_column",
             RECORD_TOOLS + ", " + TABLE_TOOLS + ", " + CANDIDATE_TOOLS,
             pattern=re.compile(r"Error: Column '.*' not found in table"),
             example="Error: Column 'flag' not found in table 'admissions'."),
    TextRule("candidate_table", TOOL_ERROR, "wrong_table_kind", RECORD_TOOLS,
             pattern=re.compile(r"Error: The tool `\w+` cannot be used to search the "
                                r"Candidate Table"),
             example="Error: The tool `get_records_by_time` cannot be used to search the "
                     "Candidate Table: `labevents_candidates`."),
    TextRule("bad_time", INVALID_ARGUMENTS, "bad_time_format",
             RECORD_TOOLS + " get_event_counts_by_time",
             starts=("Error: Start time or end time format is invalid.",),
             example="Error: Start time or end time format is invalid. Please use a format "
                     "like 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS'."),
    TextRule("too_many_values", TOOL_ERROR, "too_many_values", TABLE_TOOLS + " get_unique_values",
             pattern=re.compile(r"Error: The column '.*' has \d+ unique values"),
             example="Error: The column 'value' has 812 unique values, which is too many to "
                     "display."),
    TextRule("no_timestamp", TOOL_ERROR, "no_timestamp_column", RECORD_TOOLS,
             starts=("Error: No timestamp column found in table",),
             example="Error: No timestamp column found in table 'patients'. Cannot filter by "
                     "time."),
    TextRule("no_text_columns", TOOL_ERROR, "no_text_columns",
             RECORD_TOOLS + ", " + CANDIDATE_TOOLS,
             starts=("Error: No text-based columns found in table",),
             example="Error: No text-based columns found in table 'omr' to search."),
    TextRule("load_failed", TOOL_ERROR, "load_ehr_failed", "src/run_mcp_server.py load_ehr",
             starts=("An error occurred while loading EHR database:",),
             example="An error occurred while loading EHR database: Database file not found: "
                     "database/patient_1.db"),
    TextRule("tool_exception", TOOL_ERROR, "tool_exception",
             RECORD_TOOLS + ", " + TABLE_TOOLS + ", " + CANDIDATE_TOOLS,
             starts=("An error occurred while ", "An error occurred during ",
                     "Error retrieving table description:", "Error retrieving table list:",
                     "Error: Could not load table", "Error: Table descriptions resource"),
             example="An error occurred while filtering records: Invalid comparison between "
                     "dtype=datetime64[ns] and str"),
    # image MCP server: a JSON object with metadata.analysis_status
    TextRule("image_failed", TOOL_ERROR, _image_status(TOOL_ERROR), IMAGE_TOOLS,
             starts=("{",),
             example='{"output": {"error": "Image not found at \'files/p10/s5.jpg\' '
                     '(bench_roots=[\'/data\'])"}, "metadata": {"image_path": '
                     '"files/p10/s5.jpg", "analysis_status": "failed"}}'),
    TextRule("image_no_finding", EMPTY_RESULT, _image_status(EMPTY_RESULT),
             "src/mcp_image/tools/xray_phrase_grounding.py", starts=("{",),
             example='{"output": {"predictions": [], "visualization_path": null}, '
                     '"metadata": {"analysis_status": "completed_no_finding"}}'),
    # browser
    TextRule("browser_unknown", UNKNOWN_TOOL, "unknown_browser_tool",
             "deploy_agent.py BrowserPool.call_tool; " + BROWSER,
             starts=("Unknown browser tool: ", '{"error": "Unknown function: '),
             example="Unknown browser tool: click"),
    TextRule("browser_arguments", INVALID_ARGUMENTS, "rejected_arguments", BROWSER,
             starts=('{"error": "Invalid function arguments"', "Error: Invalid arguments for "
                     "function '", "No pages to access!", "Invalid link id `",
                     "Invalid location parameter: `", "`cursor` should be an integer"),
             example="Error: Invalid arguments for function 'search'. Please check the "
                     "function signature. Details: search() got an unexpected keyword argument "
                     "'q'"),
    TextRule("browser_cursor", INVALID_ARGUMENTS, "rejected_arguments", BROWSER,
             pattern=re.compile(r"Cursor `-?\d+` is out of range"),
             example="Cursor `7` is out of range. Available cursor indices: [0 - 2]."),
    TextRule("browser_search_empty", EMPTY_RESULT, _search_error(EMPTY_RESULT), BROWSER,
             starts=("Error during search for ",),
             example="Error during search for `sepsis criteria`: No results returned for any "
                     "query: ['sepsis criteria']"),
    TextRule("browser_search_backend", INFRASTRUCTURE, _search_error(INFRASTRUCTURE), BROWSER,
             starts=("Error during search for ",),
             example="Error during search for `sepsis`: Search error 503: unavailable"),
    TextRule("browser_search_error", TOOL_ERROR, _search_error(TOOL_ERROR), BROWSER,
             starts=("Error during search for ",),
             example="Error during search for `sepsis`: Cannot connect to host"),
    TextRule("browser_unexpected", TOOL_ERROR, "browser_error", BROWSER,
             starts=("An unexpected error occurred while executing function '",),
             example="An unexpected error occurred while executing function 'open': "
                     "'NoneType' object has no attribute 'urls'"),
    TextRule("browser_fetch", TOOL_ERROR, "browser_fetch", BROWSER,
             starts=("Error fetching URL `",),
             example="Error fetching URL `https://example.org`: No content returned for "
                     "https://example.org"),
    TextRule("browser_find_empty", EMPTY_RESULT, "no_matches", BROWSER,
             starts=("No `find` results for pattern: ",),
             example="No `find` results for pattern: `lactate`"),
    TextRule("browser_no_output", EMPTY_RESULT, "no_output",
             "deploy_agent.py run_one_native (an empty browser result becomes "
             "'<tool> completed')",
             pattern=re.compile(r"browser\.\w+ completed\Z"), example="browser.search completed"),
    # empty results of the EHR server
    TextRule("no_rows", EMPTY_RESULT, "no_rows", RECORD_TOOLS,
             starts=("Query executed successfully but returned no results.",
                     "No records found in table '", "No valid timestamps found in table '"),
             example="Query executed successfully but returned no results."),
    TextRule("no_candidates", EMPTY_RESULT, _no_candidates, CANDIDATE_TOOLS,
             starts=("--- No similar candidates found", "--- No semantically similar "
                     "candidates found"),
             example="--- No similar candidates found for keyword 'sepsis' (threshold: 0) ---"),
    TextRule("other_error", TOOL_ERROR, "other", "the writer's tools (any text starting Error:)",
             starts=("Error:",), example="Error: something else went wrong"),
    TextRule("empty_text", EMPTY_RESULT, "empty_text", "any tool (a result with no text)",
             pattern=re.compile(r"\s*\Z"), example=""),
)

# Every start any rule looks for: a text starting with none of them (and not matching a
# pattern rule's first characters) is an ordinary result, found with one C-level check.
_STARTS: tuple[str, ...] = tuple(sorted({s for r in TEXT_RULES for s in r.starts}))
_PATTERN_RULES = tuple(r for r in TEXT_RULES if r.pattern is not None)
_PATTERN_HEADS = ("Error: ", "Table '", "Cursor `", "browser.")


def verdict(text: str | None) -> Verdict | None:
    """The failure a tool result's text shows, or None for an ordinary result (a NULL text:
    no tool message answered the call, nothing to judge)."""
    if text is None:
        return None
    if not text.startswith(_STARTS) and not text.startswith(_PATTERN_HEADS) \
            and text.strip():
        return None
    for rule in TEXT_RULES:
        found = rule.matches(text)
        if found is not None:
            return found
    return None


def is_failure_text(text: str | None) -> bool:
    """True when the text is one the writer returns on an error (tool_calls.is_error): an
    infrastructure failure, an unknown tool, arguments refused, or a tool error; an empty
    result is an answer, not an error."""
    found = verdict(text)
    return found is not None and found.failure in ERROR_FAILURES


def rule_details() -> list[tuple[str, str, str, str]]:
    """(failure, detail, rule, source) of every fixed detail (the ones a function decides
    are listed by the registry's detail documentation)."""
    return [(r.failure, r.detail, r.name, r.source) for r in TEXT_RULES
            if isinstance(r.detail, str)]
