"""The tasks the warehouse knows by name: the group of each text task, the families of the
multimodal tasks, and the paper's task taxonomy (the four layers of the authors'
reorganize_results.py, the renames of its task classifier's labels, the stand-ins for a tree
without a classifier file, the tasks of the AgentEHR table).

One home for these lists: normalize reads the groups of a result's task (results.task_group),
and every build writes them into tables the views read instead of naming tasks
(etl/views.py write_rule_tables): `tasks`, `paper_taxonomy` and `paper_task_names`
(schema/12_scorers.sql). A task not listed is data: a text task without a group keeps the
group its record names, and the paper's tables leave it out as the authors' chain does."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

RISK_PREDICTION = "risk_prediction"
DECISION_MAKING = "decision_making"

# EHR-Bench's tasks: task -> (group, the paper's L3 semantic task). The groups are
# FORMATS.md §4's; the semantic tasks are reorganize_results.py's L3_MAP (temporal and format
# variants of one question merged).
TEXT_TASKS: dict[str, tuple[str, str]] = {
    "ED_Critical_Outcomes": (RISK_PREDICTION, "ED_Critical_Outcomes"),
    "ED_Hospitalization": (RISK_PREDICTION, "ED_Hospitalization"),
    "ED_ICU_Tranfer_12hour": (RISK_PREDICTION, "ED_ICU_Transfer_12h"),
    "ED_Inpatient_Mortality": (RISK_PREDICTION, "Mortality_Hospital"),
    "ED_Reattendance_3day": (RISK_PREDICTION, "ED_Reattendance_3day"),
    "ICU_Mortality_1day": (RISK_PREDICTION, "ICU_Mortality"),
    "ICU_Mortality_2day": (RISK_PREDICTION, "ICU_Mortality"),
    "ICU_Mortality_3day": (RISK_PREDICTION, "ICU_Mortality"),
    "ICU_Mortality_7day": (RISK_PREDICTION, "ICU_Mortality"),
    "ICU_Mortality_14day": (RISK_PREDICTION, "ICU_Mortality"),
    "ICU_Readmission": (RISK_PREDICTION, "ICU_Readmission"),
    "ICU_Stay_7day": (RISK_PREDICTION, "ICU_StayLength"),
    "ICU_Stay_14day": (RISK_PREDICTION, "ICU_StayLength"),
    "Inpatient_Mortality": (RISK_PREDICTION, "Mortality_Hospital"),
    "LengthOfStay_3day": (RISK_PREDICTION, "LengthOfStay"),
    "LengthOfStay_7day": (RISK_PREDICTION, "LengthOfStay"),
    "Readmission_30day": (RISK_PREDICTION, "Readmission_Hospital"),
    "Readmission_60day": (RISK_PREDICTION, "Readmission_Hospital"),
    "diagnoses_ccs": (DECISION_MAKING, "Diagnosis_coding"),
    "diagnoses_icd": (DECISION_MAKING, "Diagnosis_coding"),
    "diagnosis": (DECISION_MAKING, "Diagnosis_coding"),
    "diagnosis_ccs": (DECISION_MAKING, "Diagnosis_coding"),
    "procedures_ccs": (DECISION_MAKING, "Procedure_coding"),
    "procedures_icd": (DECISION_MAKING, "Procedure_coding"),
    "procedureevents": (DECISION_MAKING, "Procedure_coding"),
    "prescriptions": (DECISION_MAKING, "Medication_suggestion"),
    "prescriptions_atc": (DECISION_MAKING, "Medication_suggestion"),
    "medrecon": (DECISION_MAKING, "Medication_suggestion"),
    "medrecon_atc": (DECISION_MAKING, "Medication_suggestion"),
    "emar": (DECISION_MAKING, "Medication_suggestion"),
    "pyxis": (DECISION_MAKING, "Medication_suggestion"),
    "labevents": (DECISION_MAKING, "Lab_Microbiology_orders"),
    "microbiologyevents": (DECISION_MAKING, "Lab_Microbiology_orders"),
    "chartevents": (DECISION_MAKING, "ICU_Events"),
    "datetimeevents": (DECISION_MAKING, "ICU_Events"),
    "inputevents": (DECISION_MAKING, "ICU_Events"),
    "outputevents": (DECISION_MAKING, "ICU_Events"),
    "ingredientevents": (DECISION_MAKING, "ICU_Events"),
    "poe": (DECISION_MAKING, "Provider_Orders"),
    "radiology": (DECISION_MAKING, "Radiology_Orders"),
    "admissions": (DECISION_MAKING, "Transfers_Services_Admissions"),
    "transfers": (DECISION_MAKING, "Transfers_Services_Admissions"),
    "services": (DECISION_MAKING, "Transfers_Services_Admissions"),
    "omr": (DECISION_MAKING, "Outpatient_Records"),
    "next_event": (DECISION_MAKING, "Next_Event"),
}
TEXT_TASK_GROUPS: dict[str, str] = {task: group for task, (group, _) in TEXT_TASKS.items()}

# The families of multimodal tasks: a multimodal task's group is the family its name (or the
# record's task_family / source_benchmark) starts with (ehrxqa_table -> ehrxqa).
MULTIMODAL_FAMILIES = frozenset({"ehrxqa", "medmod"})

# The benchmarks the paper's chain reads, each by its own rules (sql/82_paper.sql).
PAPER_TEXT = "ehr_bench"
PAPER_AGENTEHR = "agent_ehr_bench"
PAPER_MULTIMODAL = "mm_bench"


@dataclass(frozen=True, slots=True)
class PaperTask:
    """One L4 task of the paper's tables: its modality (L1), group (L2) and semantic task
    (L3) of reorganize_results.py; whether the benchmark's overall cell counts it
    (in_overall) and whether the paper prints its own cell (printed)."""

    benchmark: str
    task: str
    l1: str | None
    l2: str | None
    l3: str | None
    in_overall: bool
    printed: bool


# mm_bench fine tasks after the classifier's renames; the six multimodal L4 tasks of the
# multimodal overall (compute_ci TABLE2_L4_COLUMNS, build_report MM_L4_ORDER) are printed.
_MM_TAXONOMY: tuple[tuple[str, str, str, str, bool], ...] = (
    ("ehrxqa_patient_lookup", "text_only", "ehr_query", "ehrxqa_patient_query", False),
    ("ehrxqa_cohort_query", "text_only", "ehr_query", "ehrxqa_cohort_query", False),
    ("cxr_finding_presence", "multimodal", "cxr_vqa", "cxr_vqa_presence", True),
    ("cxr_finding_enumeration", "multimodal", "cxr_vqa", "cxr_vqa_enumeration", True),
    ("cxr_change_comparison", "multimodal", "cxr_vqa", "cxr_vqa_change", True),
    ("mortality_24h", "multimodal", "risk_prediction_mm", "Mortality_mm_short_term", True),
    ("inpatient_mortality_mm", "multimodal", "risk_prediction_mm", "Mortality_mm_full_stay",
     True),
    ("phenotype_ccs", "multimodal", "phenotyping_mm", "Phenotype_ccs_mm", True),
    # without a classifier file: the benchmark tasks the classifier does not map one to one
    ("ehrxqa_image", "multimodal", "cxr_vqa", "ehrxqa_image", True),
    ("ehrxqa_table", "text_only", "ehr_query", "ehrxqa_table", False),
)
# AgentEHR's table 3 (compute_ci_from_per_sample_scores.py): five tasks and their pool
# (prescriptions left out); no taxonomy.
AGENTEHR_TABLE_TASKS = ("diagnoses_ccs", "labevents", "microbiologyevents", "procedures_ccs",
                        "transfers")

PAPER_TASKS: tuple[PaperTask, ...] = (
    # EHR-Bench: every task is text only and counts in the overall; the paper prints its
    # groups and semantic tasks, not its tasks
    *(PaperTask(PAPER_TEXT, task, "text_only", group, semantic, True, False)
      for task, (group, semantic) in TEXT_TASKS.items()),
    *(PaperTask(PAPER_MULTIMODAL, task, l1, l2, l3, six, six)
      for task, l1, l2, l3, six in _MM_TAXONOMY),
    *(PaperTask(PAPER_AGENTEHR, task, None, None, None, True, True)
      for task in AGENTEHR_TABLE_TASKS),
)

# The classifier's labels as the paper's chain renames them (MM_FINE_RENAME) or drops them
# (MM_IGNORE_FINE: None), and the benchmark tasks that stand in for fine tasks when no
# classifier file is loaded (medmod tasks map one to one as the classifier maps them).
MM_CLASSIFIER_RENAMES: dict[str, str | None] = {
    "Inpatient_Mortality": "inpatient_mortality_mm",
    "phenotype_group_assignment": "phenotype_ccs",
    "prescriptions": None,
    "other": None,
}
MM_COARSE_STAND_INS: dict[str, str] = {
    "medmod_decompensation": "mortality_24h",
    "medmod_in_hospital_mortality": "inpatient_mortality_mm",
    "medmod_phenotyping": "phenotype_ccs",
    "medmod_radiology": "cxr_finding_enumeration",
}


def multimodal_family(value: str | None) -> str | None:
    """The multimodal family a task name (or task_family, source_benchmark) starts with."""
    if not value:
        return None
    prefix = value.strip().lower().split("_", 1)[0]
    return prefix if prefix in MULTIMODAL_FAMILIES else None


def task_group(task: str | None, task_type: str | None = None, task_family: str | None = None,
               source_benchmark: str | None = None) -> str | None:
    """risk_prediction / decision_making for text tasks (task_type first, else the task
    lists above); the family (ehrxqa, medmod, ...) for multimodal ones; else what the record
    names (an unknown family is data)."""
    if task_type:
        return task_type
    if task in TEXT_TASK_GROUPS:
        return TEXT_TASK_GROUPS[task]
    for candidate in (task_family, source_benchmark, task):
        family = multimodal_family(candidate)
        if family is not None:
            return family
    return source_benchmark or task_family or None


def task_rows() -> list[dict[str, Any]]:
    """Rows of table tasks (schema/12_scorers.sql)."""
    return [{"task": task, "task_group": group} for task, group in TEXT_TASK_GROUPS.items()]


def paper_taxonomy_rows() -> list[dict[str, Any]]:
    """Rows of table paper_taxonomy (schema/12_scorers.sql)."""
    return [{"benchmark": t.benchmark, "fine_task": t.task, "l1": t.l1, "l2": t.l2,
             "l3": t.l3, "in_overall": t.in_overall, "printed": t.printed,
             "in_mm_overall": t.benchmark == PAPER_MULTIMODAL and t.in_overall}
            for t in PAPER_TASKS]


def paper_task_name_rows() -> list[dict[str, Any]]:
    """Rows of table paper_task_names (schema/12_scorers.sql)."""
    return ([{"benchmark": PAPER_MULTIMODAL, "written": label, "fine_task": fine,
              "source": "classifier"} for label, fine in MM_CLASSIFIER_RENAMES.items()]
            + [{"benchmark": PAPER_MULTIMODAL, "written": task, "fine_task": fine,
                "source": "coarse_task"} for task, fine in MM_COARSE_STAND_INS.items()])
