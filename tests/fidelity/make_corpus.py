"""Write the text fidelity corpus: results trees whose records have the shapes the public
writer (UCSC-VLAA/ClinSeekAgent clinseekagent/run_text.py for agentic runs,
clinseekagent/run_text_curated.py for one-shot runs) writes, one line per record with
Python's json.dumps, plus the benchmark files the authors' scorer needs (--benchmark, JSON arrays of
{qid, task, task_type, label, ...}).

Each question is built to exercise one rule where the authors' scorer (score_text.py) and a
naive reading differ: padded strings, Python-literal finish arguments, finish names such as
functions.finish / ehr_finish / ehr.Finish, incomplete runs with a finish answer,
atc_name gold where some objects lack it, non-string items, string / number / missing
responses, several runs per question, error rows, answers only in the text (for the
--extract-text-answer-without-finish fallback).

    python tests/fidelity/make_corpus.py        # rewrites tests/fidelity/text/{tree,benchmarks}

The expected numbers are NOT computed here: tests/fidelity/regen.py runs the authors' own
scorer on these files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent / "text"
TREE = HERE / "tree"
BENCH = HERE / "benchmarks"

SYSTEM = ("You are ClinSeekAgent. Investigate the patient's EHR with the ehr.* tools, then call "
          "ehr.finish with your answer as a JSON list of strings.")
CANDIDATES = ["Aspirin", "Heparin", "Metoprolol", "Furosemide", "Insulin glargine",
              "Sodium chloride 0.9%", "Acetaminophen"]


def question(task: str, task_type: str | None, n: int, label: Any) -> dict[str, Any]:
    subject, hadm = 10000000 + n, 20000000 + n
    row = {"qid": f"{task}_{subject}_{hadm}", "task": task, "subject_id": subject,
           "hadm_id": hadm, "prediction_time": "2150-01-02 03:04:05",
           "question": f"Task {task}: what applies to patient {subject}?",
           "candidates": CANDIDATES, "label": label}
    if task_type is not None:
        row["task_type"] = task_type
    return row


def finish_call(call_id: str, arguments: Any, name: str = "ehr.finish") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name,
                                                            "arguments": arguments}}


def dumps_args(response: Any) -> str:
    return json.dumps({"response": response})


def agentic(q: dict[str, Any], run_index: int, runs: int, q_index: int, final: list[dict],
            *, status: str = "success", stop_reason: str = "finish_tool_call",
            completed: bool = True, old_style: bool = False,
            error: str | None = None) -> dict[str, Any]:
    """An agentic record in run_text.py's key order; `final` = the closing messages."""
    sep = "_" if old_style else "."
    if error is not None:
        messages: list[dict[str, Any]] = []
    else:
        load = {"id": f"call_{q_index}_{run_index}_0", "type": "function",
                "function": {"name": f"ehr{sep}load_ehr",
                             "arguments": json.dumps({"subject_id": q["subject_id"]})}}
        cands = {"id": f"call_{q_index}_{run_index}_1", "type": "function",
                 "function": {"name": f"ehr{sep}get_candidates_by_keyword",
                              "arguments": json.dumps({"table": "prescriptions_candidates",
                                                       "keyword": "a"})}}
        listing = "--- Results for keyword 'a' ---\ncandidate\n" + "\n".join(CANDIDATES) + "\n"
        messages = [{"role": "system", "content": SYSTEM},
                    {"role": "user", "content": q["question"]},
                    {"role": "assistant", "content": "Loading the record.", "tool_calls": [load],
                     "reasoning_content": "Start with the EHR."},
                    {"role": "tool", "content": "EHR loaded: 12 tables.",
                     "tool_call_id": load["id"]},
                    {"role": "assistant", "content": "", "tool_calls": [cands]},
                    {"role": "tool", "content": listing, "tool_call_id": cands["id"]},
                    *final]
    rec: dict[str, Any] = {"qid": q["qid"], "run_index": run_index, "runs_per_question": runs,
                           "session_id": f"{q['qid']}__q_{q_index}__run_{run_index}",
                           "question": q["question"], "messages": messages,
                           "completed": completed if error is None else False,
                           "status": status if error is None else "error",
                           "stop_reason": stop_reason if error is None else "exception"}
    if error is not None:
        rec["error"] = error
    for key, value in q.items():
        rec.setdefault(key, value)
    return rec


def answer(call: dict[str, Any], content: str = "Submitting the final answer.") -> list[dict]:
    return [{"role": "assistant", "content": content, "tool_calls": [call]},
            {"role": "tool", "content": "Finish tool called. Final response recorded.",
             "tool_call_id": call["id"]}]


def text_only(content: str, reasoning: str | None = None) -> list[dict]:
    msg: dict[str, Any] = {"role": "assistant", "content": content, "tool_calls": None}
    if reasoning is not None:
        msg["reasoning_content"] = reasoning
    return [msg]


def oneshot(q: dict[str, Any], response_text: str, items: Any, *, error: str | None = None,
            n: int = 0) -> dict[str, Any]:
    """A one-shot record as run_text_curated.py writes it: the input row, then the run."""
    out = dict(q)
    if error is not None and not response_text:
        out.update(qid=q["qid"], messages=[], completed=False, status="error",
                   stop_reason="exception", error=error, backend_region="us-east-1",
                   backend_model_id="us.anthropic.claude-opus-4-6-v1")
        return out
    synth_id = f"one_shot_{n:08x}"
    messages = [{"role": "user", "content": f"Task: {q['task']}\n## Patient timeline\n..."},
                {"role": "assistant", "content": response_text, "tool_calls": [
                    finish_call(synth_id, json.dumps({"response": items}))]},
                {"role": "tool", "tool_call_id": synth_id, "content": "Finish (one-shot)"}]
    out.update(qid=q["qid"], session_id=f"{q['qid']}__q_1__run_1", run_index=1,
               runs_per_question=1, messages=messages, completed=error is None,
               status="ok" if error is None else "error",
               stop_reason="finish_tool_call" if error is None else "exception",
               error=error, backend_region="us-east-1",
               backend_model_id="us.anthropic.claude-opus-4-6-v1")
    return out


def ehr_questions() -> list[dict[str, Any]]:
    qs = [
        question("Inpatient_Mortality", "risk_prediction", 1, "Yes"),
        question("Inpatient_Mortality", "risk_prediction", 2, "No"),
        question("ICU_Mortality_7day", "risk_prediction", 3, "No"),
        question("ICU_Mortality_7day", "risk_prediction", 4, "Yes"),
        question("prescriptions", "decision_making", 5, ["Aspirin", "Heparin"]),
        question("prescriptions", "decision_making", 6, ["Metoprolol", "Furosemide", "Aspirin"]),
        question("prescriptions", "decision_making", 7, ["Insulin glargine"]),
        question("prescriptions", "decision_making", 8, ["Aspirin", "aspirin", "Heparin"]),
        question("prescriptions_atc", "decision_making", 9, [
            {"name": "Aspirin", "atc_name": "Antithrombotic agents"},
            {"name": "Heparin"}]),
        question("prescriptions_atc", "decision_making", 10, [
            {"name": "Metoprolol", "atc_name": "Beta blocking agents"},
            {"name": "Furosemide", "atc_name": "High-ceiling diuretics"}]),
        question("medrecon", "decision_making", 11, [{"name": "Aspirin"}, {"name": "Heparin"}]),
        question("medrecon_atc", "decision_making", 12, [
            {"name": "Aspirin", "atc_name": ""}, {"name": "Heparin", "atc_name": "Heparin group"}]),
        question("labevents", "decision_making", 13, ["Sodium", "Potassium"]),
        question("labevents", "decision_making", 14, ["ΟΔΟΣ test", "İnsulin level"]),
        question("diagnoses_icd", "decision_making", 15, ["Sepsis", "Pneumonia"]),
        question("diagnoses_icd", "decision_making", 16, ["Sepsis"]),
        question("transfers", "decision_making", 17, ["MICU", "Medicine"]),
        question("transfers", "decision_making", 18, ["CCU"]),
        question("omr", "decision_making", 19, ["Blood Pressure"]),
        question("omr", "decision_making", 20, ["Weight"]),
        question("services", "decision_making", 21, ["MED", "SURG"]),
        question("services", "decision_making", 22, ["CMED"]),
        # in the benchmark but never run: counts in total, not in completed or any mean
        question("services", "decision_making", 23, ["NSURG"]),
    ]
    return qs


def agentic_a(qs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ehr_bench agentic, one run per question, one rule per question."""
    c = lambda i, args, name="ehr.finish": finish_call(f"call_fin_{i}", args, name)  # noqa: E731
    q = {i + 1: x for i, x in enumerate(qs)}
    recs = [
        agentic(q[1], 1, 1, 1, answer(c(1, dumps_args(["Yes"])))),
        # upper case: lower-cased by both rules
        agentic(q[2], 1, 1, 2, answer(c(2, dumps_args(["NO"])))),
        # padded item: the authors never strip list items
        agentic(q[3], 1, 1, 3, answer(c(3, dumps_args([" No "])))),
        # a string response is stripped (one item)
        agentic(q[4], 1, 1, 4, answer(c(4, dumps_args("  Yes  ")))),
        # Python-literal arguments (single quotes): ast.literal_eval
        agentic(q[5], 1, 1, 5, answer(c(5, "{'response': ['Aspirin', 'heparin']}"))),
        # functions.finish (harmony-style name), partial overlap
        agentic(q[6], 1, 1, 6, answer(c(6, dumps_args(["Metoprolol", "Aspirin", "Insulin"]),
                                         "functions.finish"))),
        # non-string items: only strings count for the authors
        agentic(q[7], 1, 1, 7, answer(c(7, dumps_args(["Insulin glargine", 3, None,
                                                         {"name": "Heparin"}])))),
        # gold with case duplicates; prediction with case duplicates
        agentic(q[8], 1, 1, 8, answer(c(8, dumps_args(["ASPIRIN", "aspirin", "heparin"])))),
        # atc gold where one object lacks atc_name: that object adds nothing
        agentic(q[9], 1, 1, 9, answer(c(9, dumps_args(["Antithrombotic agents", "Heparin"])))),
        agentic(q[10], 1, 1, 10, answer(c(10, {"response": ["beta blocking agents",
                                                            "Furosemide"]}))),  # dict args
        # gold objects without atc_name: their name
        agentic(q[11], 1, 1, 11, answer(c(11, dumps_args(["Aspirin"])))),
        # one empty atc_name among truthy ones: "" becomes a gold item
        agentic(q[12], 1, 1, 12, answer(c(12, dumps_args(["Heparin group", "Aspirin"])))),
        # incomplete run with a finish answer: scored on it (status not consulted)
        agentic(q[13], 1, 1, 13, answer(c(13, dumps_args(["Sodium", "Potassium"]))),
                status="incomplete", stop_reason="no_final_answer", completed=False),
        # unicode lower-casing (final sigma, dotted capital I): Python str.lower
        agentic(q[14], 1, 1, 14, answer(c(14, dumps_args(["οδος TEST", "i̇nsulin level"])))),
        # malformed arguments: finish_parse_error, no prediction
        agentic(q[15], 1, 1, 15, answer(c(15, '{"response": ["Sepsis", '))),
        # number response: finish_tool_call_non_list
        agentic(q[16], 1, 1, 16, answer(c(16, dumps_args(0)))),
        # no response key: the empty list, source finish_tool_call
        agentic(q[17], 1, 1, 17, answer(c(17, json.dumps({"rationale": "unclear"})))),
        # old-style name ehr_finish; arguments a JSON list (used as is)
        agentic(q[18], 1, 1, 18, answer(c(18, json.dumps(["CCU", "MICU"]), "ehr_finish"))),
        # last finish decides: a good answer, then a blank string response
        agentic(q[19], 1, 1, 19, [*answer(c(19, dumps_args(["Blood Pressure"]))),
                                  *answer(finish_call("call_fin_19b", dumps_args("   ")))]),
        # two finish calls in one message: the later one in the list wins; name case
        agentic(q[20], 1, 1, 20, [{"role": "assistant", "content": "", "tool_calls": [
            c(20, dumps_args(["Height"])),
            finish_call("call_fin_20b", dumps_args(["weight"]), "ehr.Finish")]},
            {"role": "tool", "content": "ok", "tool_call_id": "call_fin_20"},
            {"role": "tool", "content": "ok", "tool_call_id": "call_fin_20b"}]),
        # error row: messages []
        agentic(q[21], 1, 1, 21, [], error="ReadTimeoutError: Read timed out."),
        # no finish call: the answer is only in the text (fallback option finds it)
        agentic(q[22], 1, 1, 22, text_only('Final answer: ["CMED", "Medicine"]'),
                stop_reason="exact_answer_text_content"),
    ]
    return recs


def agentic_b(qs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ehr_bench agentic, three runs per question (best@k), shapes mixed over runs."""
    q = {i + 1: x for i, x in enumerate(qs)}
    out = []
    plans = {
        1: [["Yes"], ["No"], None],
        5: [["Aspirin"], ["Aspirin", "Heparin"], [" Aspirin", "Heparin "]],
        6: [["Metoprolol"], "{'response': ['Furosemide', 'Aspirin', 'Metoprolol']}", ["x"]],
        9: [["Antithrombotic agents"], ["Aspirin", "Heparin"], "error"],
        13: [["Sodium"], "incomplete", ["Potassium", "Sodium", "Chloride"]],
        15: ["text", ["Sepsis"], ["Pneumonia", "Sepsis"]],
        17: [["MICU"], ["MICU", "Medicine"], ["medicine", "micu"]],
    }
    for q_index, (n, plan) in enumerate(sorted(plans.items()), start=1):
        for run_index, item in enumerate(plan, start=1):
            cid = f"call_fin_b{n}_{run_index}"
            if item is None:
                rec = agentic(q[n], run_index, 3, q_index,
                              text_only("I could not determine the answer."),
                              status="incomplete", stop_reason="no_final_answer",
                              completed=False)
            elif item == "error":
                rec = agentic(q[n], run_index, 3, q_index, [],
                              error="SSLError: EOF occurred in violation of protocol")
            elif item == "incomplete":
                rec = agentic(q[n], run_index, 3, q_index,
                              answer(finish_call(cid, dumps_args(["Potassium"]))),
                              status="incomplete", stop_reason="no_final_answer",
                              completed=False)
            elif item == "text":
                rec = agentic(q[n], run_index, 3, q_index, text_only(
                    "Final answer:\n- Sepsis\n- Pneumonia\n\nDone."),
                    stop_reason="exact_answer_text_content")
            elif isinstance(item, str):
                rec = agentic(q[n], run_index, 3, q_index,
                              answer(finish_call(cid, item, "functions.finish")))
            else:
                rec = agentic(q[n], run_index, 3, q_index,
                              answer(finish_call(cid, dumps_args(item))))
            out.append(rec)
    return out


def oneshot_a(qs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ehr_bench one-shot: the assistant text and the synthesized ehr.finish call."""
    q = {i + 1: x for i, x in enumerate(qs)}
    out = []
    answers = {1: ["yes"], 2: [" No"], 3: ["No"], 4: ["Yes", "No"], 5: ["Aspirin", "Heparin "],
               6: ["metoprolol", "furosemide", "aspirin"], 7: [], 9: ["Antithrombotic agents"],
               11: ["aspirin", "heparin"], 13: ["Sodium", 1.5], 16: ["Sepsis"]}
    for n, items in sorted(answers.items()):
        out.append(oneshot(q[n], json.dumps({"response": items}), items, n=n))
    out.append(oneshot(q[18], "", [], error="ThrottlingException: Too many requests", n=18))
    out.append(oneshot(q[19], "[ERROR] ThrottlingException", [],
                       error="[ERROR] ThrottlingException", n=19))
    return out


def agent_questions() -> list[dict[str, Any]]:
    return [
        question("labevents", None, 101, ["Sodium", "Potassium", "Creatinine"]),
        question("labevents", None, 102, ["Glucose"]),
        question("prescriptions", None, 103, ["Aspirin", "Heparin"]),
        question("prescriptions", None, 104, ["Furosemide"]),
        question("transfers", None, 105, ["MICU"]),
        question("transfers", None, 106, ["Medicine", "CCU"]),
    ]


def agent_a(qs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """agent_ehr_bench in the older style: ehr_load_ehr / ehr_finish names, reminders."""
    c = lambda i, args, name="ehr_finish": finish_call(f"call_ag_{i}", args, name)  # noqa: E731
    recs = [
        agentic(qs[0], 1, 1, 1, answer(c(1, dumps_args(["sodium", "Potassium "]))),
                old_style=True),
        agentic(qs[1], 1, 1, 2, answer(c(2, "{'response': 'Glucose'}")), old_style=True),
        agentic(qs[2], 1, 1, 3, answer(c(3, dumps_args(["Aspirin", "Heparin"]))),
                old_style=True, status="incomplete", stop_reason="no_final_answer",
                completed=False),
        agentic(qs[3], 1, 1, 4, text_only(
            "Use ehr.finish with the final answer: Furosemide is the one."), old_style=True,
            status="incomplete", stop_reason="no_final_answer", completed=False),
        agentic(qs[4], 1, 1, 5, answer(c(5, "['MICU', 'SICU',]")), old_style=True),
        agentic(qs[5], 1, 1, 6, [], old_style=True, error="ConnectionResetError"),
    ]
    # a mid-trajectory reminder, as the older runs have
    for rec in recs:
        if rec["messages"]:
            rec["messages"].insert(4, {"role": "user", "content": "Reminder: call ehr_finish."})
    return recs


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


# run directory (logical run_id) -> (benchmark file, records)
def corpus() -> dict[str, tuple[str, list[dict[str, Any]]]]:
    ehr, agent = ehr_questions(), agent_questions()
    return {
        "ehr_bench/agentic/full1800/claude_opus_4_6": ("ehr_bench.json", agentic_a(ehr)),
        "ehr_bench/agentic/full1800/gpt_oss_120b": ("ehr_bench.json", agentic_b(ehr)),
        "ehr_bench/oneshot/full1800/claude_opus_4_6": ("ehr_bench.json", oneshot_a(ehr)),
        "agent_ehr_bench/agentic/subset600/kimi_k2_5": ("agent_ehr_bench.json",
                                                         agent_a(agent)),
    }


# A resumed writer: a failed first attempt of two results, the final row appended later in
# the same file. The authors' load_results counts both lines as runs of the question; the
# warehouse keeps the last copy of a (qid, run_index) (DESIGN.md), so its numbers for this
# file equal the authors' numbers for the same file without the failed attempts.
RESUME_TREE = HERE / "resume_tree"
RESUME_RUN = "ehr_bench/agentic/full1800/claude_opus_4_6"


def resumed_records() -> list[dict[str, Any]]:
    final = agentic_a(ehr_questions())
    early = []
    for rec in (final[0], final[4]):
        attempt = {k: v for k, v in rec.items() if k != "error"}
        attempt.update(messages=[], completed=False, status="error", stop_reason="exception",
                       error="ReadTimeoutError: Read timed out. (read timeout=120)")
        early.append(attempt)
    return [*early, *final]


def main() -> None:
    for directory in (TREE, BENCH, RESUME_TREE):
        if directory.exists():
            shutil.rmtree(directory)
    # A JSON array, not JSONL: the authors' load_benchmark reads a text starting with "[" or
    # "{" as ONE JSON document, so a JSONL benchmark (which starts with "{") fails there.
    BENCH.mkdir(parents=True)
    for name, rows in (("ehr_bench.json", ehr_questions()),
                       ("agent_ehr_bench.json", agent_questions())):
        (BENCH / name).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    for run_id, (_, records) in corpus().items():
        write_jsonl(TREE / run_id / "results.jsonl", records)
    write_jsonl(RESUME_TREE / RESUME_RUN / "results.jsonl", resumed_records())


if __name__ == "__main__":
    main()
