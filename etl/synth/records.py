"""Per-question result records in the shapes the ClinSeek runners write.

Key order follows the public runners (UCSC-VLAA/ClinSeekAgent): agentic records start
qid, run_index, runs_per_question, session_id, question, messages, completed, status,
stop_reason[, error] and then the input row's fields (clinseekagent/run_text.py
attach_source_fields); one-shot records are the input row followed by qid, session_id,
run_index, runs_per_question, messages, completed, status, stop_reason, error,
backend_region, backend_model_id (clinseekagent/run_text_curated.py process_row)."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from etl.synth import spec
from etl.synth.content import Filler, Images, Question, Timelines

SYSTEM_PROMPT = (
    "You are ClinSeekAgent, a clinical research assistant with access to a patient's EHR "
    "through ehr.* tools and to the web through browser.* tools. Investigate, then call "
    "ehr.finish with your answer as a JSON list of strings."
)
FINISH_ECHO = "Finish tool called. Final response recorded."
# The six image tools of the multimodal harness (clinseekagent/prompts_multimodal.py
# IMAGE_TOOL_CONTENT_JSON), typed here from that file.
IMAGE_TOOLS = ("image_visualizer", "dicom_processor", "chest_xray_classifier",
               "chest_xray_report_generator", "xray_phrase_grounding", "chest_xray_segmentation")
# Tool failures as the MCP pools return them (openresearcher_ehr/ehr_pool.py and
# image_pool.py _call_mcp_tool: a timeout lands in `except Exception`, then the SSE, JSON-RPC
# error, isError and HTTP branches). {tool} is the bare tool name the pool was asked for.
POOL_ERRORS = {
    "ehr": ("Error calling MCP tool '{tool}': ReadTimeout('')", "No data in SSE response",
            "MCP Error -32603: database is locked",
            "Tool Error: [{{'type': 'text', 'text': 'no such table: labevents_x'}}]",
            "HTTP Error 502: <html><body>Bad Gateway</body></html>"),
    "image": ("Error calling image tool '{tool}': ReadTimeout('')", "No data in SSE response",
              "HTTP Error 503: Service Unavailable"),
}
TOOL_ERROR_RATE = 0.04  # share of tool results that are a pool failure
# What the synth counts as a failure text when it tallies what it wrote (its own list).
WRITTEN_ERROR_STARTS = ("Error executing ", "Error calling MCP tool '",
                        "Error calling image tool '", "No data in SSE response", "MCP Error ",
                        "Tool Error: ", "HTTP Error ")
# What clinseekagent/run_text_curated.py appends to the row's rendered question (its
# _ANSWER_TRAILER, shortened): the user message of a one-shot record with a shared timeline.
ANSWER_TRAILER = ("\n\n---\nAfter any reasoning, emit your final answer inside an "
                  "<answer>...</answer> XML block as the very last thing you write.")
REMINDER = ("Reminder: you have not called ehr_finish yet. When you know the answer, call "
            "ehr_finish with {\"response\": [...]}.")


@dataclass(slots=True)
class Plan:
    """How one (question, run_index) of one run turns out."""

    outcome: str  # exact | partial | zero
    variant: str  # list | dict_args | string | number | missing | malformed | synthetic |
    #               text_answer | no_answer | error | error_early | invoke_error
    payload: int  # chars of tool results (agentic) or timeline (one-shot) to write
    # A writer habit planted on a few % of "list" records (plan.py SHAPES), each one a rule
    # where the authors' scorer differs from a normalized reading: padded (one item with
    # spaces around it), python_args (finish arguments as a Python literal), functions_finish
    # (the call named functions.finish), incomplete_finish (status incomplete with a finish
    # answer), nonstring_items (an integer item beside the strings).
    shape: str | None = None


def answer_items(q: Question, outcome: str, rng: random.Random) -> list[str]:
    """Prediction strings for a planned outcome, with the case and spacing noise real
    models produce (scoring lower-cases and strips)."""
    if outcome == "exact":
        items = list(q.gold)
    elif outcome == "partial":
        half = max(1, len(q.gold) // 2)
        items = q.gold[:half] + q.wrong[:half]
    else:
        items = q.wrong[: rng.randint(1, 2)]
    rng.shuffle(items)
    noisy = []
    for it in items:
        r = rng.random()
        # upper case is harmless (every scorer lower-cases); padding is a planted shape
        # (Plan.shape "padded"), since the authors' scorer does not strip list items
        noisy.append(it.upper() if r < 0.1 else it)
    return noisy


def shaped_items(items: list[str], shape: str | None) -> list[Any]:
    """The answer list with the plan's planted shape applied (see Plan.shape)."""
    if shape == "padded" and items:
        return [f" {items[0]} ", *items[1:]]
    if shape == "nonstring_items":
        return [*items, 1]
    return items


def _hex(rng: random.Random, n: int) -> str:
    return f"{rng.getrandbits(4 * n):0{n}x}"


def _uuid(rng: random.Random) -> str:
    """str(uuid.uuid4()) shaped, from rng (deterministic)."""
    h = _hex(rng, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _call_id(model: str, rng: random.Random) -> str:
    if model in spec.ANTHROPIC:
        return "toolu_bdrk_01" + _hex(rng, 22)
    return "call_" + _hex(rng, 24)


def _finish_args(items: list[Any], variant: str) -> tuple[Any, bool]:
    """(arguments, as_dict) for the finish call of a variant."""
    if variant == "dict_args":
        return {"response": items}, True
    if variant == "string":
        return json.dumps({"response": items[0] if items else ""}), False
    if variant == "number":
        return json.dumps({"response": 0}), False
    if variant == "missing":
        return json.dumps({"rationale": "insufficient evidence"}), False
    if variant == "malformed":
        return '{"response": ["' + (items[0] if items else "x") + '", ', False
    return json.dumps({"response": items}), False


class RecordMaker:
    """Builds result records; holds the filler pools so big payloads are cheap slices."""

    def __init__(self, filler: Filler, images: Images,
                 shape: spec.TrajectoryShape = spec.TRAJECTORY_SHAPES["default"],
                 timelines: Timelines | None = None) -> None:
        self.filler = filler
        self.images = images
        self.trajectory_shape = shape
        # the question's own timeline for one-shot prompts (shapes with shared_timelines)
        self.timelines = timelines

    # ---- agentic ---------------------------------------------------------------
    def _assistant(self, model: str, content: str, calls: list[dict[str, Any]] | None,
                   rng: random.Random, reasoning: str | None) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": "assistant", "content": content, "tool_calls": calls}
        if reasoning and model not in spec.ANTHROPIC:
            msg["reasoning_content"] = reasoning
        if model in spec.ANTHROPIC:
            blocks: list[dict[str, Any]] = []
            if reasoning:
                blocks.append({"type": "thinking", "thinking": reasoning,
                               "signature": _hex(rng, 32)})
            if content:
                blocks.append({"type": "text", "text": content})
            for c in calls or []:
                args = c["function"]["arguments"]
                try:
                    parsed = args if isinstance(args, dict) else json.loads(args)
                except ValueError:
                    parsed = {"_raw": args}
                blocks.append({"type": "tool_use", "id": c["id"],
                               "name": c["function"]["name"], "input": parsed})
            msg["bedrock_content_blocks"] = blocks
        return msg

    def _tool_msg(self, content: str, call_id: str, name: str | None) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": "tool", "content": content, "tool_call_id": call_id}
        if name is not None:
            msg["name"] = name
        return msg

    def trajectory(self, q: Question, model: str, plan: Plan, rng: random.Random, *,
                   old_style: bool, with_names: bool, multimodal: bool,
                   user_content: Any) -> tuple[list[dict[str, Any]], bool, str, str]:
        """messages, completed, status, stop_reason for a non-error agentic run.

        Writer shapes (deploy_agent_mm.py run_one_native_mm): Kimi emits the image tools
        under ehr. and the record keeps that name (the executor routes it to image.*,
        logged as TOOL_NAME_FIX); GLM's multimodal runs take the is_openseeker_repo_like
        branch: each tool message carries the executed name and a fresh uuid
        tool_call_id. A few tool results are pool failures (POOL_ERRORS), drawn from a
        generator of their own so the rest of the tree does not change with them."""
        kimi_names = multimodal and model == "kimi_k2_5"
        fresh_ids = multimodal and model == "glm_4_7"
        side = random.Random(f"tool-shapes/{model}/{q.qid}/{plan.payload}")
        sep = "_" if old_style else "."
        messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_PROMPT},
                                          {"role": "user", "content": user_content}]
        tools = [f"ehr{sep}load_ehr", f"ehr{sep}get_table_names", f"ehr{sep}run_sql_query",
                 f"ehr{sep}get_candidates_by_keyword", f"ehr{sep}think"]
        if multimodal:
            tools += [f"{'ehr' if kimi_names else 'image'}.{t}"
                      for t in ("chest_xray_classifier", "chest_xray_report_generator")]
        else:
            tools += ["browser.search", "browser.open", "browser.find"]
        steps = self.trajectory_shape
        n_steps = max(2, min(steps.max_steps,
                             plan.payload // steps.chars_per_step + rng.randint(1, 4)))
        per_call = min(steps.max_tool_chars, max(40, plan.payload // n_steps))
        reasoning_model = model != "claude_sonnet_4_6"
        for step in range(n_steps):
            tool = tools[0] if step == 0 else tools[1 + rng.randrange(len(tools) - 1)]
            cid = _call_id(model, rng)
            if "sql" in tool:
                args: Any = json.dumps({"query": f"SELECT * FROM labevents WHERE subject_id = "
                                                 f"{q.inputs.get('subject_id')} LIMIT {step + 5}"})
            elif "browser" in tool:
                args = json.dumps({"query": f"{q.task} clinical guideline", "topn": 5})
            elif "image" in tool:
                args = json.dumps({"image_index": step % 4})
            else:
                args = json.dumps({"subject_id": q.inputs.get("subject_id"),
                                   "note": "检查 ✓"})
            malformed = model == "glm_4_7" and step == 1
            if malformed:
                args = '{"query": "SELECT * FROM chartevents WHERE'
            elif model == "kimi_k2_5" and step % 3 == 2:
                args = json.loads(args)  # some backends hand back a dict, not a string
            reasoning = (self.filler.take(rng, 80 + min(per_call // 50, steps.reasoning_cap))
                         if reasoning_model else None)
            content = "" if model == "kimi_k2_5" and step else f"Step {step + 1}: calling {tool}."
            call = {"id": cid, "type": "function", "function": {"name": tool, "arguments": args}}
            messages.append(self._assistant(model, content, [call], rng, reasoning))
            bare = tool.split(".", 1)[1] if "." in tool else tool.split("_", 1)[1]
            executed = f"image.{bare}" if bare in IMAGE_TOOLS else tool
            if malformed:
                result = (f"Error executing {executed}: Unterminated string starting at: "
                          f"line 1 column 11 (char 10)")
            else:
                result = self.filler.take(rng, per_call)
                if step and side.random() < TOOL_ERROR_RATE:
                    family = "image" if executed.startswith("image.") else "ehr"
                    result = side.choice(POOL_ERRORS[family]).format(tool=bare)
            if fresh_ids:
                messages.append(self._tool_msg(result, _uuid(side), executed))
            else:
                messages.append(self._tool_msg(result, cid, tool if with_names else None))
            if old_style and step == 1:
                messages.append({"role": "user", "content": REMINDER})
        items = answer_items(q, plan.outcome, rng)
        v = plan.variant
        if v == "no_answer":
            messages.append(self._assistant(model, "I could not determine the answer.",
                                            None, rng, None))
            return messages, False, "incomplete", "no_final_answer"
        if v == "text_answer":
            messages.append(self._assistant(
                model, f"Exact Answer: {', '.join(items)}\nConfidence: 60%", None, rng, None))
            return messages, True, "success", "exact_answer_text_content"
        if v == "text_answer_reasoning":
            msg = self._assistant(model, "", None, rng, None)
            msg["reasoning_content"] = f"Exact Answer: {items[0] if items else ''}\nConfidence: 50%"
            messages.append(msg)
            return messages, True, "success", "exact_answer_text_reasoning_content"
        if v == "synthetic":
            cid = f"synthetic_finish_{_hex(rng, 8)}"
            body = json.dumps({"response": items})
            messages.append({"role": "assistant", "content": f"Final answer: {body}",
                             "tool_calls": [{"id": cid, "type": "function", "function": {
                                 "name": "ehr.finish", "arguments": body}}]})
            messages.append({"role": "tool",
                             "content": "Finish (synthesized from plain-text answer)",
                             "tool_call_id": cid})
            return messages, True, "success", "finish_tool_call"
        finish = "functions.finish" if plan.shape == "functions_finish" else f"ehr{sep}finish"
        answer = shaped_items(items, plan.shape)
        args, _ = _finish_args(answer, v)
        if plan.shape == "python_args":
            args = repr({"response": answer})  # a Python literal, not JSON
        cid = _call_id(model, rng)
        call = {"id": cid, "type": "function", "function": {"name": finish, "arguments": args}}
        messages.append(self._assistant(model, "Submitting the final answer.", [call], rng,
                                        None))
        if fresh_ids:
            messages.append(self._tool_msg(FINISH_ECHO, _uuid(side), finish))
        else:
            messages.append(self._tool_msg(FINISH_ECHO, cid, finish if with_names else None))
        if plan.shape == "incomplete_finish":
            # the run was marked incomplete although it called finish: the authors' scorer
            # scores its answer anyway
            return messages, False, "incomplete", "no_final_answer"
        return messages, True, "success", "finish_tool_call"

    def agentic(self, q: Question, model: str, plan: Plan, rng: random.Random, *,
                run_index: int, runs_per_question: int, q_index: int, old_style: bool = False,
                with_names: bool = False, multimodal: bool = False) -> dict[str, Any]:
        question = (q.inputs.get("question") if multimodal else
                    f"Task {q.task}: answer for patient {q.inputs['subject_id']} at "
                    f"{q.inputs['prediction_time']}. Candidates: "
                    f"{', '.join(map(str, q.inputs['candidates'][:8]))}")
        session_id = f"{q.qid}__q_{q_index}__run_{run_index}"
        rec: dict[str, Any] = {"qid": q.qid, "run_index": run_index,
                               "runs_per_question": runs_per_question,
                               "session_id": session_id, "question": question}
        if plan.variant in ("error", "error_early"):
            rec["messages"] = []
            rec.update(completed=False, status="error",
                       stop_reason="exception" if plan.variant == "error"
                       else "exception_before_completion",
                       error="ReadTimeoutError: Read timed out. (read timeout=120)"
                       if plan.variant == "error" else "SSLError: EOF occurred in violation "
                       "of protocol (_ssl.c:2427)")
            if multimodal:
                del rec["session_id"]
        else:
            user: Any = question
            if multimodal:
                blocks: list[dict[str, Any]] = [{"type": "text", "text": question}]
                for _ in range(q.inputs["multimodal_summary"]["num_images"]):
                    blocks.append({"type": "image", "source": {
                        "type": "base64", "media_type": "image/jpeg",
                        "data": self.images.pick(rng)}})
                user = blocks
            msgs, completed, status, stop = self.trajectory(
                q, model, plan, rng, old_style=old_style, with_names=with_names,
                multimodal=multimodal, user_content=user)
            rec.update(messages=msgs, completed=completed, status=status, stop_reason=stop)
        for key, value in q.inputs.items():
            if key not in rec:
                if plan.variant in ("error", "error_early") and key == "multimodal_summary":
                    continue
                rec[key] = value
        if not multimodal and q.task in ("labevents", "transfers"):
            # input-row fields beyond FORMATS.md's list (attach_source_fields copies every
            # field of the input row): they have no column and must stay queryable
            rec["task_info"] = {"source_table": q.task, "n_candidates": len(
                q.inputs.get("candidates") or [])}
            rec["ground_truth"] = list(q.gold)
        return rec

    # ---- one-shot --------------------------------------------------------------
    def oneshot(self, q: Question, model: str, plan: Plan, rng: random.Random, *,
                region: str, run_index: int = 1) -> dict[str, Any]:
        model_id = spec.backend_id(model, region)
        out = dict(q.inputs)
        rendered = None
        if self.timelines is not None:
            # the benchmark row's rendered question, the same for every model
            timeline = self.timelines.of(q.qid)
            rendered = (f"{q.inputs.get('question') or f'Task: {q.task}'}\n"
                        f"## Patient timeline\n{timeline}\n## Timeline (by table)\n"
                        f"{timeline}\n## Timeline (recent first)\n{timeline}\n"
                        f"Answer with a JSON list of strings.")
            out["question"] = rendered
        if plan.variant == "error_early":
            # the runner's future raised: no session_id, no run_index (DESIGN: run 1)
            out.update(qid=q.qid, messages=[], completed=False, status="error",
                       stop_reason="exception",
                       error="ConnectionResetError: [Errno 104] Connection reset by peer",
                       backend_region=region, backend_model_id=model_id)
            return out
        if rendered is not None:
            prompt = rendered + ANSWER_TRAILER
        else:
            timeline = self.filler.take(rng, plan.payload)
            prompt = (f"Task: {q.task}\n## Patient timeline\n{timeline}\n"
                      f"## Timeline (by table)\n{timeline}\n## Timeline (recent first)\n"
                      f"{timeline}\nAnswer with a JSON list of strings.")
        if plan.variant == "invoke_error":
            text, status = ("[ERROR] ThrottlingException: An error occurred (ThrottlingException)"
                            " when calling the InvokeModel operation: Too many requests"), "error"
            items: list[Any] = []
        else:
            items = shaped_items(answer_items(q, plan.outcome, rng), plan.shape)
            text, status = json.dumps({"response": items}, ensure_ascii=False), "ok"
        synth_id = f"one_shot_{_hex(rng, 8)}"
        messages = [
            {"role": "user", "content": prompt},
            {"role": "assistant", "content": text, "tool_calls": [{
                "id": synth_id, "type": "function",
                "function": {"name": "ehr.finish", "arguments": json.dumps({"response": items})},
            }]},
            {"role": "tool", "tool_call_id": synth_id, "content": "Finish (one-shot)"},
        ]
        out.update(qid=q.qid, session_id=f"{q.qid}__q_1__run_{run_index}", run_index=run_index,
                   runs_per_question=1, messages=messages, completed=status == "ok",
                   status=status, stop_reason="finish_tool_call" if status == "ok" else "exception",
                   error=None if status == "ok" else text, backend_region=region,
                   backend_model_id=model_id)
        return out


def prediction_of(rec: dict[str, Any]) -> list[str]:
    """The DESIGN.md answer rule, computed independently of how the record was built:
    the `response` of the last tool call whose name ends in `finish`."""
    last = None
    for msg in rec.get("messages") or []:
        if not isinstance(msg, dict):
            continue
        for call in msg.get("tool_calls") or []:
            fn = call.get("function") or {}
            if str(fn.get("name", "")).endswith("finish"):
                last = fn.get("arguments")
    if last is None:
        return []
    if isinstance(last, str):
        try:
            last = json.loads(last)
        except ValueError:
            return []
    if not isinstance(last, dict) or "response" not in last:
        return []
    resp = last["response"]
    if isinstance(resp, list):
        return [str(x) for x in resp]
    if isinstance(resp, bool) or resp is None:
        return []
    if isinstance(resp, (str, int, float)):
        return [str(resp)]
    return []


def normalized_set(items: list[str]) -> set[str]:
    return {s.strip().lower() for s in items}


def tool_shapes(rec: dict[str, Any]) -> dict[str, int]:
    """What a record holds of the writer's tool shapes, tallied from the record itself:
    tool messages that are failures, calls recorded under ehr. that ran as image tools,
    tool messages whose tool_call_id names no call of the record (fresh uuids)."""
    out = {"n_error_results": 0, "n_name_fixed": 0, "n_fresh_id_results": 0}
    msgs = [m for m in rec.get("messages") or [] if isinstance(m, dict)]
    ids = {c.get("id") for m in msgs for c in m.get("tool_calls") or [] if isinstance(c, dict)}
    for m in msgs:
        for c in m.get("tool_calls") or []:
            name = str((c.get("function") or {}).get("name", ""))
            if name.startswith("ehr.") and name[4:] in IMAGE_TOOLS:
                out["n_name_fixed"] += 1
        if m.get("role") == "tool":
            text = m.get("content")
            if isinstance(text, str) and text.startswith(WRITTEN_ERROR_STARTS):
                out["n_error_results"] += 1
            if m.get("tool_call_id") not in ids:
                out["n_fresh_id_results"] += 1
    return out


# Record keys FORMATS.md §2 / DESIGN.md give a results column (the synth's own list): every
# other key of a loaded record must land in results.extra.
COLUMN_KEYS = frozenset({
    "qid", "run_index", "runs_per_question", "session_id", "question", "messages",
    "completed", "status", "stop_reason", "error", "task", "task_type", "label", "subject_id",
    "hadm_id", "stay_id", "prediction_time", "backend_region", "backend_model_id",
    "task_family", "scope", "source_benchmark"})


def extra_keys(rec: dict[str, Any]) -> list[str]:
    return sorted(k for k in rec if k not in COLUMN_KEYS)
