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
from etl.synth.failures import (
    CONTEXT_ERROR,
    WRITER_CAP,
    Call,
    Planted,
    Planter,
    _validation,
    executor_json_error,
    tool_arguments,
)

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
        # the failures planted in each record, by planted_key (the truth file reads them)
        self.planted: dict[tuple[str, int, str | None], Planted] = {}

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
                   user_content: Any) -> tuple[list[dict[str, Any]], bool, str, str, Planted]:
        """messages, completed, status, stop_reason and the planted failures for a non-error
        agentic run.

        Writer shapes (deploy_agent_mm.py run_one_native_mm): Kimi emits the image tools
        under ehr. and the record keeps that name (the executor routes it to image.*,
        logged as TOOL_NAME_FIX); GLM's multimodal runs take the is_openseeker_repo_like
        branch: each tool message carries the executed name and a fresh uuid
        tool_call_id. Failures (etl/synth/failures.py: the writer's texts, the model's
        rates) are drawn from a generator of their own, so the rest of the tree does not
        change with them; every call's arguments are the ones its tool requires, different
        at every step, so that only a planted repeat repeats."""
        kimi_names = multimodal and model == "kimi_k2_5"
        fresh_ids = multimodal and model == "glm_4_7"
        side = random.Random(f"tool-shapes/{model}/{q.qid}/{plan.payload}")
        planter = Planter(model, random.Random(f"failures/{model}/{q.qid}/{plan.payload}"),
                          multimodal=multimodal)
        planted = Planted()
        sep = "_" if old_style else "."
        messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_PROMPT},
                                          {"role": "user", "content": user_content}]
        tools = [f"ehr{sep}load_ehr", f"ehr{sep}get_records_by_time", f"ehr{sep}run_sql_query",
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
        repeat_at = planter.repeat_step(n_steps)
        clean: list[Call] = []  # calls that went through, one of which a planted repeat repeats
        for step in range(n_steps):
            tool = tools[0] if step == 0 else tools[1 + rng.randrange(len(tools) - 1)]
            cid = _call_id(model, rng)
            bare = tool.split(".", 1)[1] if "." in tool else tool.split("_", 1)[1]
            executed = (f"image.{bare}" if bare in IMAGE_TOOLS
                        else "ehr." + bare if tool.startswith("ehr") else tool)
            reasoning = (self.filler.take(rng, 80 + min(per_call // 50, steps.reasoning_cap))
                         if reasoning_model else None)
            content = "" if model == "kimi_k2_5" and step else f"Step {step + 1}: calling {tool}."
            # the result is drawn after the assistant message, as it always was (the tree's
            # other contents stay what they were); "" until then
            call = Call(tool, executed, tool_arguments(executed, q.task, q.inputs, step), "")
            malformed = model == "glm_4_7" and step == 1
            repeat = step == repeat_at and clean
            if malformed:
                # GLM's malformed call: the executor's json.loads raises
                call.arguments = '{"query": "SELECT * FROM chartevents WHERE'
                call.result = executor_json_error(executed, call.arguments)
                call.labels.append(("invalid_arguments", "unparseable_arguments"))
            elif repeat:
                # the same tool with the same arguments again (and the same answer)
                earlier = clean[side.randrange(len(clean))]
                call = Call(earlier.name, earlier.executed, earlier.arguments, earlier.result)
                planted.results.append(("repeated_call", earlier.executed, 1))
            else:
                planter.plant(call, bare, q.task, step)
            args: Any = call.arguments
            if isinstance(args, dict):
                args = args if model == "kimi_k2_5" and step % 3 == 2 else json.dumps(args)
                # (some backends hand back a dict, not a string)
            wire = {"id": cid, "type": "function",
                    "function": {"name": call.name, "arguments": args}}
            at = len(messages)
            messages.append(self._assistant(model, content, [wire], rng, reasoning))
            if not malformed:
                payload = self.filler.take(rng, per_call)
                if call.labels == [("truncated_result", "at_writer_cap")]:
                    call.result = self.filler.take(planter.rng, WRITER_CAP)
                elif not call.result and not call.labels:
                    call.result = payload
            if len(call.result) == WRITER_CAP and \
                    ("truncated_result", "at_writer_cap") not in call.labels:
                # a result at the writer's cap: truncate_tool_result cut it there
                call.labels.append(("truncated_result", "at_writer_cap"))
            if not malformed and not repeat and \
                    all(label == "truncated_result" for label, _ in call.labels):
                clean.append(call)
            planted.calls.extend((at, 0, label, detail) for label, detail in call.labels)
            if fresh_ids:
                messages.append(self._tool_msg(call.result, _uuid(side), call.executed))
            else:
                messages.append(self._tool_msg(call.result, cid,
                                               call.name if with_names else None))
            if old_style and step == 1:
                messages.append({"role": "user", "content": REMINDER})
        items = answer_items(q, plan.outcome, rng)
        v = plan.variant
        candidates = q.inputs.get("candidates")
        if plan.outcome == "zero" and v in ("list", "dict_args") and plan.shape is None \
                and candidates:
            # a wrong answer left empty, or named off the candidate list (its score stays 0)
            if planter.result_label("empty_answer"):
                items = []
            elif planter.result_label("outside"):
                items = [*items[:-1], planter.off_list()]
        if v == "no_answer":
            messages.append(self._assistant(model, "I could not determine the answer.",
                                            None, rng, None))
            planted.results.append(("no_final_answer", "no_finish_call", 0))
            return messages, False, "incomplete", "no_final_answer", planted
        if v == "text_answer":
            messages.append(self._assistant(
                model, f"Exact Answer: {', '.join(items)}\nConfidence: 60%", None, rng, None))
            planted.results.append(("no_final_answer", "no_finish_call", 0))
            return messages, True, "success", "exact_answer_text_content", planted
        if v == "text_answer_reasoning":
            msg = self._assistant(model, "", None, rng, None)
            msg["reasoning_content"] = f"Exact Answer: {items[0] if items else ''}\nConfidence: 50%"
            messages.append(msg)
            planted.results.append(("no_final_answer", "no_finish_call", 0))
            return messages, True, "success", "exact_answer_text_reasoning_content", planted
        if v == "synthetic":
            cid = f"synthetic_finish_{_hex(rng, 8)}"
            body = json.dumps({"response": items})
            messages.append({"role": "assistant", "content": f"Final answer: {body}",
                             "tool_calls": [{"id": cid, "type": "function", "function": {
                                 "name": "ehr.finish", "arguments": body}}]})
            messages.append({"role": "tool",
                             "content": "Finish (synthesized from plain-text answer)",
                             "tool_call_id": cid})
            planted.results.extend(_answer_truth(items, candidates))
            return messages, True, "success", "finish_tool_call", planted
        finish = "functions.finish" if plan.shape == "functions_finish" else f"ehr{sep}finish"
        answer = shaped_items(items, plan.shape)
        args, _ = _finish_args(answer, v)
        if plan.shape == "python_args":
            args = repr({"response": answer})  # a Python literal, not JSON
        cid = _call_id(model, rng)
        call = {"id": cid, "type": "function", "function": {"name": finish, "arguments": args}}
        at = len(messages)
        messages.append(self._assistant(model, "Submitting the final answer.", [call], rng,
                                        None))
        echo, labels, answered = FINISH_ECHO, [], True
        if finish == "functions.finish":
            # no namespace the executor knows: it never runs
            echo, labels = f"Unknown tool namespace: {finish}", [("unknown_tool",
                                                                  "not_a_benchmark_tool")]
        if isinstance(args, str) and not _parses(args):
            echo = executor_json_error("ehr.finish", args)
            labels, answered = [*labels, ("invalid_arguments", "unparseable_arguments")], False
        elif v == "missing":
            echo = _validation("finish", "response", json.loads(args))
            labels, answered = [*labels, ("invalid_arguments", "missing_argument")], False
        planted.calls.extend((at, 0, label, detail) for label, detail in labels)
        if answered:
            planted.results.extend(_answer_truth(_response_items(args), candidates))
        else:
            planted.results.append(("no_final_answer", "unreadable_finish", 0))
        if fresh_ids:
            messages.append(self._tool_msg(echo, _uuid(side), finish))
        else:
            messages.append(self._tool_msg(echo, cid, finish if with_names else None))
        if plan.shape == "incomplete_finish":
            # the run was marked incomplete although it called finish: the authors' scorer
            # scores its answer anyway
            return messages, False, "incomplete", "no_final_answer", planted
        return messages, True, "success", "finish_tool_call", planted

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
            planter = Planter(model, random.Random(f"failures/{model}/{q.qid}/{plan.payload}"),
                              multimodal=multimodal)
            error = ("ReadTimeoutError: Read timed out. (read timeout=120)"
                     if plan.variant == "error" else "SSLError: EOF occurred in violation "
                     "of protocol (_ssl.c:2427)")
            if plan.variant == "error" and planter.result_label("run_error"):
                error = CONTEXT_ERROR  # the run's context overflowed: no infrastructure failure
            rec.update(completed=False, status="error",
                       stop_reason="exception" if plan.variant == "error"
                       else "exception_before_completion", error=error)
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
            msgs, completed, status, stop, planted = self.trajectory(
                q, model, plan, rng, old_style=old_style, with_names=with_names,
                multimodal=multimodal, user_content=user)
            rec.update(messages=msgs, completed=completed, status=status, stop_reason=stop)
            self.planted[planted_key(rec)] = planted
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
            candidates = q.inputs.get("candidates")
            if plan.outcome == "zero" and plan.shape is None and candidates:
                planter = Planter(model, random.Random(f"failures/{model}/{q.qid}/"
                                                       f"{plan.payload}/oneshot"),
                                  multimodal=False)
                if planter.result_label("empty_answer"):
                    items = []
                elif planter.result_label("outside"):
                    items = [*items[:-1], planter.off_list()]
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
        if status == "ok":
            self.planted[planted_key(out)] = Planted(
                results=_answer_truth(items, q.inputs.get("candidates")))
        return out


def planted_key(rec: dict[str, Any]) -> tuple[str, int, str | None]:
    """What the planted failures of a record are found by: its qid, run index and first
    tool call id (random, so one record's)."""
    first = next((c.get("id") for m in rec.get("messages") or [] if isinstance(m, dict)
                  for c in m.get("tool_calls") or [] if isinstance(c, dict)), None)
    return str(rec.get("qid")), int(rec.get("run_index") or 1), first


def _parses(arguments: str) -> bool:
    try:
        return isinstance(json.loads(arguments), dict)
    except ValueError:
        return False


def _response_items(arguments: Any) -> list[str] | None:
    """The finish call's response as answer items: a list's items, a string or a number as
    one item; None when there is no response."""
    parsed = arguments if isinstance(arguments, dict) else json.loads(arguments)
    response = parsed.get("response")
    if response is None:
        return None
    return response if isinstance(response, list) else [response]


def _answer_truth(items: list[Any] | None, candidates: Any) -> list[tuple[str, str, int]]:
    """The answer labels an answer plants: empty_answer when it has no item (blank items
    do not count), answer_outside_candidates when an item is not among the question's
    candidates (items and candidates stripped and lower-cased, each counted once)."""
    if items is None:
        return []
    answer = list(dict.fromkeys(str(x).strip().lower() for x in items if x is not None
                                and str(x).strip()))
    if not answer:
        return [("empty_answer", "no_items", 0)]
    if not isinstance(candidates, list) or not candidates:
        return []
    allowed = {str(c).strip().lower() for c in candidates}
    outside = [x for x in answer if x not in allowed]
    return [("answer_outside_candidates", f"{len(outside)} of {len(answer)} items", 0)] \
        if outside else []


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
    calls recorded under ehr. that ran as image tools, tool messages whose tool_call_id
    names no call of the record (fresh uuids). (The failures it holds are its planted
    truth: etl/synth/writer.py.)"""
    out = {"n_name_fixed": 0, "n_fresh_id_results": 0}
    msgs = [m for m in rec.get("messages") or [] if isinstance(m, dict)]
    ids = {c.get("id") for m in msgs for c in m.get("tool_calls") or [] if isinstance(c, dict)}
    for m in msgs:
        for c in m.get("tool_calls") or []:
            name = str((c.get("function") or {}).get("name", ""))
            if name.startswith("ehr.") and name[4:] in IMAGE_TOOLS:
                out["n_name_fixed"] += 1
        if m.get("role") == "tool":
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
