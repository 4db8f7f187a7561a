"""Deterministic building blocks: random streams, the question banks, answer vocabularies,
filler text and JPEG-like base64 images.

Randomness: every stream is ``random.Random(f"{seed}|{key}")`` (string seeds are hashed with
SHA-512 by the stdlib, never with Python's salted hash()), so a tree depends only on seed and
scale."""

from __future__ import annotations

import base64
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from etl.synth import spec


def stream(seed: int, *key: object) -> random.Random:
    return random.Random("|".join([str(seed), *map(str, key)]))


TERMS = (
    "Sepsis", "Acute kidney failure", "Congestive heart failure", "Pneumonia",
    "Atrial fibrillation", "Hypertension", "Type 2 diabetes mellitus", "Hyperlipidemia",
    "Chronic obstructive pulmonary disease", "Urinary tract infection", "Anemia",
    "Hyponatremia", "Hypokalemia", "Acute respiratory failure", "Coronary atherosclerosis",
    "Cardiac arrest", "Delirium", "Gastrointestinal hemorrhage", "Pulmonary embolism",
    "Cellulitis", "Alcohol withdrawal", "Cirrhosis of liver", "Pleural effusion",
    "Respiratory distress", "Shock", "Encephalopathy", "Thrombocytopenia", "Obesity",
    "Depression", "Osteoarthritis",
    "肺炎 (pneumonia, 中文 note)", "Fever 🤒 unspecified", "Line\u2028separator term",
)
DRUGS = (
    ("Amoxicillin", "J01CA04 amoxicillin"), ("Heparin", "B01AB01 heparin"),
    ("Furosemide", "C03CA01 furosemide"), ("Metoprolol", "C07AB02 metoprolol"),
    ("Insulin glargine", "A10AE04 insulin glargine"), ("Vancomycin", "J01XA01 vancomycin"),
    ("Pantoprazole", "A02BC02 pantoprazole"), ("Acetaminophen", "N02BE01 paracetamol"),
    ("Atorvastatin", "C10AA05 atorvastatin"), ("Ceftriaxone", "J01DD04 ceftriaxone"),
    ("Lisinopril", "C09AA03 lisinopril"), ("Ondansetron", "A04AA01 ondansetron"),
)
CXR_FINDINGS = ("atelectasis", "pleural effusion", "cardiomegaly", "edema", "consolidation",
                "pneumothorax", "lung opacity", "fracture", "support devices")
CCS_PHENOTYPES = ("Acute cerebrovascular disease", "Acute myocardial infarction",
                  "Cardiac dysrhythmias", "Chronic kidney disease", "Diabetes mellitus",
                  "Essential hypertension", "Fluid and electrolyte disorders",
                  "Septicemia (except in labor)", "Shock", "Pneumonia")
WORDS = ("patient", "admitted", "with", "labs", "showed", "elevated", "creatinine", "mg/dL",
         "heart", "rate", "bpm", "blood", "pressure", "mmHg", "noted", "on", "day", "chart",
         "event", "value", "unit", "stable", "improved", "worsened", "given", "dose", "IV",
         "oral", "culture", "negative", "positive", "ICU", "transfer", "ED", "discharge")


@dataclass(slots=True)
class Question:
    """One benchmark question, shared by every model and mode that runs it."""

    qid: str
    task: str
    group: str  # risk_prediction / decision_making, or the multimodal task family
    label: Any  # as records carry it
    gold: list[str]  # display strings of the gold items, by the authors' rules (score_text.py)
    wrong: list[str]  # plausible wrong answers, never equal to a gold item
    inputs: dict[str, Any] = field(default_factory=dict)  # input-row fields, in order


# share of *_atc questions whose label has one object without atc_name
ATC_PARTIAL_RATE = 0.1


def gold_names(label: Any) -> list[str]:
    """The DESIGN.md reduction of a label to gold strings."""
    if label is None:
        return []
    if isinstance(label, str):
        return [label]
    if isinstance(label, list):
        if any(isinstance(x, dict) and "atc_name" in x for x in label):
            return [str(x.get("atc_name")) for x in label if isinstance(x, dict)]
        return [str(x["name"]) if isinstance(x, dict) else str(x) for x in label]
    return [str(label)]


def _ptime(rng: random.Random) -> str:
    return (f"21{rng.randint(10, 99)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} "
            f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00")


def text_questions(seed: int, per_task: int, tasks: tuple[str, ...], bench: str) -> list[Question]:
    out: list[Question] = []
    for task in tasks:
        rng = stream(seed, bench, "q", task)
        partial_atc = stream(seed, bench, "atc_partial", task)  # its own stream: see below
        risk = task in spec.RISK_TASKS
        for i in range(per_task):
            subject_id = 10000000 + rng.randrange(9999999)
            hadm_id: int | None = 20000000 + rng.randrange(9999999)
            if not risk and i % 7 == 3:
                hadm_id = None  # decision questions anchored on a patient, not a stay
            qid = f"{task}_{subject_id}" + (f"_{hadm_id}" if hadm_id is not None else "")
            if risk:
                yes = rng.random() < 0.4
                label: Any = "Yes" if yes else "No"
                gold, wrong = [label], ["No" if yes else "Yes"]
                candidates: list[Any] = ["Yes", "No"]
            elif task.endswith("_atc"):
                picks = rng.sample(DRUGS, 2 * rng.randint(1, 2))
                label = [{"name": n, "atc_name": a} for n, a in picks]
                gold = [a for _, a in picks]
                if partial_atc.random() < ATC_PARTIAL_RATE:
                    # an object without atc_name: the authors' scorer takes atc_name from
                    # every object once any has one, so this object adds nothing to the gold
                    label[-1] = {"name": picks[-1][0]}
                    gold = gold[:-1]
                wrong = [a for n, a in DRUGS if (n, a) not in picks]
                candidates = [a for _, a in DRUGS]
            else:
                picks = rng.sample(TERMS, 2 * rng.randint(1, 3))
                label = ([{"name": t} for t in picks] if task == "medrecon" else list(picks))
                gold = list(picks)
                wrong = [t for t in TERMS if t not in picks]
                candidates = list(TERMS)
            inputs: dict[str, Any] = {
                "qid": qid, "task": task,
                "task_type": "risk_prediction" if risk else "decision_making",
                "subject_id": subject_id, "hadm_id": hadm_id,
                "prediction_time": _ptime(rng), "label": label, "candidates": candidates,
            }
            if task.startswith("ICU"):
                inputs["stay_id"] = 30000000 + rng.randrange(9999999)
            out.append(Question(qid, task, inputs["task_type"], label, gold, wrong, inputs))
    return out


def mm_questions(seed: int, counts: tuple[int, ...]) -> list[Question]:
    out: list[Question] = []
    for task, n in zip(spec.MM_TASKS, counts, strict=True):
        rng = stream(seed, "mm", "q", task)
        source = "ehrxqa" if task.startswith("ehrxqa") else "medmod"
        for i in range(n):
            family = (spec.CXR_FAMILIES[i % 3] if task == "ehrxqa_image"
                      else spec.MM_FAMILY[task])
            subject: Any = 10000000 + rng.randrange(9999999)
            if source == "medmod" and i % 5 == 2:
                subject = str(subject)  # medmod rows sometimes carry the id as a string
            hadm = None if source == "ehrxqa" else 20000000 + rng.randrange(9999999)
            if family in ("cxr_finding_presence", "mortality_24h", "inpatient_mortality"):
                yes = rng.random() < 0.35
                value = 1 if yes else 0
                label: list[dict[str, Any]] = [{"name": "yes" if yes else "no", "value": value}]
                gold, wrong = [label[0]["name"]], ["no" if yes else "yes"]
            elif family == "cxr_change_comparison":
                pick = rng.choice(("improved", "worsened", "stable"))
                label = [{"name": pick}]
                gold = [pick]
                wrong = [x for x in ("improved", "worsened", "stable") if x != pick]
            else:
                vocab = CCS_PHENOTYPES if family == "phenotype_ccs" else CXR_FINDINGS
                picks = rng.sample(vocab, 2 * rng.randint(1, 2))
                label = [{"name": p} for p in picks]
                gold = list(picks)
                wrong = [v for v in vocab if v not in picks]
            qid = f"{task}_{i:05d}_{rng.randrange(16**6):06x}"
            n_images = 0 if task in ("ehrxqa_table", "medmod_phenotyping") else rng.randint(1, 4)
            inputs: dict[str, Any] = {
                "qid": qid, "task": task, "task_family": family,
                "scope": "image" if n_images else "ehr",
                "source_benchmark": source, "subject_id": subject, "hadm_id": hadm,
                "prediction_time": _ptime(rng), "label": label,
                "question": f"[{family}] Based on the patient's record, answer question {i}.",
                "multimodal_summary": {"num_images": n_images,
                                       "num_reports": rng.randint(0, 2),
                                       "num_ehr_events": rng.randint(5, 300)},
            }
            if source == "ehrxqa":
                inputs["study_id"] = 50000000 + rng.randrange(9999999)
            out.append(Question(qid, task, family, label, gold, wrong, inputs))
    return out


class Filler:
    """Pre-built text blocks so big payloads cost a slice, not per-character Python work."""

    def __init__(self, seed: int) -> None:
        rng = stream(seed, "filler")
        words = [rng.choice(WORDS) for _ in range(60000)]
        base = " ".join(words)
        # a little unicode everywhere payloads go: CJK, emoji, U+2028 inside strings
        self.text = (base[:1000] + " 中文记录 ✓ 🩺 \u2028 " + base[1000:]) * 4
        self.n = len(self.text)

    def take(self, rng: random.Random, chars: int) -> str:
        chars = max(1, min(chars, self.n - 1))
        start = rng.randrange(self.n - chars)
        return self.text[start:start + chars]


# What a patient timeline of a one-shot prompt is made of (Timelines): EHR event lines of a
# few tables, their items and units.
TIMELINE_EVENTS = (
    ("labevents", "Creatinine", "mg/dL"), ("labevents", "Potassium", "mEq/L"),
    ("labevents", "Hemoglobin", "g/dL"), ("labevents", "White Blood Cells", "K/uL"),
    ("labevents", "Lactate", "mmol/L"), ("chartevents", "Heart Rate", "bpm"),
    ("chartevents", "Non Invasive Blood Pressure systolic", "mmHg"),
    ("chartevents", "O2 saturation pulseoxymetry", "%"), ("chartevents", "Temperature", "°F"),
    ("inputevents", "NaCl 0.9%", "mL"), ("prescriptions", "Heparin", "UNIT"),
    ("microbiologyevents", "BLOOD CULTURE", "NEGATIVE"), ("transfers", "ICU 集中治疗", ""),
)


class Timelines:
    """The patient timeline of each question, for shapes with shared timelines
    (spec.TrajectoryShape.shared_timelines): repetitive EHR event lines drawn from the
    question's own stream, its length from Sizes.draw around `mean`, built once per question
    and the same for every model and every copy that answers it."""

    def __init__(self, seed: int, mean: int, draw: Callable[[random.Random, int], int]) -> None:
        self.seed = seed
        self.mean = mean
        self.draw = draw
        self.built: dict[str, str] = {}

    def of(self, qid: str) -> str:
        text = self.built.get(qid)
        if text is None:
            text = self.built[qid] = self._build(qid)
        return text

    def _build(self, qid: str) -> str:
        rng = stream(self.seed, "timeline", qid)
        chars = max(200, self.draw(rng, self.mean))
        lines: list[str] = []
        n = 0
        day, minute = rng.randint(1, 28), rng.randrange(1440)
        while n < chars:
            table, item, unit = TIMELINE_EVENTS[rng.randrange(len(TIMELINE_EVENTS))]
            minute += rng.randrange(5, 240)
            day += minute // 1440
            minute %= 1440
            value = round(rng.uniform(0.5, 150.0), 1)
            line = (f"2150-{1 + day // 28 % 12:02d}-{1 + day % 28:02d} "
                    f"{minute // 60:02d}:{minute % 60:02d} | {table} | {item}: {value} {unit}")
            lines.append(line)
            n += len(line) + 1
        return "\n".join(lines)


class Images:
    """JPEG-looking base64 payloads (SOI/JFIF header, random body, EOI)."""

    def __init__(self, seed: int, size_bytes: int) -> None:
        rng = stream(seed, "images")
        self.pool = []
        for _ in range(8):
            body = rng.randbytes(max(16, size_bytes))
            raw = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + body
            self.pool.append(base64.b64encode(raw + b"\xff\xd9").decode("ascii"))

    def pick(self, rng: random.Random) -> str:
        return self.pool[rng.randrange(len(self.pool))]
