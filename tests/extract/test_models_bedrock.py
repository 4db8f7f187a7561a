"""Bedrock model ids as the writer spells them resolve to the canonical model keys.

The ids are those of UCSC-VLAA/ClinSeekAgent clinseekagent/bedrock_region_availability.json
(read by run_multi_model_eval.py load_catalog) and deploy_agent.py DEFAULT_BEDROCK_MODEL_ID,
typed here from that file."""

from __future__ import annotations

import pytest

from etl.models import alias_table, canonical_model

CATALOG_IDS = {
    "us.anthropic.claude-opus-4-6-v1": "claude_opus_4_6",
    "eu.anthropic.claude-opus-4-6-v1": "claude_opus_4_6",
    "us.anthropic.claude-sonnet-4-6": "claude_sonnet_4_6",
    "eu.anthropic.claude-sonnet-4-6": "claude_sonnet_4_6",
    "openai.gpt-oss-120b-1:0": "gpt_oss_120b",
    "qwen.qwen3-235b-a22b-2507-v1:0": "qwen3_235b",
    "minimax.minimax-m2.5": "minimax_m2_5",
    "moonshotai.kimi-k2.5": "kimi_k2_5",
    "zai.glm-4.7": "glm_4_7",
    "qwen.qwen3-vl-235b-a22b": "qwen3_vl_235b",
}
OTHER_SPELLINGS = {
    "global.anthropic.claude-opus-4-6-v1": "claude_opus_4_6",
    "apac.anthropic.claude-sonnet-4-6-v1:0": "claude_sonnet_4_6",
    "anthropic.claude-opus-4-6-v1:0": "claude_opus_4_6",
    "US.Anthropic.Claude-Opus-4-6-V1": "claude_opus_4_6",
    "global.moonshotai.kimi-k2.5-v1": "kimi_k2_5",
    "claude-opus-4-6": "claude_opus_4_6",          # raw-run slugs (run_multi_model_eval _slugify)
    "claude-sonnet-4-6": "claude_sonnet_4_6",
    "qwen3-vl-235b": "qwen3_vl_235b",
    "kimi-k2-5": "kimi_k2_5",
    "glm-4-7": "glm_4_7",
    "minimax-m2-5": "minimax_m2_5",
    "gpt-oss-120b": "gpt_oss_120b",
    "Qwen3-VL-235B": "qwen3_vl_235b",             # catalog friendly names
    "Kimi K2.5": "kimi_k2_5",
    "GLM-4.7": "glm_4_7",
}


@pytest.mark.parametrize(("name", "model"), [*CATALOG_IDS.items(), *OTHER_SPELLINGS.items()])
def test_writer_spellings_resolve(name: str, model: str) -> None:
    assert canonical_model(name) == model


def test_catalog_ids_are_rows_of_model_aliases() -> None:
    table = alias_table()
    for name, model in CATALOG_IDS.items():
        assert table[name.lower()] == model, name


def test_unknown_bedrock_models_keep_one_key_across_regions() -> None:
    us = canonical_model("us.anthropic.claude-haiku-4-5-20251001-v1:0")
    eu = canonical_model("eu.anthropic.claude-haiku-4-5-20251001-v1:0")
    assert us == eu == "anthropic_claude_haiku_4_5_20251001"
    assert canonical_model("qwen.qwen3-32b-v1:0") == "qwen_qwen3_32b"
    assert canonical_model("brand_new_model") == "brand_new_model"
