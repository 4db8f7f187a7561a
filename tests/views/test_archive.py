"""Archive name parsing: the rules on the names the dataset README lists, overrides, and
names the rules cannot read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from etl.archive import (
    FULL_SPLITS,
    ArchiveName,
    load_overrides,
    parse_archive_name,
    parse_by_rules,
)
from etl.models import DISPLAY_NAMES, canonical_model

NO_OVERRIDES: dict = {}


def parse(name: str) -> ArchiveName:
    return parse_archive_name(name, overrides=NO_OVERRIDES)


def test_opus46_alias_and_bare_size_become_full_split() -> None:
    got = parse("ehr_bench_opus46_1800_pre_ssl_retry")
    assert got.benchmark == "ehr_bench"
    assert got.model == canonical_model("opus46") == "claude_opus_4_6"
    assert got.model_alias == "opus46"
    assert (got.split, got.size) == FULL_SPLITS["ehr_bench"]
    assert got.reason == "retry"
    assert got.reason_tag == "pre_ssl_retry"
    assert got.mode is None  # the name does not say; lineage infers it from the results
    assert got.parsed_by == "rules"


@pytest.mark.parametrize("model", sorted(DISPLAY_NAMES))
def test_salvage_name_with_every_canonical_model(model: str) -> None:
    got = parse(f"ehr_bench_smoke20_salvage_patched_{model}")
    assert (got.benchmark, got.split, got.size) == ("ehr_bench", "smoke20", 20)
    assert got.model == model and got.model_alias == model
    assert (got.reason, got.reason_tag) == ("salvage", "salvage_patched")


def test_mm_short_prefix_mode_and_smoke_split() -> None:
    got = parse("mm_agentic_smoke5_early")
    assert (got.benchmark, got.mode, got.split, got.size) == ("mm_bench", "agentic", "smoke5", 5)
    assert got.model is None and got.model_alias is None
    assert (got.reason, got.reason_tag) == ("early", "early")


def test_model_before_reason_tag() -> None:
    got = parse("ehr_bench_oneshot_full1800_kimi_k2_5_pre_retry")
    assert (got.benchmark, got.mode, got.split) == ("ehr_bench", "oneshot", "full1800")
    assert (got.model, got.model_alias) == ("kimi_k2_5", "kimi_k2_5")
    assert (got.reason, got.reason_tag) == ("retry", "pre_retry")


def test_scored_novocab_is_rescoring_without_split() -> None:
    got = parse("mm_agentic_opus_scored_novocab")
    assert (got.benchmark, got.mode, got.model) == ("mm_bench", "agentic", "claude_opus_4_6")
    assert got.model_alias == "opus"
    assert got.split is None and got.size is None
    assert (got.reason, got.reason_tag) == ("rescoring", "scored_novocab")


def test_unknown_model_is_kept_as_data() -> None:
    got = parse("ehr_bench_agentic_full1800_newmodel9_pre_retry")
    assert got.model == "newmodel9" and got.reason == "retry"


def test_other_size_is_a_size_without_split() -> None:
    got = parse("ehr_bench_agentic_500_glm47_partial")
    assert (got.split, got.size, got.model, got.reason) == (None, 500, "glm_4_7", "partial")


def test_agent_ehr_bench_has_only_agentic_mode() -> None:
    got = parse("agent_ehr_bench_sonnet46_600_old")
    assert (got.benchmark, got.mode, got.model) == ("agent_ehr_bench", "agentic",
                                                     "claude_sonnet_4_6")
    assert (got.split, got.reason) == ("subset600", "superseded")


@pytest.mark.parametrize("name", ["random_stuff", "", "___", "2024-01-01 backup", "opus46_retry",
                                  "\u00e9\u00e8_bench"[:3], "x" * 500])
def test_unreadable_names_give_unknown_fields_not_errors(name: str) -> None:
    got = parse(name)
    assert got.name == name
    assert got.parsed_by == "unparsed"
    assert all(getattr(got, f) is None for f in
               ("benchmark", "mode", "model", "model_alias", "split", "size", "reason",
                "reason_tag"))


def test_override_wins_field_by_field(tmp_path: Path) -> None:
    path = tmp_path / "overrides.json"
    path.write_text(json.dumps({
        "_note": {"benchmark": "ignored"},
        "weird_dir_2024": {"benchmark": "ehr_bench", "mode": "oneshot", "model": "kimi25",
                           "split": "full1800", "size": "1800", "reason": "retry",
                           "colour": "blue"},
        "ehr_bench_opus46_1800_pre_ssl_retry": {"mode": "agentic"},
    }))
    overrides = load_overrides(path)
    assert "_note" not in overrides
    weird = parse_archive_name("weird_dir_2024", overrides=overrides)
    assert parse_by_rules("weird_dir_2024").parsed_by == "unparsed"
    assert weird.parsed_by == "override"
    assert (weird.benchmark, weird.mode, weird.model, weird.model_alias) == (
        "ehr_bench", "oneshot", canonical_model("kimi25"), "kimi25")
    assert (weird.split, weird.size, weird.reason) == ("full1800", 1800, "retry")
    partial = parse_archive_name("ehr_bench_opus46_1800_pre_ssl_retry", overrides=overrides)
    rules = parse_by_rules("ehr_bench_opus46_1800_pre_ssl_retry")
    assert partial.mode == "agentic" and rules.mode is None
    assert (partial.model, partial.split, partial.reason_tag) == (
        rules.model, rules.split, rules.reason_tag)


def test_broken_override_file_falls_back_to_rules(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{not json")
    assert load_overrides(path) == {}
    assert load_overrides(tmp_path / "missing.json") == {}


def test_repo_override_file_is_valid_and_used() -> None:
    overrides = load_overrides()
    for name, fix in overrides.items():
        assert parse_archive_name(name).parsed_by == "override", name
        assert isinstance(fix, dict)


def test_archive_rows_keep_every_archived_run_and_skip_current_ones() -> None:
    from etl.archive import archive_rows

    runs = [
        {"run_id": "_archive/mm_agentic_opus_scored_novocab", "is_archived": True,
         "archive_name": "mm_agentic_opus_scored_novocab"},
        {"run_id": "_archive/???", "is_archived": True, "archive_name": "???"},
        {"run_id": "ehr_bench/agentic/full1800/glm_4_7", "is_archived": False,
         "archive_name": None},
    ]
    rows = {r["run_id"]: r for r in archive_rows(runs)}
    assert set(rows) == {"_archive/mm_agentic_opus_scored_novocab", "_archive/???"}
    novocab = rows["_archive/mm_agentic_opus_scored_novocab"]
    assert novocab["archive_name"] == "mm_agentic_opus_scored_novocab"
    assert novocab["split"] is None and novocab["match_split"] == FULL_SPLITS["mm_bench"][0]
    unread = rows["_archive/???"]
    assert unread["parsed_by"] == "unparsed" and unread["match_split"] is None
