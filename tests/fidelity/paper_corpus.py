"""The paper-table fidelity corpus: a results tree assembled from writer-shaped records, on
which the authors' analysis chain (reorganize_results.py -> compute_ci_from_per_sample_scores
.py -> build_report.py) wrote tests/fidelity/paper/golden/ (tests/fidelity/regen_paper.py).

    assemble(tree)   writes the tree (tests/scoring/test_fidelity_paper.py ingests it)

It reuses the text corpus records (make_corpus.py) and the multimodal corpus (mm/tree, whose
scored files the authors' scorer wrote), and adds what the chain reads on top:
- ehr_bench: the resumed claude_opus_4_6 agentic file (failed attempts and retries of the same
  question in one file: every line is a row of the paper, only the last of a qid a sample of
  its intervals), gpt_oss_120b with three runs per question, one-shot runs of both, and
  kimi_k2_5 runs of records where the paper's rule differs from the authors' scorer (atc_name
  gold, value gold, objects without a name, non-string items, a finish call whose response is
  an object, unparsable arguments, padded answers);
- agent_ehr_bench: the six AgentEHR tasks, several lines per question, a line without a task;
- mm_bench: a scored-only one-shot run of claude_opus_4_6 holding rescored.jsonl only (the
  chain's fallback), and two classifier files (the later name wins) that split ehrxqa_image
  into the CXR tasks, map medmod_radiology to cxr_finding_enumeration, drop one question
  (label other) and leave one question unclassified.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from make_corpus import (
    agent_questions,
    agentic,
    agentic_b,
    answer,
    dumps_args,
    ehr_questions,
    finish_call,
    oneshot,
    oneshot_a,
    question,
    resumed_records,
    text_only,
    write_jsonl,
)

HERE = Path(__file__).resolve().parent
MM_TREE = HERE / "mm" / "tree"
CLASSIFY_DIR = "mm_bench_classify"
GOLDEN = HERE / "paper" / "golden"


def paper_cases() -> list[dict[str, Any]]:
    """kimi_k2_5 agentic: one record per rule where reorganize_results.py reads a record
    otherwise than score_text.py."""
    qs = [
        question("prescriptions_atc", "decision_making", 201, [
            {"name": "Aspirin", "atc_name": "Antithrombotic agents"},
            {"name": "Heparin", "atc_name": "Antithrombotic agents"}]),
        question("medrecon", "decision_making", 202, [{"value": "Metoprolol"},
                                                      {"name": "", "value": "Furosemide"}]),
        question("labevents", "decision_making", 203, [{"code": 50912}, {"name": "Sodium"}]),
        question("diagnoses_icd", "decision_making", 204, ["Sepsis", 42]),
        question("transfers", "decision_making", 205, ["MICU"]),
        question("services", "decision_making", 206, ["MED"]),
        question("omr", "decision_making", 207, "  Weight  "),
        question("Inpatient_Mortality", "risk_prediction", 208, "Yes"),
        question("ICU_Mortality_1day", "risk_prediction", 209, "No"),
        question("ED_Hospitalization", "risk_prediction", 210, "Yes"),
    ]
    c = lambda i, args, name="ehr.finish": finish_call(f"call_p_{i}", args, name)  # noqa: E731
    return [
        # atc gold: the paper matches names, score_text.py the atc names
        agentic(qs[0], 1, 1, 1, answer(c(1, dumps_args(["Aspirin", "Heparin"])))),
        # value gold and a blank name falling through to value
        agentic(qs[1], 1, 1, 2, answer(c(2, dumps_args(["metoprolol", "Furosemide "])))),
        # an object without name/value/text/answer is its JSON text
        agentic(qs[2], 1, 1, 3, answer(c(3, dumps_args(['{"code": 50912}', "Sodium"])))),
        # non-string gold and prediction items are str()-ed
        agentic(qs[3], 1, 1, 4, answer(c(4, dumps_args(["Sepsis", 42, None])))),
        # the last finish call's response is an object: the earlier finish call decides
        agentic(qs[4], 1, 1, 5, [*answer(c(5, dumps_args(["MICU"]))),
                                 *answer(finish_call("call_p_5b",
                                                     dumps_args({"unit": "MICU"})))]),
        # unparsable arguments: the paper scores the argument text itself
        agentic(qs[5], 1, 1, 6, answer(c(6, 'MED'))),
        # a padded string gold, a padded list answer
        agentic(qs[6], 1, 1, 7, answer(c(7, dumps_args(["  weight "])))),
        agentic(qs[7], 1, 1, 8, answer(c(8, dumps_args(" Yes ")))),
        # no finish call at all
        agentic(qs[8], 1, 1, 9, text_only("Final answer: No"), status="incomplete",
                stop_reason="no_final_answer", completed=False),
        agentic(qs[9], 1, 1, 10, answer(c(10, dumps_args(["Yes"]), "functions.finish"))),
    ]


def paper_oneshot(qs: list[dict[str, Any]], answers: dict[int, list[Any]]) -> list[dict]:
    return [oneshot(qs[n - 1], json.dumps({"response": items}), items, n=n)
            for n, items in sorted(answers.items())]


def agent_runs() -> list[dict[str, Any]]:
    """AgentEHR (kimi_k2_5): the six tasks, two lines for some questions, one line without a
    task (table 3 skips it)."""
    base = agent_questions()
    extra = [
        question("diagnoses_ccs", None, 107, [{"name": "Septicemia", "atc_name": "x"},
                                              {"name": "Pneumonia"}]),
        question("diagnoses_ccs", None, 108, [{"name": "Shock"}]),
        question("microbiologyevents", None, 109, ["Blood culture"]),
        question("procedures_ccs", None, 110, [{"name": "Intubation"}, {"no_name": 1}]),
        question("procedures_ccs", None, 111, "Dialysis"),
        question("microbiologyevents", None, 112, ["Urine culture", "Blood culture"]),
    ]
    qs = base + extra
    c = lambda i, args: finish_call(f"call_ae_{i}", args, "ehr_finish")  # noqa: E731
    plans: list[tuple[int, int, Any]] = [
        (0, 1, ["sodium", "Potassium "]), (1, 1, "{'response': 'Glucose'}"),
        (2, 1, ["Aspirin", "Heparin"]), (4, 1, "['MICU', 'SICU',]"),
        (5, 1, None), (6, 1, ["Septicemia", "x"]), (6, 2, ["Pneumonia"]),
        (7, 1, ["shock"]), (7, 2, "broken"), (8, 1, ["Blood culture"]),
        (9, 1, ["Intubation"]), (10, 1, " Dialysis "), (10, 2, ["Dialysis"]),
        (11, 1, ["Urine culture"]), (3, 1, ["Furosemide"]),
    ]
    recs = []
    for q_index, (i, run_index, item) in enumerate(plans, start=1):
        q = qs[i]
        if item is None:
            rec = agentic(q, run_index, 2, q_index, [], old_style=True,
                          error="ConnectionResetError")
        elif item == "broken":
            rec = agentic(q, run_index, 2, q_index, answer(c(q_index, '{"response": ["Shock"')),
                          old_style=True)
        elif isinstance(item, str) and item.startswith(("{", "[")):
            rec = agentic(q, run_index, 2, q_index, answer(c(q_index, item)), old_style=True)
        else:
            rec = agentic(q, run_index, 2, q_index, answer(c(q_index, dumps_args(item))),
                          old_style=True)
        recs.append(rec)
    untasked = dict(recs[0])
    untasked.pop("task")
    untasked["qid"] = "untasked_1"
    recs.append(untasked)
    return recs


def classifier_rows(qids: list[tuple[str, str]], later: bool) -> list[dict[str, Any]]:
    """Rows shaped as analysis/mm_bench_classify/classification_*.jsonl."""
    image_tasks = ["cxr_finding_presence", "cxr_finding_enumeration", "cxr_change_comparison"]
    coarse_map = {"medmod_decompensation": "mortality_24h",
                  "medmod_in_hospital_mortality": "Inpatient_Mortality",
                  "medmod_phenotyping": "phenotype_group_assignment",
                  "medmod_radiology": "cxr_finding_enumeration"}
    rows = []
    image_seen = table_seen = 0
    for qid, coarse in qids:
        if later and qid == "mm_q25":
            continue  # not classified: the chain drops it
        if coarse == "ehrxqa_image":
            task = image_tasks[image_seen % 3] if later else "cxr_finding_presence"
            image_seen += 1
        elif coarse == "ehrxqa_table":
            task = ["ehrxqa_patient_lookup", "ehrxqa_cohort_query", "other"][table_seen % 3]
            table_seen += 1
        else:
            task = coarse_map[coarse]
        cls = {"task": task, "is_multimodal": coarse != "ehrxqa_table",
               "multimodal_kind": "none" if coarse == "ehrxqa_table" else "cxr_image",
               "confidence": "high", "reason": "stand-in label"}
        row = {"qid": qid, "coarse_task": coarse, "source_benchmark": coarse.split("_")[0],
               "scope": "patient_scope", "_status": "ok",
               "raw_response": f"<classification>{json.dumps(cls)}</classification>"}
        if later and qid == "mm_q03":
            row["classification_fallback"] = cls  # parse failure: the fallback is read
        else:
            row["classification"] = cls
        rows.append(row)
    return rows


def assemble(tree: Path) -> None:
    """Write the corpus tree at tree (replaced if it exists)."""
    if tree.exists():
        shutil.rmtree(tree)
    ehr = ehr_questions()
    kimi_qs = [question(r["task"], r.get("task_type"), 200 + i, r["label"])
               for i, r in enumerate(paper_cases(), start=1)]
    runs = {
        "ehr_bench/agentic/full1800/claude_opus_4_6": resumed_records(),
        "ehr_bench/agentic/full1800/gpt_oss_120b": agentic_b(ehr),
        "ehr_bench/agentic/full1800/kimi_k2_5": paper_cases(),
        "ehr_bench/oneshot/full1800/claude_opus_4_6": oneshot_a(ehr),
        "ehr_bench/oneshot/full1800/gpt_oss_120b": paper_oneshot(ehr, {
            1: ["Yes"], 5: ["aspirin"], 6: ["Metoprolol ", "Furosemide"], 9: ["Aspirin"],
            13: ["Sodium", "Potassium"], 15: ["Sepsis"], 17: ["micu"]}),
        "ehr_bench/oneshot/full1800/kimi_k2_5": paper_oneshot(kimi_qs, {
            1: ["Antithrombotic agents"], 2: ["Metoprolol"], 4: ["Sepsis", "42"], 5: ["MICU"],
            7: ["Weight"], 8: ["No"], 9: ["No"]}),
        "agent_ehr_bench/agentic/subset600/kimi_k2_5": agent_runs(),
    }
    for run_id, records in runs.items():
        write_jsonl(tree / run_id / "results.jsonl", records)
    shutil.copytree(MM_TREE / "mm_bench", tree / "mm_bench")
    scored_only = tree / "mm_bench/oneshot/scored/claude_opus_4_6"
    scored_only.mkdir(parents=True)
    shutil.copy(MM_TREE / "mm_bench/oneshot/scored/kimi_k2_5/scored.jsonl",
                scored_only / "rescored.jsonl")
    qids: dict[str, str] = {}
    for line in (MM_TREE / "mm_bench/agentic/scored/claude_opus_4_6/scored.jsonl").open():
        row = json.loads(line)
        qids.setdefault(row["qid"], row["task"])
    ordered = sorted(qids.items())
    for name, later in (("classification_20260101T000000Z.jsonl", False),
                        ("classification_20260430T222057Z.jsonl", True)):
        write_jsonl(tree / CLASSIFY_DIR / name, classifier_rows(ordered, later))
