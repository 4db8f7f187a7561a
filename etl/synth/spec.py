"""What the synthetic tree contains: models, tasks, per-model quality and scale sizes.

Quality numbers come from the paper's published scores (the ClinSeek-Bench dataset card,
arXiv 2605.20176 v2; here as fractions, not percent) so that a synthetic leaderboard has
the paper's model order and agentic-vs-oneshot delta signs."""

from __future__ import annotations

from dataclasses import dataclass

STAMP = "20260421T091517Z"  # the raw multi-model run stamp of the dataset README
REGIONS = ("us-east-1", "us-west-2", "eu-central-1")

BACKEND_IDS: dict[str, str] = {
    "claude_opus_4_6": "us.anthropic.claude-opus-4-6-v1",
    "claude_sonnet_4_6": "us.anthropic.claude-sonnet-4-6-v1",
    "kimi_k2_5": "moonshotai.kimi-k2.5",
    "qwen3_vl_235b": "qwen.qwen3-vl-235b-a22b",
    "qwen3_235b": "qwen.qwen3-235b-a22b-2507-v1:0",
    "glm_4_7": "zai.glm-4.7",
    "minimax_m2_5": "minimax.minimax-m2.5",
    "gpt_oss_120b": "openai.gpt-oss-120b-1:0",
}
ANTHROPIC = {"claude_opus_4_6", "claude_sonnet_4_6"}


def backend_id(model: str, region: str) -> str:
    """The Bedrock id a run in region uses: Anthropic models go through the cross-region
    inference profile of the region's geography (clinseekagent/
    bedrock_region_availability.json: us.anthropic.claude-opus-4-6-v1 in us-*,
    eu.anthropic.claude-opus-4-6-v1 in eu-*); other models have one id everywhere."""
    model_id = BACKEND_IDS[model]
    if model in ANTHROPIC and region.startswith("eu-"):
        return "eu." + model_id.split(".", 1)[1]
    return model_id
# friendly names (the catalog keys run_multi_model_eval.py --models takes), FORMATS.md
DISPLAY: dict[str, str] = {
    "claude_opus_4_6": "Claude Opus 4.6", "claude_sonnet_4_6": "Claude Sonnet 4.6",
    "qwen3_vl_235b": "Qwen3-VL-235B", "qwen3_235b": "Qwen3-235B", "kimi_k2_5": "Kimi K2.5",
    "glm_4_7": "GLM-4.7", "minimax_m2_5": "MiniMax M2.5", "gpt_oss_120b": "gpt-oss-120b",
}


def slug(model: str) -> str:
    """Raw multi-run directory names use dashes: claude-sonnet-4-6 (run_multi_model_eval.py
    _slugify of the friendly name; equal to the key with dashes for every model here)."""
    return model.replace("_", "-")


RISK_TASKS = (
    "ED_Critical_Outcomes", "ED_Hospitalization", "ED_ICU_Tranfer_12hour",
    "ED_Inpatient_Mortality", "ED_Reattendance_3day", "ICU_Mortality_1day",
    "ICU_Mortality_2day", "ICU_Mortality_3day", "ICU_Mortality_7day", "ICU_Mortality_14day",
    "ICU_Readmission", "ICU_Stay_7day", "ICU_Stay_14day", "Inpatient_Mortality",
    "LengthOfStay_3day", "LengthOfStay_7day", "Readmission_30day", "Readmission_60day",
)
DECISION_TASKS = (
    "admissions", "chartevents", "datetimeevents", "diagnoses_ccs", "diagnoses_icd",
    "diagnosis", "diagnosis_ccs", "emar", "ingredientevents", "inputevents", "labevents",
    "medrecon", "medrecon_atc", "microbiologyevents", "next_event", "omr", "outputevents",
    "poe", "prescriptions", "prescriptions_atc", "procedureevents", "procedures_ccs",
    "procedures_icd", "pyxis", "radiology", "services", "transfers",
)
AGENT_EHR_TASKS = (
    "diagnoses_ccs", "labevents", "microbiologyevents", "prescriptions", "procedures_ccs",
    "transfers",
)
MM_TASKS = (
    "ehrxqa_table", "ehrxqa_image", "medmod_decompensation", "medmod_in_hospital_mortality",
    "medmod_radiology", "medmod_phenotyping",
)
# ehrxqa_image is scored per CXR sub-task (the paper's columns); other tasks have one family.
CXR_FAMILIES = ("cxr_finding_presence", "cxr_finding_enumeration", "cxr_change_comparison")
MM_FAMILY = {
    "ehrxqa_table": "ehr_table_qa",
    "medmod_decompensation": "mortality_24h",
    "medmod_in_hospital_mortality": "inpatient_mortality",
    "medmod_radiology": "radiology_findings",
    "medmod_phenotyping": "phenotype_ccs",
}

# (risk agentic, risk oneshot, decision agentic, decision oneshot), the paper's scores
TEXT_QUALITY: dict[str, tuple[float, float, float, float]] = {
    "claude_opus_4_6": (0.907, 0.810, 0.448, 0.459),
    "claude_sonnet_4_6": (0.900, 0.775, 0.359, 0.426),
    "glm_4_7": (0.751, 0.704, 0.231, 0.386),
    "minimax_m2_5": (0.867, 0.684, 0.210, 0.263),
    "kimi_k2_5": (0.650, 0.799, 0.198, 0.288),
    "qwen3_vl_235b": (0.679, 0.710, 0.191, 0.334),
    "gpt_oss_120b": (0.754, 0.740, 0.166, 0.223),
    "qwen3_235b": (0.660, 0.700, 0.180, 0.300),  # not in the paper: archive-only model
}
# presence, enumeration, change, mortality 24h, inpatient mortality, phenotype, overall
_MM_COLS = ("cxr_finding_presence", "cxr_finding_enumeration", "cxr_change_comparison",
            "mortality_24h", "inpatient_mortality", "phenotype_ccs", "overall")
_MM_ROWS: dict[tuple[str, str], tuple[float, ...]] = {
    ("claude_opus_4_6", "agentic"): (78.3, 43.6, 54.8, 92.0, 74.4, 45.5, 62.6),
    ("claude_opus_4_6", "oneshot"): (55.2, 31.6, 38.0, 93.6, 69.6, 11.5, 47.5),
    ("claude_sonnet_4_6", "agentic"): (79.5, 41.3, 51.5, 64.0, 68.8, 26.1, 54.9),
    ("claude_sonnet_4_6", "oneshot"): (64.8, 29.7, 34.7, 90.4, 70.4, 13.8, 48.0),
    ("kimi_k2_5", "agentic"): (61.4, 34.9, 43.8, 71.2, 62.4, 12.3, 46.9),
    ("kimi_k2_5", "oneshot"): (56.3, 24.7, 35.0, 91.2, 87.2, 12.4, 47.5),
    ("qwen3_vl_235b", "agentic"): (70.4, 35.7, 47.8, 79.2, 61.6, 6.0, 49.8),
    ("qwen3_vl_235b", "oneshot"): (60.3, 21.1, 32.8, 87.2, 72.8, 6.6, 43.9),
    # not in the paper (extra models of the raw five-model run): plausible, lower
    ("glm_4_7", "agentic"): (60.0, 30.0, 40.0, 70.0, 60.0, 10.0, 44.0),
    ("gpt_oss_120b", "agentic"): (55.0, 28.0, 38.0, 68.0, 58.0, 8.0, 41.0),
    # a scored-only one-shot run (as analysis/ingest_external_results.py stages external
    # models): plausible, lower
    ("glm_4_7", "oneshot"): (50.0, 22.0, 30.0, 85.0, 65.0, 7.0, 40.0),
}


def text_quality(model: str, mode: str, group: str) -> float:
    risk_ag, risk_os, dec_ag, dec_os = TEXT_QUALITY[model]
    if group == "risk_prediction":
        return risk_ag if mode == "agentic" else risk_os
    return dec_ag if mode == "agentic" else dec_os


def mm_quality(model: str, mode: str, family: str) -> float:
    row = dict(zip(_MM_COLS, _MM_ROWS[(model, mode)], strict=True))
    return row.get(family, row["overall"]) / 100.0


TEXT_MODELS = ("claude_opus_4_6", "claude_sonnet_4_6", "glm_4_7", "minimax_m2_5", "kimi_k2_5",
               "qwen3_vl_235b", "gpt_oss_120b")
AGENT_EHR_MODELS = ("claude_opus_4_6", "claude_sonnet_4_6", "kimi_k2_5", "gpt_oss_120b")
# agent_ehr_bench runs that predate the dotted tool names (ehr_load_ehr + user reminders)
OLD_STYLE_AGENT_EHR = {"kimi_k2_5", "gpt_oss_120b"}
MM_MODELS = ("claude_opus_4_6", "claude_sonnet_4_6", "kimi_k2_5", "qwen3_vl_235b")
MM_RAW_MODELS = ("claude_sonnet_4_6", "glm_4_7", "gpt_oss_120b", "kimi_k2_5", "qwen3_vl_235b")
SMOKE_MODELS = {"agentic": ("claude_opus_4_6", "gpt_oss_120b"),
                "oneshot": ("claude_opus_4_6", "kimi_k2_5")}
# one-shot runs written by the newer curated runner: region shards + region_map.json
MM_ONESHOT_SHARDED = {"claude_opus_4_6", "kimi_k2_5"}
MULTI_REGION_ONESHOT = {"claude_opus_4_6", "glm_4_7", "kimi_k2_5"}


@dataclass(frozen=True, slots=True)
class Scale:
    name: str
    ehr_per_task: int
    agent_per_task: int
    mm_counts: tuple[int, ...]  # questions per MM task, in MM_TASKS order
    big: bool  # realistic line sizes (bench)


def mm_split(total: int) -> tuple[int, ...]:
    base, extra = divmod(total, len(MM_TASKS))
    return tuple(base + (1 if i < extra else 0) for i in range(len(MM_TASKS)))


@dataclass(frozen=True, slots=True)
class TrajectoryShape:
    """How an agentic trajectory spends its payload (the characters of tool results a plan
    draws): steps = max(2, min(max_steps, payload // chars_per_step + 1..4)), each tool
    result payload // steps characters (at most max_tool_chars), each reasoning text
    80 + min(tool result // 50, reasoning_cap). payload_scale multiplies the byte budget's
    payload means, so that a shape whose messages carry more overhead per character of
    payload still comes out near --bench-gb. The bench measures the ingest on more than one
    shape, since what costs time and space differs with it (per-message work and small
    strings against long strings, copies of results, repeated text).

    Beyond the trajectories, a shape may change how the text runs are written:
    - copies: each current text run is also written the way a sharded, work-stealing
      writer leaves it beside its results.jsonl (merged_unique.jsonl, region shards, a
      steal file and its copy), so most results exist three or four times;
    - shared_timelines: a one-shot record carries the benchmark row's rendered `question`
      (task, patient timeline three times, candidates), and the user message is that
      question plus the runner's answer trailer (clinseekagent/run_text_curated.py): the
      timeline is the question's, the same for every model, written as repetitive EHR
      event lines;
    - oneshot_scale multiplies the one-shot timeline's mean length."""

    name: str
    chars_per_step: int
    max_steps: int
    max_tool_chars: int
    reasoning_cap: int
    payload_scale: float
    copies: bool = False
    shared_timelines: bool = False
    oneshot_scale: float = 1.0


TRAJECTORY_SHAPES: dict[str, TrajectoryShape] = {
    # the tree every seed has always produced: a step per 30k characters, up to 200 steps
    "default": TrajectoryShape("default", 30_000, 200, 100_000, 2_000, 1.0),
    # two tool calls per trajectory, each result half the payload, up to a megabyte
    "long-tools": TrajectoryShape("long-tools", 2_000_000, 2, 1_000_000, 2_000, 1.0),
    # a step per 400 characters (up to 500 steps): many short messages
    "many-short": TrajectoryShape("many-short", 400, 500, 100_000, 2_000, 0.30),
    # default trajectories; every text result in three or four files; long one-shot
    # timelines, the same for every model of a question (payloads scaled so that the tree
    # stays near --bench-gb)
    "many-copies": TrajectoryShape("many-copies", 30_000, 200, 100_000, 2_000, 0.25,
                                   copies=True, shared_timelines=True, oneshot_scale=0.45),
}


SCALES: dict[str, Scale] = {
    "demo": Scale("demo", 2, 3, (4, 4, 4, 4, 4, 4), False),
    "full": Scale("full", 40, 100, mm_split(2703), False),
    "bench": Scale("bench", 40, 100, mm_split(2703), True),
}
