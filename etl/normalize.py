"""Normalize stage: one per-question result record -> rows of results, messages,
tool_calls, images and question_scores.

Small pure functions; nothing here raises on oddly shaped input. A record whose identity
cannot be read (no usable qid, unusable run_index) yields a reject message instead of rows;
everything else loads what it can. Formats: FORMATS.md §2; rules: DESIGN.md.

Decisions documented here (the formats leave them open):

- status: the map of etl/statuses.py (ok/success -> success, incomplete, error; any case);
  any other or missing value is derived from the record there. The value as written stays
  in raw_status. task_group: etl/tasks.py.
- tool names: dotted names are kept; ``ehr_`` / ``browser_`` / ``image_`` prefixes become
  ``ehr.`` / ``browser.`` / ``image.``; bare ``search`` / ``open`` / ``find`` are browser
  tools; any other bare name is an EHR tool (``finish`` -> ``ehr.finish``), which is how the
  harness routes them (openresearcher_ehr/deploy_agent_mm.py normalize_tool_call_name_mm).
- tool errors: the answering tool message is one of the texts the harness, its MCP client
  and the tool servers write on failure (etl/failures/texts.py, the failure labels' texts).
- prediction: the ``response`` of the last call whose normalized name ends in ``finish``;
  NULL when there is none, its arguments do not parse to an object, or it has no (or a
  null) ``response``. A later malformed finish call hides an earlier good one. This is the
  normalized reading (results.prediction / prediction_items, scorer set_f1); the
  leaderboard's default scorer reads the record by the authors' rules instead
  (etl/scoring/authors_text.py).
- scores: every per-result scorer of the registry (etl/scoring/registry.py) makes one
  question_scores row, built by etl/scoring/rows.py result_score_rows.
The scalar converters, the identity (qid, run_index) and the gold label are etl/values.py.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict, deque
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

import orjson

from etl.failures.texts import is_failure_text
from etl.scoring.base import ResultInput
from etl.scoring.normalized import gold_items, prediction_items
from etl.scoring.rows import result_score_rows
from etl.scoring.text_runs import run_stats
from etl.statuses import normalize_status
from etl.tasks import task_group
from etl.values import (
    gold_label,
    json_text,
    qid_of,
    run_index_of,
    to_bool,
    to_int,
    to_text,
    to_timestamp,
)

Converter = Callable[[Any], Any]

SYNTHETIC_FINISH_PREFIX = "synthetic_finish_"

# The image tools of the multimodal harness: IMAGE_TOOL_CONTENT_JSON of
# clinseekagent/prompts_multimodal.py (data_utils_mm.py in openresearcher_ehr/), "names must
# match src/mcp_image/tools/*". The executor routes a call by its suffix
# (deploy_agent_mm.py / run_multimodal.py _resolve_tool_namespace), so a Kimi call recorded
# as ehr.chest_xray_classifier ran image.chest_xray_classifier.
IMAGE_TOOL_NAMES: tuple[str, ...] = (
    "image_visualizer", "dicom_processor", "chest_xray_classifier",
    "chest_xray_report_generator", "xray_phrase_grounding", "chest_xray_segmentation",
)
# The multimodal executor's tool registry, in its order (deploy_agent_mm.py
# _build_tool_namespace_lookup over COMBINED_TOOL_CONTENT_MM of data_utils_mm.py: the EHR
# tools of data_utils.py EHR_TOOL_CONTENT_JSON, the browser tools, the image tools): what
# executed_tool routes a recorded name by.
EXECUTOR_TOOL_REGISTRY: tuple[str, ...] = (
    "ehr.load_ehr", "ehr.get_table_names", "ehr.get_column_names", "ehr.get_table_description",
    "ehr.get_unique_values", "ehr.get_records_by_time", "ehr.get_event_counts_by_time",
    "ehr.get_latest_records", "ehr.get_records_by_keyword", "ehr.get_records_by_value",
    "ehr.run_sql_query", "ehr.get_candidates_by_keyword", "ehr.get_candidates_by_fuzzy_matching",
    "ehr.get_candidates_by_semantic_similarity", "ehr.think", "ehr.finish",
    "browser.search", "browser.open", "browser.find",
    *(f"image.{name}" for name in IMAGE_TOOL_NAMES),
)
_NAMESPACE_BY_SUFFIX: dict[str, str] = {
    name.split(".", 1)[1]: name.split(".", 1)[0] for name in EXECUTOR_TOOL_REGISTRY}

# Scalar columns of results copied from the record: (column, record key, converter).
RESULT_COLUMNS: list[tuple[str, str, Converter]] = [
    ("stop_reason", "stop_reason", to_text),
    ("completed", "completed", to_bool),
    ("error", "error", to_text),
    ("hadm_id", "hadm_id", to_int),
    ("stay_id", "stay_id", to_int),
    ("prediction_time", "prediction_time", to_timestamp),
    ("backend_model_id", "backend_model_id", to_text),
    ("backend_region", "backend_region", to_text),
    ("session_id", "session_id", to_text),
    ("runs_per_question", "runs_per_question", to_int),
    ("task", "task", to_text),
    ("task_type", "task_type", to_text),
    ("task_family", "task_family", to_text),
    ("scope", "scope", to_text),
    ("source_benchmark", "source_benchmark", to_text),
    ("question", "question", to_text),
]

# Record keys some column holds (declared as data beside the columns: every other key of the
# record lands in results.extra, so nothing the writer wrote is dropped). RESULT_COLUMNS
# sources, plus the keys normalize_record reads by hand.
RESULT_KEYS_MAPPED: frozenset[str] = frozenset(
    {source for _, source, _ in RESULT_COLUMNS}
    | {"qid", "run_index", "status", "subject_id", "label", "messages"})
# Message keys the messages columns hold (role, content, reasoning, name, tool_call_id) and
# tool_calls, which becomes tool_calls rows.
MESSAGE_KEYS_MAPPED: frozenset[str] = frozenset(
    {"role", "content", "reasoning_content", "name", "tool_call_id", "tool_calls"})
# Keys of one tool call ({"id", "type", "function": {"name", "arguments"}}) the tool_calls
# columns hold; the flat {"id", "name", "arguments"} shape uses the same names.
TOOL_CALL_KEYS_MAPPED: frozenset[str] = frozenset({"id", "type", "function"})
FUNCTION_KEYS_MAPPED: frozenset[str] = frozenset({"name", "arguments"})


# --- small field rules ----------------------------------------------------------------

def normalize_tool(raw: str) -> str:
    name = raw.strip()
    if not name or "." in name:
        return name
    for prefix in ("ehr", "browser", "image"):
        if name.startswith(prefix + "_"):
            return f"{prefix}.{name[len(prefix) + 1:].strip('_')}"
    if name in ("search", "open", "find"):
        return f"browser.{name}"
    return f"ehr.{name}"


def executed_tool(tool: str, multimodal: bool = False) -> str:
    """The tool the executor ran for a recorded, normalized name. Text runs: an image tool
    name under another namespace ran as image.<name> (the only rerouting a text run's
    names can need); multimodal runs (multimodal=True): the multimodal executor's rule.

    deploy_agent_mm.py / run_multimodal.py run_one_native_mm record the name after
    normalize_tool_call_name_mm (a bare name becomes ehr.<name>), then execute
    _resolve_tool_namespace(name), logged as TOOL_NAME_FIX when it differs; the record is
    never rewritten. That function, ported: a suffix registered under another namespace is
    routed there (ehr.chest_xray_classifier -> image.chest_xray_classifier); an unknown
    suffix goes to the registered suffix that contains it or that it contains, the one
    closest in length, then the shortest, then the first registered (_fuzzy_match_suffix:
    Kimi's ehr.visualizer -> image.image_visualizer, ehr.sql_query -> ehr.run_sql_query);
    anything else runs as recorded. The registry is EXECUTOR_TOOL_REGISTRY."""
    if not multimodal:
        namespace, dot, suffix = tool.partition(".")
        if dot and namespace != "image" and suffix in IMAGE_TOOL_NAMES:
            return f"image.{suffix}"
        return tool
    if "." in tool:
        namespace, suffix = tool.split(".", 1)
        expected = _NAMESPACE_BY_SUFFIX.get(suffix)
        if expected:
            return tool if expected == namespace else f"{expected}.{suffix}"
        fuzzy = _fuzzy_suffix(suffix)
        return f"{_NAMESPACE_BY_SUFFIX[fuzzy]}.{fuzzy}" if fuzzy else tool
    expected = _NAMESPACE_BY_SUFFIX.get(tool)
    if expected:
        return f"{expected}.{tool}"
    fuzzy = _fuzzy_suffix(tool)
    return f"{_NAMESPACE_BY_SUFFIX[fuzzy]}.{fuzzy}" if fuzzy else tool


def _fuzzy_suffix(bare_name: str) -> str | None:
    """deploy_agent_mm.py _fuzzy_match_suffix."""
    bare = bare_name.strip()
    if not bare:
        return None
    candidates = []
    for suffix in _NAMESPACE_BY_SUFFIX:
        if bare == suffix:
            return suffix
        if bare in suffix or suffix in bare:
            candidates.append(suffix)
    if not candidates:
        return None
    candidates.sort(key=lambda s: (abs(len(s) - len(bare)), len(s)))
    return candidates[0]


def parse_arguments(raw: Any) -> tuple[str | None, dict[str, Any] | None]:
    """(arguments as text, parsed object or None). A JSON string is kept as written; a
    dict is serialized; malformed text or a non-object gives parsed None."""
    if isinstance(raw, str):
        try:
            parsed = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return raw, None
        return raw, parsed if isinstance(parsed, dict) else None
    if isinstance(raw, dict):
        return json_text(raw), raw
    return json_text(raw), None


def _data_url_parts(url: str) -> tuple[str | None, str] | None:
    # "data:image/jpeg;base64,<data>" as OpenAI-style image_url blocks carry it.
    if not url.startswith("data:"):
        return None
    head, sep, data = url.partition(",")
    if not sep:
        return None
    media = head[5:].split(";", 1)[0] or None
    return media, data


def block_text(block: Any, depth: int = 0) -> str | None:
    """The text a content block of a type content_parts does not know carries (input_text,
    output_text, tool_result, ...): its `text`, else its `content` when that is text or a
    list of blocks (whose texts are joined with newlines); None when it carries none."""
    if isinstance(block, str):
        return block
    if not isinstance(block, dict) or depth > 8:
        return None
    if isinstance(block.get("text"), str):
        return block["text"]
    inner = block.get("content")
    if isinstance(inner, str):
        return inner
    if isinstance(inner, list):
        texts = [t for t in (block_text(b, depth + 1) for b in inner) if t is not None]
        return "\n".join(texts) if texts else None
    return None


def content_parts(content: Any) -> tuple[str | None, list[tuple[int, str | None, str]]]:
    """(text, images): string content as is; list content -> the text of its blocks joined
    with newlines (text blocks, and the text that blocks of other types carry: block_text;
    those blocks are also kept whole in messages.extra, see unread_blocks), and (block_idx,
    media_type, base64 data) for every image block."""
    if content is None or isinstance(content, str):
        return content, []
    if not isinstance(content, list):
        return to_text(content), []
    texts: list[str] = []
    images: list[tuple[int, str | None, str]] = []
    for idx, block in enumerate(content):
        if isinstance(block, str):
            texts.append(block)
            continue
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            text = block.get("text")
            if isinstance(text, str):
                texts.append(text)
        elif kind == "image":
            source = block.get("source")
            if isinstance(source, dict) and isinstance(source.get("data"), str):
                images.append((idx, to_text(source.get("media_type")), source["data"]))
        elif kind == "image_url":
            image_url = block.get("image_url")
            url = image_url.get("url") if isinstance(image_url, dict) else image_url
            parts = _data_url_parts(url) if isinstance(url, str) else None
            if parts is not None:
                images.append((idx, parts[0], parts[1]))
        elif (text := block_text(block)) is not None:
            texts.append(text)
    return "\n".join(texts), images


# --- the record -----------------------------------------------------------------------

@dataclass(slots=True)
class RecordRows:
    """Rows one record produces, per table, plus notes on what could not be read."""

    results: dict[str, Any]
    messages: list[dict[str, Any]] = field(default_factory=list)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    images: list[dict[str, Any]] = field(default_factory=list)
    question_scores: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def normalize_record(record: dict[str, Any], *, line_no: int, rec_no: int,
                     keep_images: bool = False, multimodal: bool = False,
                     nonfinite: Collection[str] = ()
                     ) -> tuple[RecordRows | None, str | None]:
    """One decoded record -> (rows, None), or (None, reason) when it must be rejected.
    nonfinite: the paths that held a bare NaN / Infinity (etl/read.py Line.nonfinite)."""
    qid = qid_of(record)
    if qid is None:
        return None, "record has no qid"
    run_index, why = run_index_of(record, nonfinite)
    if run_index is None:
        return None, f"qid {qid}: {why}"

    key = {"qid": qid, "run_index": run_index, "rec_no": rec_no}
    result: dict[str, Any] = {"qid": qid, "run_index": run_index,
                              "line_no": line_no, "rec_no": rec_no}
    rows = RecordRows(result)
    for column, source, convert in RESULT_COLUMNS:
        raw = record.get(source)
        result[column] = value = convert(raw)
        if value is None and raw is not None:  # the column cannot hold it: say so
            rows.problems.append(f"{source} {json_text(raw)[:80]} is not a valid "
                                 f"{column} value; loaded as NULL")
    extra = leftovers(record, RESULT_KEYS_MAPPED)
    if "messages" in record and not isinstance(record["messages"], list | None):
        extra["messages"] = record["messages"]  # not a trajectory: kept as written
    result["extra"] = extra_json(extra)
    raw_status = record.get("status")
    result["raw_status"] = to_text(raw_status)
    status = normalize_status(raw_status, result["completed"], record.get("error"),
                              record.get("stop_reason"))
    result["status"] = status

    subject = record.get("subject_id")
    subject_int = to_int(subject)
    result["subject_id"] = subject_int
    result["subject_id_text"] = to_text(subject) if subject_int is None else None
    result["task_group"] = task_group(result["task"], result["task_type"],
                                      result["task_family"], result["source_benchmark"])

    label, result["label_source"] = gold_label(record)
    gold = _items_or_none(gold_items, label, "label", rows)
    result["label"] = json_text(label)
    result["gold"] = json_text(gold)

    response, has_response = _walk_messages(record.get("messages"), key, keep_images, rows,
                                            multimodal)
    pred = _items_or_none(prediction_items, response, "prediction",
                          rows) if has_response else []
    result["prediction"] = json_text(response) if has_response else None
    result["prediction_items"] = json_text(pred)
    result["n_messages"] = len(rows.messages)
    result["n_tool_calls"] = len(rows.tool_calls)
    result["n_images"] = len(rows.images)
    try:  # score_text.py's per-run tool statistics (no score: results columns)
        (result["authors_tool_calls"], result["authors_browser_calls"],
         result["authors_turns"]) = run_stats(record)
    except Exception as exc:  # noqa: BLE001 - costs these three columns, not the record
        rows.problems.append(f"the authors' tool counts cannot read it ({type(exc).__name__}:"
                             f" {ascii(str(exc))[:200]}); they are missing")

    scored = ResultInput(record, label, status, gold, pred)
    rows.question_scores = result_score_rows(scored, key, result["task"], line_no, multimodal,
                                             rows.problems)
    return rows, None


def _items_or_none(items_of: Callable[[Any], list[str]], value: Any, what: str,
                   rows: RecordRows) -> list[str] | None:
    """The normalized items of a value, or None (noted as a problem) when they cannot be read
    (an object nested deeper than orjson writes): the record still loads."""
    try:
        return items_of(value)
    except (TypeError, ValueError, RecursionError) as exc:
        rows.problems.append(f"{what} cannot be scored ({type(exc).__name__}: {exc}); "
                             "its set_f1 score is NULL")
        return None


def _walk_messages(messages: Any, key: dict[str, Any], keep_images: bool,
                   rows: RecordRows, multimodal: bool = False) -> tuple[Any, bool]:
    """Fill message, image and tool-call rows; return (finish response, found)."""
    if messages is None:
        return None, False
    if not isinstance(messages, list):
        # Not a trajectory, but its text must stay readable and searchable: one message row
        # holding it (the value is also kept as written in results.extra).
        rows.problems.append(f"messages is {type(messages).__name__}, not a list; its text "
                             "is message 0")
        text = to_text(messages)
        rows.messages.append({**key, "msg_idx": 0, "content": text,
                              "content_chars": len(text) if text is not None else None,
                              "n_tool_calls": 0, "n_images": 0,
                              "extra": extra_json({"$messages_type": _json_kind(messages)})})
        return None, False

    finish_args: Any = None
    finish_found = False
    for msg_idx, msg in enumerate(messages):
        if not isinstance(msg, dict):
            rows.problems.append(f"message {msg_idx} is not an object")
            rows.messages.append({**key, "msg_idx": msg_idx, "content": to_text(msg),
                                  "n_tool_calls": 0, "n_images": 0})
            continue
        text, images = content_parts(msg.get("content"))
        role = to_text(msg.get("role"))
        call_id = to_text(msg.get("tool_call_id"))
        calls = msg.get("tool_calls")
        if calls is not None and not isinstance(calls, list):
            rows.problems.append(f"message {msg_idx}: tool_calls is not a list")
            calls = None
        n_calls = len(calls) if calls else 0
        msg_extra = leftovers(msg, MESSAGE_KEYS_MAPPED)
        if unread := unread_blocks(msg.get("content")):
            msg_extra["$unread_blocks"] = unread
        if msg.get("tool_calls") is not None and calls is None:
            msg_extra["tool_calls"] = msg["tool_calls"]  # not a list: kept as written
        rows.messages.append({
            **key, "msg_idx": msg_idx, "role": role, "content": text,
            "reasoning": to_text(msg.get("reasoning_content")), "n_tool_calls": n_calls,
            "name": to_text(msg.get("name")), "tool_call_id": call_id,
            "content_chars": len(text) if text is not None else None,
            "n_images": len(images), "extra": extra_json(msg_extra),
        })
        for block_idx, media_type, data in images:
            rows.images.append({
                **key, "msg_idx": msg_idx, "block_idx": block_idx, "media_type": media_type,
                "data_sha256": hashlib.sha256(data.encode("utf-8", "replace")).hexdigest(),
                "data_chars": len(data), "data": data if keep_images else None,
            })
        for call_idx, call in enumerate(calls or ()):
            found, args = _tool_call_row(call, msg_idx, call_idx, key, rows, multimodal)
            if found:
                finish_found, finish_args = True, args

    pair_tool_results(rows)

    if not finish_found or not isinstance(finish_args, dict):
        return None, False
    response = finish_args.get("response")
    return response, response is not None


def _tool_call_row(call: Any, msg_idx: int, call_idx: int, key: dict[str, Any],
                   rows: RecordRows, multimodal: bool = False
                   ) -> tuple[bool, dict[str, Any] | None]:
    """Append one tool_calls row; return (is a finish call, its parsed arguments)."""
    if not isinstance(call, dict):
        rows.problems.append(f"message {msg_idx}: tool call {call_idx} is not an object")
        rows.tool_calls.append({**key, "msg_idx": msg_idx, "call_idx": call_idx,
                                "call_id": None, "arguments": to_text(call),
                                "arguments_valid": False, "is_synthetic": False})
        return False, None
    function = call.get("function")
    if not isinstance(function, dict):
        function = call  # flat {"name", "arguments"} shape
    raw_tool = to_text(function.get("name"))
    recorded = normalize_tool(raw_tool) if raw_tool is not None else None
    tool = executed_tool(recorded, multimodal) if recorded is not None else None
    args_text, args = parse_arguments(function.get("arguments"))
    call_id = to_text(call.get("id"))
    rows.tool_calls.append({
        **key, "msg_idx": msg_idx, "call_idx": call_idx, "call_id": call_id, "tool": tool,
        "raw_tool": raw_tool, "name_fixed": tool != recorded, "arguments": args_text,
        "arguments_valid": args is not None,
        "is_synthetic": call_id is not None and call_id.startswith(SYNTHETIC_FINISH_PREFIX),
        "call_type": to_text(call.get("type")), "extra": extra_json(call_leftovers(call)),
    })
    return tool is not None and tool.endswith("finish"), args


def is_tool_error(text: str | None) -> bool:
    """True when a tool message's text is one the harness writes on failure: the writer's
    failure texts are the failure registry's (etl/failures/texts.py)."""
    return is_failure_text(text)


def pair_tool_results(rows: RecordRows) -> None:
    """Fill result_chars / is_error / paired_by / result_msg_idx of each tool_calls row
    from the tool message that answers it.

    A tool message answers the unanswered call with its tool_call_id (paired_by 'id');
    when no unanswered call has that id it answers the oldest unanswered call before it
    (paired_by 'order'). The second rule is how the authors read trajectories
    (clinseekagent/scoring/score_text.py collect_official_candidate_names: a deque of the
    calls, popleft per tool message), and it is needed because in one branch of the
    writer the tool message gets a FRESH uuid that matches no call
    (deploy_agent_mm.py run_one_native_mm, is_openseeker_repo_like: tool_message["name"]
    = the executed name, tool_message["tool_call_id"] = str(uuid.uuid4())). A tool message
    with the id of a call already answered, or with no call left to answer, pairs with
    nothing; a call no message answers keeps NULLs."""
    calls_of: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in rows.tool_calls:
        calls_of[row["msg_idx"]].append(row)
    pending: deque[dict[str, Any]] = deque()
    pending_by_id: dict[str, deque[dict[str, Any]]] = defaultdict(deque)
    answered_ids: set[str] = set()
    for msg in rows.messages:
        if msg.get("role") == "tool":
            answer_id = msg.get("tool_call_id")
            by_id = pending_by_id.get(answer_id) if answer_id is not None else None
            if by_id:
                row, how = by_id.popleft(), "id"
                pending.remove(row)
            elif answer_id is not None and answer_id in answered_ids:
                continue
            elif pending:
                row, how = pending.popleft(), "order"
                if row["call_id"] is not None:
                    pending_by_id[row["call_id"]].remove(row)
            else:
                continue
            if row["call_id"] is not None:
                answered_ids.add(row["call_id"])
            text = msg.get("content")
            row["result_chars"] = len(text) if text is not None else 0
            row["is_error"] = is_tool_error(text)
            row["paired_by"] = how
            row["result_msg_idx"] = msg["msg_idx"]
        for row in calls_of.get(msg["msg_idx"], ()):
            pending.append(row)
            if row["call_id"] is not None:
                pending_by_id[row["call_id"]].append(row)


# The token counts a record's `usage` may hold, as the OpenAI-compatible client reports
# them (openresearcher_ehr/eval_ehrbench_qa.py call_vllm_once: prompt_tokens,
# completion_tokens, total_tokens) or under the input/output names.
_USAGE_KEYS = {"input_tokens": ("prompt_tokens", "input_tokens"),
               "output_tokens": ("completion_tokens", "output_tokens"),
               "total_tokens": ("total_tokens",)}


def record_usage(record: dict[str, Any]) -> dict[str, int | None] | None:
    """The tokens a record's `usage` object counts (input, output, total; total as input +
    output when not given), or None when it has none: the raw QA rows of
    eval_ehrbench_qa.py carry them, the agent runners' records do not."""
    usage = record.get("usage")
    if not isinstance(usage, dict):
        return None
    counts = {column: next((to_int(usage[k]) for k in keys if to_int(usage.get(k)) is not None),
                           None)
              for column, keys in _USAGE_KEYS.items()}
    if counts["input_tokens"] is None and counts["output_tokens"] is None:
        return None
    if counts["total_tokens"] is None:
        counts["total_tokens"] = (counts["input_tokens"] or 0) + (counts["output_tokens"] or 0)
    return counts


def _json_kind(value: Any) -> str:
    """The JSON type of a decoded value: object, array, string, number, boolean, null."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    return "null" if value is None else "number"


def leftovers(obj: dict[str, Any], mapped: frozenset[str]) -> dict[str, Any]:
    """The keys of obj no column maps, with their values as written."""
    if mapped.issuperset(obj):  # the usual case, tested in C: no dict to build
        return {}
    return {k: v for k, v in obj.items() if k not in mapped}


def extra_json(extra: dict[str, Any]) -> str | None:
    """JSON text of a leftovers object; None when it is empty."""
    return json_text(extra) if extra else None


def call_leftovers(call: dict[str, Any]) -> dict[str, Any]:
    """Leftover keys of a tool call: its own, and its function object's as function.<key>.
    A function value that is not an object (the call is then read flat) is kept whole."""
    function = call.get("function")
    if isinstance(function, dict):
        extra = leftovers(call, TOOL_CALL_KEYS_MAPPED)
        extra.update({f"function.{k}": v for k, v in leftovers(function,
                                                              FUNCTION_KEYS_MAPPED).items()})
        return extra
    flat_mapped = (TOOL_CALL_KEYS_MAPPED - {"function"}) | FUNCTION_KEYS_MAPPED
    return leftovers(call, flat_mapped)


def unread_blocks(content: Any) -> list[dict[str, Any]]:
    """The blocks of a list content that are neither text blocks nor image blocks with data
    (unknown block types such as tool_result, input_text or document, non-object items,
    image blocks without data), as {"block_idx", "block"}: kept whole in messages.extra, so
    their type and every field stay queryable (the text they carry is in content too)."""
    if not isinstance(content, list):
        return []
    out: list[dict[str, Any]] = []
    for idx, block in enumerate(content):
        if isinstance(block, str):
            continue
        if isinstance(block, dict):
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                continue
            source = block.get("source")
            if kind == "image" and isinstance(source, dict) and isinstance(
                    source.get("data"), str):
                continue
            if kind == "image_url":
                image_url = block.get("image_url")
                url = image_url.get("url") if isinstance(image_url, dict) else image_url
                if isinstance(url, str) and _data_url_parts(url) is not None:
                    continue
        out.append({"block_idx": idx, "block": block})
    return out
