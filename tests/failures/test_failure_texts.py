"""Hand cases: the texts UCSC-VLAA/ClinSeekAgent's tools really return, one or more per label
and kind, each built with the writer's own f-string (file and function named beside it), and
the label and kind the warehouse gives the call that got it. Also the call and result rules
that read the record rather than the text (arguments, tool names, the answer)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from etl.extract import FileInfo
from etl.extract.results import extract_results
from etl.failures import registry, texts
from etl.failures.tools import REQUIRED_ARGUMENTS, WRITER_RESULT_CAP
from tests.recording import RecordingEmitter

_VALIDATION = ("Error calling tool 'run_sql_query': 1 validation error for call[run_sql_query]"
               "\nsql_query\n  Missing required argument [type=missing_argument, "
               "input_value={'subject_id': '10001'}, input_type=dict]")
_IMAGE_NOT_FOUND = json.dumps({
    "output": {"error": "Image not found at 'files/p10/s5.jpg' (bench_roots=['/data'])"},
    "metadata": {"image_path": "files/p10/s5.jpg", "analysis_status": "failed"}}, indent=2)

# (text, label, kind): the writer's texts
CASES: list[tuple[str, str, str]] = [
    # ehr_pool.py / image_pool.py _call_mcp_tool: f"Error calling MCP tool '{tool_name}':
    # {str(e)}" (an httpx.ReadTimeout's message is empty), the HTTP, SSE, JSON-RPC branches
    ("Error calling MCP tool 'run_sql_query': ", "infrastructure", "timeout"),
    ("Error calling image tool 'chest_xray_classifier': timed out", "infrastructure",
     "timeout"),
    ("Error calling MCP tool 'load_ehr': Failed to initialize MCP session: [Errno 111] "
     "Connection refused", "infrastructure", "mcp_session"),
    ("Error calling MCP tool 'load_ehr': All connection attempts failed", "infrastructure",
     "connection"),
    ("HTTP Error 502: <html><body>Bad Gateway</body></html>", "infrastructure", "http_error"),
    ("No data in SSE response", "infrastructure", "empty_sse"),
    ("Invalid MCP response: {'jsonrpc': '2.0', 'id': 1}", "infrastructure", "mcp_protocol"),
    ("MCP Error -32603: database is locked", "infrastructure", "mcp_error"),
    # deploy_agent.py run_one_native: tools switched off; image_pool.py _init_mcp_session
    # raised outside _call_mcp_tool's try, caught by the executor
    ("Error: EHR tools not available. Start with --enable_ehr flag.", "infrastructure",
     "tools_unavailable"),
    ("Error: Image tools not available. Start with --enable_image.", "infrastructure",
     "tools_unavailable"),
    ("Error executing image.chest_xray_classifier: Failed to initialize image MCP session: "
     "All connection attempts failed", "infrastructure", "mcp_session"),
    # gpt-oss simple_browser_tool.py search: BackendError of the search backend's status
    ("Error during search for `sepsis`: Search error 503: unavailable", "infrastructure",
     "search_backend"),
    # executor: a name in no namespace; BrowserPool.call_tool; browser.py _process;
    # FastMCP ToolManager.get_tool "Unknown tool: <key>" through the pools' isError branch
    ("Unknown tool namespace: functions.finish", "unknown_tool", "unknown_namespace"),
    ("Unknown browser tool: click", "unknown_tool", "unknown_browser_tool"),
    ('{"error": "Unknown function: click"}', "unknown_tool", "unknown_browser_tool"),
    (f"Tool Error: {[{'type': 'text', 'text': 'Unknown tool: sql_query'}]}", "unknown_tool",
     "unknown_mcp_tool"),
    ("MCP Error -32602: Unknown tool: sql_query", "unknown_tool", "unknown_mcp_tool"),
    # executor: json.loads of the arguments raised (json.JSONDecodeError / TypeError texts)
    ("Error executing ehr.run_sql_query: Expecting ',' delimiter: line 1 column 32 (char 31)",
     "invalid_arguments", "unparseable_arguments"),
    ("Error executing ehr.finish: Unterminated string starting at: line 1 column 14 (char 13)",
     "invalid_arguments", "unparseable_arguments"),
    ("Error executing ehr.finish: Expecting property name enclosed in double quotes: line 1 "
     "column 2 (char 1)", "invalid_arguments", "unparseable_arguments"),
    ("Error executing ehr_load_ehr: the JSON object must be str, bytes or bytearray, not "
     "NoneType", "invalid_arguments", "unparseable_arguments"),
    # FastMCP's argument validation through the isError branch; JSON-RPC invalid params
    (f"Tool Error: {[{'type': 'text', 'text': _VALIDATION}]}", "invalid_arguments",
     "rejected_arguments"),
    ("MCP Error -32602: Invalid params", "invalid_arguments", "rejected_arguments"),
    # record_tools.py get_event_counts_by_time
    ("Error: Start time or end time format is invalid. Please use a format like 'YYYY-MM-DD' "
     "or 'YYYY-MM-DD HH:MM:SS'.", "invalid_arguments", "bad_time_format"),
    # browser.py BrowserTool._process; gpt-oss SimpleBrowserState / show_page ToolUsageError
    ("Error: Invalid arguments for function 'search'. Please check the function signature. "
     "Details: search() got an unexpected keyword argument 'q'", "invalid_arguments",
     "rejected_arguments"),
    ('{"error": "Invalid function arguments"}', "invalid_arguments", "rejected_arguments"),
    ("Invalid link id `12`.", "invalid_arguments", "rejected_arguments"),
    ("Cursor `7` is out of range. Available cursor indices: [0 - 2].", "invalid_arguments",
     "rejected_arguments"),
    ("Invalid location parameter: `900`. Cannot exceed page maximum of 120.",
     "invalid_arguments", "rejected_arguments"),
    ("No pages to access!", "invalid_arguments", "rejected_arguments"),
    # record_tools.py run_sql_query: f"SQL Execution Error: {str(e)}" over pandas'
    # DatabaseError "Execution failed on sql '<sql>': <sqlite3 message>"
    ("SQL Execution Error: Execution failed on sql 'SELEC * FROM labevents': near \"SELEC\": "
     "syntax error", "tool_error", "sql_syntax"),
    ("SQL Execution Error: Execution failed on sql 'SELECT * FROM labevents WHERE': "
     "incomplete input", "tool_error", "sql_syntax"),
    ("SQL Execution Error: Execution failed on sql 'SELECT * FROM lab_events': no such table: "
     "lab_events", "tool_error", "sql_unknown_table"),
    ("SQL Execution Error: Execution failed on sql 'SELECT valuenum FROM labevents': no such "
     "column: valuenum", "tool_error", "sql_unknown_column"),
    ("SQL Execution Error: Execution failed on sql 'SELECT count(*) FROM labevents GROUP BY "
     "count(*)': aggregate functions are not allowed in the GROUP BY clause", "tool_error",
     "sql_error"),
    ("Error: The SQL query does not seem to reference any available tables. Available tables: "
     "['admissions', 'labevents']", "tool_error", "sql_unknown_table"),
    ("Error: No tables found for subject_id 10001. Please call load_ehr first.", "tool_error",
     "ehr_not_loaded"),
    # record_tools.py get_records_by_* / get_latest_records; table_tools.py; candidate_tools.py
    ("Error: Table 'lab_events' not found in EHR Table list: ['labevents']. Make sure to call "
     "load_ehr first.", "tool_error", "unknown_table"),
    ("Error: Table 'labevents' not found in EHR Table list: []. Make sure to call load_ehr "
     "first.", "tool_error", "ehr_not_loaded"),
    ("Error: Table 'labs' not found in EHR or candidate table lists.", "tool_error",
     "unknown_table"),
    ("Error: Table 'labs' not found in EHR table list.", "tool_error", "unknown_table"),
    ("Error: Table 'dx' not found in candidate table list: ['diagnoses_ccs_candidates'].",
     "tool_error", "unknown_table"),
    ("Error: Table 'dx' not found in candidate tables.", "tool_error", "unknown_table"),
    ("Table 'labs' not found in category'", "tool_error", "unknown_table"),
    ("Error: Column 'flag' not found in table 'admissions'.", "tool_error", "unknown_column"),
    ("Error: The tool `get_records_by_time` cannot be used to search the Candidate Table: "
     "`labevents_candidates`.", "tool_error", "wrong_table_kind"),
    ("Error: No EHR data loaded. Please call load_ehr first.", "tool_error", "ehr_not_loaded"),
    ("Error: No candidate data loaded. Please call load_ehr first.", "tool_error",
     "ehr_not_loaded"),
    ("No tables are currently loaded or available.", "tool_error", "ehr_not_loaded"),
    ("Error: The column 'value' has 812 unique values, which is too many to display. This "
     "tool is intended for categorical columns with fewer than 50 options. Here are the first "
     "10 examples: ['1', '2']", "tool_error", "too_many_values"),
    ("Error: No timestamp column found in table 'patients'. Cannot filter by time.",
     "tool_error", "no_timestamp_column"),
    ("Error: No text-based columns found in table 'omr' to search.", "tool_error",
     "no_text_columns"),
    # src/run_mcp_server.py load_ehr (EHRManager.load_ehr_for_sample raised)
    ("An error occurred while loading EHR database: Database file not found: "
     "/data/database/patient_1.db", "tool_error", "load_ehr_failed"),
    ("An error occurred while filtering records: Invalid comparison between dtype=datetime64"
     "[ns] and str", "tool_error", "tool_exception"),
    ("An error occurred during semantic search: CUDA out of memory", "tool_error",
     "tool_exception"),
    ("Error retrieving table description: 'NoneType' object is not iterable", "tool_error",
     "tool_exception"),
    ("Error retrieving table list: boom", "tool_error", "tool_exception"),
    ("Error: Could not load table 'labevents'.", "tool_error", "tool_exception"),
    ("Error: Table descriptions resource not found.", "tool_error", "tool_exception"),
    ("Error executing load_ehr: argument of type 'int' is not iterable", "tool_error",
     "executor_exception"),
    (f"Tool Error: {[{'type': 'text', 'text': 'Error calling tool ' + repr('get_latest_records') + ': KeyError(charttime)'}]}",  # noqa: E501
     "tool_error", "mcp_tool_error"),
    ("Error: something the server had not planned for", "tool_error", "other"),
    # src/mcp_image/tools/*.py: the except branch's JSON (base.py resolve_image_path)
    (_IMAGE_NOT_FOUND, "tool_error", "image_not_found"),
    ('{"output": {"error": "CUDA error: out of memory"}, "metadata": {"image_path": "a.jpg", '
     '"analysis_status": "failed", "error": "CUDA error: out of memory"}}', "tool_error",
     "image_tool_failed"),
    # browser.py / gpt-oss simple browser
    ("Error fetching URL `https://example.org`: No content returned for https://example.org",
     "tool_error", "browser_fetch"),
    ("An unexpected error occurred while executing function 'open': 'NoneType' object has no "
     "attribute 'urls'", "tool_error", "browser_error"),
    ("Error during search for `sepsis`: Cannot connect to host localhost:8001", "tool_error",
     "browser_error"),
    # empty results: record_tools.py, candidate_tools.py, the browser, the executor
    ("Query executed successfully but returned no results.", "empty_result", "no_rows"),
    ("No records found in table 'labevents' between 2150-01-01 and 2150-01-02.",
     "empty_result", "no_rows"),
    ("No records found in table 'dx_candidates' containing the keyword 'sepsis'.",
     "empty_result", "no_rows"),
    ("No records found in table 'labevents' where 'itemid' equals '5'.", "empty_result",
     "no_rows"),
    ("No valid timestamps found in table 'omr' to determine the latest records.",
     "empty_result", "no_rows"),
    ("--- No similar candidates found for keyword 'sepsis' (threshold: 0) ---\n",
     "empty_result", "no_candidates"),
    ("--- No semantically similar candidates found for 'sepsis' (threshold: 0.5) ---\n\n"
     "--- No semantically similar candidates found for 'shock' (threshold: 0.5) ---\n",
     "empty_result", "no_candidates"),
    ("No `find` results for pattern: `lactate`", "empty_result", "no_matches"),
    ("Error during search for `rare thing`: No results returned for any query: "
     "['rare thing']", "empty_result", "no_search_results"),
    ("browser.search completed", "empty_result", "no_output"),
    ("", "empty_result", "empty_text"),
    ('{"output": {"predictions": [], "visualization_path": null}, "metadata": '
     '{"image_path": "a.jpg", "analysis_status": "completed_no_finding"}}', "empty_result",
     "no_finding"),
]

# answers the tools give: no label
ORDINARY = [
    "Loading Candidate Tables:\n - Loading 'labevents_candidates' with 812 rows.",
    " subject_id  itemid  valuenum\n   10001   50912      1.2",
    "--- Results for keyword 'sepsis' (threshold: 0, limit: 5) ---\ncandidate\nSepsis\n\n"
    "--- No similar candidates found for keyword 'shock' (threshold: 0) ---\n",
    json.dumps({"output": {"Effusion": 0.81}, "metadata": {"analysis_status": "completed"}}),
    "Finish (synthesized from plain-text answer)", "Finish (one-shot)",
    "  Error: leading space is a result",
    "Columns for table 'labevents': subject_id, itemid, valuenum",
]


@pytest.mark.parametrize(("text", "label", "kind"), CASES,
                         ids=[f"{label}-{kind}-{i}" for i, (_, label, kind) in enumerate(CASES)])
def test_a_writer_text_gets_its_label_and_kind(text: str, label: str, kind: str) -> None:
    found = texts.verdict(text)
    assert found is not None and (found.failure, found.detail) == (label, kind)
    assert texts.is_failure_text(text) == registry.BY_NAME[label].is_error


@pytest.mark.parametrize("text", ORDINARY)
def test_an_ordinary_result_gets_no_label(text: str) -> None:
    assert texts.verdict(text) is None and not texts.is_failure_text(text)


def test_every_text_rule_and_every_fixed_kind_has_a_hand_case() -> None:
    covered = {(label, kind) for _, label, kind in CASES}
    for rule in texts.TEXT_RULES:
        found = texts.verdict(rule.example)
        assert found is not None and found.failure == rule.failure, rule.name
        if isinstance(rule.detail, str):
            assert (rule.failure, rule.detail) in covered, rule.name
    for label in ("infrastructure", "unknown_tool", "invalid_arguments", "tool_error",
                  "empty_result"):
        assert any(c[1] == label for c in CASES), label


# --- through the extractor: the call and result rules on whole records ------------------------

def _call(cid: str, name: str, arguments: object) -> dict:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": arguments}}


def _record(calls: list[tuple[dict, str]], finish: object | None = None,
            status: str = "success", candidates: list[str] | None = None) -> dict:
    messages: list[dict] = [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}]
    for call, result in calls:
        messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    if finish is not None:
        messages.append({"role": "assistant", "content": "",
                         "tool_calls": [_call("fin", "ehr.finish", finish)]})
        messages.append({"role": "tool", "tool_call_id": "fin", "content": "done"})
    rec = {"qid": "q1", "run_index": 1, "messages": messages, "status": status,
           "completed": status == "success", "task": "labevents", "label": ["Sepsis"]}
    if candidates is not None:
        rec["candidates"] = candidates
    return rec


def _labels(rec: dict, tmp_path: Path, benchmark: str = "ehr_bench") -> tuple[set, set]:
    """(call labels (msg_idx, label, kind), result labels (label, kind, n_calls)) of one
    record, through the results extractor as an ingest runs it."""
    path = tmp_path / f"results_{len(list(tmp_path.iterdir()))}.jsonl"
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    emitter = RecordingEmitter()
    extract_results(FileInfo(file_id="f" * 16, path="r/results.jsonl", abs_path=path,
                             real_path=str(path), kind="results_top", run_id="r",
                             benchmark=benchmark), emitter)
    calls = {(r["msg_idx"], r["failure"], r["detail"])
             for t, r in emitter.rows if t == "call_failures"}
    results = {(r["failure"], r["detail"], r["n_calls"])
               for t, r in emitter.rows if t == "result_checks"}
    return calls, results


SID = {"subject_id": "10001"}


def test_arguments_that_do_not_parse_or_lack_a_required_one(tmp_path: Path) -> None:
    calls, _ = _labels(_record([
        (_call("a", "ehr.run_sql_query", '{"subject_id": "10001", "sql_query": "SELECT'),
         "Error executing ehr.run_sql_query: Unterminated string starting at: line 1 column "
         "35 (char 34)"),
        (_call("b", "ehr.run_sql_query", json.dumps(SID)),
         f"Tool Error: {[{'type': 'text', 'text': _VALIDATION}]}"),
        (_call("c", "ehr.get_records_by_time", json.dumps({**SID, "table_name": "labevents",
                                                           "start_time": None,
                                                           "end_time": "2150-01-01"})),
         "Error: Start time or end time format is invalid."),
    ], finish={"response": ["Sepsis"]}), tmp_path)
    assert calls == {(2, "invalid_arguments", "unparseable_arguments"),
                     (4, "invalid_arguments", "missing_argument"),
                     (6, "invalid_arguments", "missing_argument")}


def test_a_tool_the_benchmark_lacks(tmp_path: Path) -> None:
    # a text run: the executor sends ehr.sql_query to the EHR server, which knows no such tool
    # (the multimodal executor would have routed it to run_sql_query by its suffix)
    unknown = f"Tool Error: {[{'type': 'text', 'text': 'Unknown tool: sql_query'}]}"
    calls, _ = _labels(_record([(_call("a", "ehr.sql_query", json.dumps(SID)), unknown),
                                (_call("b", "functions.lookup", "{}"),
                                 "Unknown tool namespace: functions.lookup")],
                               finish={"response": ["Sepsis"]}), tmp_path)
    assert calls == {(2, "unknown_tool", "not_a_benchmark_tool"),
                     (4, "unknown_tool", "not_a_benchmark_tool")}
    calls, _ = _labels(_record([(_call("a", "ehr.sql_query", json.dumps(SID)), "rows")],
                               finish={"response": ["x"]}), tmp_path, benchmark="mm_bench")
    assert not {c for c in calls if c[1] == "unknown_tool"}


def test_a_result_at_the_writers_cap_is_truncated(tmp_path: Path) -> None:
    args = json.dumps({**SID, "sql_query": "SELECT * FROM chartevents"})
    other = json.dumps({**SID, "sql_query": "SELECT * FROM labevents"})
    calls, _ = _labels(_record([(_call("a", "ehr.run_sql_query", args), "x" * WRITER_RESULT_CAP),
                                (_call("b", "ehr.run_sql_query", other),
                                 "x" * (WRITER_RESULT_CAP - 1))],
                               finish={"response": ["Sepsis"]}), tmp_path)
    assert calls == {(2, "truncated_result", "at_writer_cap")}


def test_the_whole_result_rules(tmp_path: Path) -> None:
    sql = json.dumps({**SID, "sql_query": "SELECT 1"})
    same_again = json.dumps({"sql_query": "SELECT 1", **SID})  # same object, keys reordered
    _, results = _labels(_record([(_call("a", "ehr.run_sql_query", sql), "1"),
                                  (_call("b", "ehr.run_sql_query", same_again), "1"),
                                  (_call("c", "ehr.run_sql_query", sql), "1")],
                                 finish={"response": ["Sepsis", "Shock"]},
                                 candidates=["Sepsis", "Pneumonia"]), tmp_path)
    assert results == {("repeated_call", "ehr.run_sql_query", 2),
                       ("answer_outside_candidates", "1 of 2 items", 0)}
    assert _labels(_record([], finish={"response": []}, candidates=["a"]), tmp_path)[1] == {
        ("empty_answer", "no_items", 0)}
    assert _labels(_record([], finish=None, status="incomplete"), tmp_path)[1] == {
        ("no_final_answer", "no_finish_call", 0)}
    unreadable = _record([], finish='{"response": ["x"', status="incomplete")
    assert _labels(unreadable, tmp_path)[1] == {("no_final_answer", "unreadable_finish", 0)}
    # an error of the run: no answer labels (the run's own error is the view's to label)
    assert _labels(_record([], finish=None, status="error"), tmp_path)[1] == set()
    # answers in the candidates, compared as the normalized reading compares them
    inside = _record([], finish={"response": [" SEPSIS "]}, candidates=["Sepsis"])
    assert _labels(inside, tmp_path)[1] == set()


def test_an_error_another_input_marks_gets_a_tool_error() -> None:
    from etl.failures.rules import CallFacts, tool_error
    facts = CallFacts("bash", {}, True, "exit status 2", 13, True, None, None)
    assert tool_error(facts) == "other"


def test_required_arguments_name_every_tool_of_the_writer() -> None:
    # the EHR tools' required lists as all_ehr_tools.json states them (spot checks)
    assert REQUIRED_ARGUMENTS["ehr.run_sql_query"] == ("subject_id", "sql_query")
    assert REQUIRED_ARGUMENTS["ehr.finish"] == ("response",)
    assert REQUIRED_ARGUMENTS["browser.open"] == ()
