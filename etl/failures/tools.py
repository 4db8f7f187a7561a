"""The writer's tools as a call is judged against them: which tools a benchmark has, which
arguments each one requires, and where the writer cuts a tool result.

- Tools: the executors' registries (etl/normalize.py EXECUTOR_TOOL_REGISTRY): text runs get
  the EHR and browser tools (clinseekagent/prompts_text.py COMBINED_TOOL_CONTENT_FULL:
  src/agentlite/mcp_tools/all_ehr_tools.json + clinseekagent/browser_tools.json), the
  multimodal runs the image tools besides (openresearcher_ehr/data_utils_mm.py
  COMBINED_TOOL_CONTENT_MM).
- Required arguments: the ``required`` lists of all_ehr_tools.json and browser_tools.json,
  and the parameters without a default of the image tools (src/mcp_image/tools/*.py).
- The cap: deploy_agent.py / clinseekagent/run_text.py DEFAULT_MAX_TOOL_RESULT_CHARS, which
  ``truncate_tool_result`` cuts every result to with an empty notice, so a cut result is
  exactly that long and carries no marker.
"""

from __future__ import annotations

from etl.benchmarks import MULTIMODAL, TEXT
from etl.normalize import EXECUTOR_TOOL_REGISTRY

WRITER_RESULT_CAP = 100_000

REQUIRED_ARGUMENTS: dict[str, tuple[str, ...]] = {
    # src/agentlite/mcp_tools/all_ehr_tools.json
    "ehr.load_ehr": ("subject_id", "timestamp"),
    "ehr.get_table_names": ("subject_id",),
    "ehr.get_column_names": ("subject_id", "table_name"),
    "ehr.get_table_description": ("table_name",),
    "ehr.get_unique_values": ("subject_id", "table_name", "column_name"),
    "ehr.get_records_by_time": ("subject_id", "table_name", "start_time", "end_time"),
    "ehr.get_event_counts_by_time": ("subject_id", "start_time", "end_time"),
    "ehr.get_latest_records": ("subject_id", "table_name"),
    "ehr.get_records_by_keyword": ("subject_id", "table_name", "keyword"),
    "ehr.get_records_by_value": ("subject_id", "table_name", "column_name", "value"),
    "ehr.run_sql_query": ("subject_id", "sql_query"),
    "ehr.get_candidates_by_keyword": ("table_name", "keyword"),
    "ehr.get_candidates_by_fuzzy_matching": ("table_name", "keywords"),
    "ehr.get_candidates_by_semantic_similarity": ("table_name", "query"),
    "ehr.think": ("response",),
    "ehr.finish": ("response",),
    # clinseekagent/browser_tools.json
    "browser.search": ("query",),
    "browser.open": (),
    "browser.find": ("pattern",),
    # src/mcp_image/tools/<name>.py: the parameters without a default
    "image.image_visualizer": ("image_path",),
    "image.dicom_processor": ("dicom_path",),
    "image.chest_xray_classifier": ("image_path",),
    "image.chest_xray_report_generator": ("image_path",),
    "image.xray_phrase_grounding": ("image_path", "phrase"),
    "image.chest_xray_segmentation": ("image_path",),
}
if set(REQUIRED_ARGUMENTS) != set(EXECUTOR_TOOL_REGISTRY):  # one list of names, checked
    raise ValueError("etl/failures/tools.py REQUIRED_ARGUMENTS must name exactly the tools "
                     "of etl/normalize.py EXECUTOR_TOOL_REGISTRY")

_TEXT_TOOLS = frozenset(t for t in EXECUTOR_TOOL_REGISTRY if not t.startswith("image."))
BENCHMARK_TOOLS: dict[str, frozenset[str]] = {
    TEXT: _TEXT_TOOLS,
    MULTIMODAL: frozenset(EXECUTOR_TOOL_REGISTRY),
}


def tools_of(kind: str | None) -> frozenset[str] | None:
    """The tools a benchmark of this kind (etl/benchmarks.py benchmark_kind) has, or None
    for a benchmark this project does not know the tools of (its calls are judged by their
    results alone)."""
    return BENCHMARK_TOOLS.get(kind) if kind is not None else None


def missing_arguments(tool: str | None, arguments: dict[str, object] | None) -> list[str]:
    """The required arguments of a known tool that parsed arguments lack (a null value is
    missing too: FastMCP refuses it for a required string)."""
    if tool is None or arguments is None:
        return []
    return [name for name in REQUIRED_ARGUMENTS.get(tool, ())
            if arguments.get(name) is None]
