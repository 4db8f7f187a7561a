"""`etl synth --shape`: the trajectory shapes the bench measures the ingest on.

The default shape must leave every seed's tree as it was, byte for byte: the bench's
figures are compared across versions on these trees, and tests elsewhere plant their
expectations in them. The golden digests below were computed with the generator as it was
before shapes existed (commit d4c3350); a deliberate change of the generator changes them,
and then the bench trees change too (say so in the change)."""

from __future__ import annotations

import hashlib
import random
import statistics
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from etl.cli import cli
from etl.synth import generate, spec
from etl.synth.content import Filler, Images, mm_questions, text_questions
from etl.synth.plan import Sizes
from etl.synth.records import Plan, RecordMaker
from tests.synth.digest import tree_digest

# tree_digest of `generate(.../demo7, seed=7, damage=True)` (demo scale) by the generator
# without shapes: first at d4c3350, then (a deliberate change: the demo tree gained the
# authors' helper outputs, raw QA rows and a scored-only run) at 20962be, which has no
# shapes either; the merged generator gives the same digest with and without --shape default.
# Then a deliberate change, with the failure labels: every call carries the arguments its
# tool requires, different at each step, and the failures planted by model are the writer's
# own texts (etl/synth/failures.py), the raw QA rows count their tokens (usage);
# outcomes and scores are the plans' as before.
DEMO_SEED7_DIGEST = "759072288464fe77f0bb8c2664ce49c2bc6a1587005af9adb01d75752156b376"
# bench_records_digest below with the generator before shapes existed, changed with the
# failure labels as the demo digest above
BENCH_RECORDS_DIGEST = "0d4764c0b857b54eff1911c9f8b21523522d550ac60ae922f8d1d19cf651123c"
# The payload means of a 2.5 GB bench tree (etl/synth/layout.py make_ctx), heavy-tailed.
BENCH_SIZES = Sizes(agentic=55882, oneshot=6666, mm_agentic=14166, mm_oneshot=6250,
                    heavy_tail=True)


def bench_records_digest(maker: RecordMaker) -> str:
    """SHA-256 of records at bench payload sizes: every text model's agentic records in
    four variants and a one-shot record, and every multimodal model's agentic record.
    (The demo tree never draws bench-sized payloads; this covers that path.)"""
    qs = text_questions(11, 2, ("labevents", "ICU_Mortality_1day"), "ehr_bench")
    mqs = mm_questions(11, (1, 1, 1, 1, 1, 1))
    draw = random.Random("payload")
    digest = hashlib.sha256()
    for model in spec.TEXT_MODELS:
        for q in qs:
            for variant in ("list", "dict_args", "synthetic", "text_answer"):
                plan = Plan("exact", variant, BENCH_SIZES.draw(draw, BENCH_SIZES.agentic))
                rec = maker.agentic(q, model, plan, random.Random(f"{model}/{q.qid}/{variant}"),
                                    run_index=1, runs_per_question=1, q_index=1,
                                    old_style=model in spec.OLD_STYLE_AGENT_EHR, with_names=True)
                digest.update(orjson.dumps(rec))
            plan = Plan("partial", "list", BENCH_SIZES.draw(draw, BENCH_SIZES.oneshot))
            digest.update(orjson.dumps(maker.oneshot(q, model, plan, random.Random(model),
                                                     region="us-east-1")))
    for model in spec.MM_MODELS:
        for q in mqs:
            plan = Plan("exact", "list", BENCH_SIZES.draw(draw, BENCH_SIZES.mm_agentic))
            rec = maker.agentic(q, model, plan, random.Random(f"{model}/{q.qid}"), run_index=1,
                                runs_per_question=1, q_index=1, multimodal=True)
            digest.update(orjson.dumps(rec))
    return digest.hexdigest()


def test_default_shape_gives_every_seed_the_tree_it_always_gave(tmp_path: Path) -> None:
    # the tree's name is in its truth file (the external directory's name)
    generate(tmp_path / "a" / "demo7", seed=7, damage=True)
    assert tree_digest(tmp_path / "a" / "demo7") == DEMO_SEED7_DIGEST
    generate(tmp_path / "b" / "demo7", seed=7, damage=True, shape="default")
    assert tree_digest(tmp_path / "b" / "demo7") == DEMO_SEED7_DIGEST
    default = spec.TRAJECTORY_SHAPES["default"]
    assert bench_records_digest(RecordMaker(Filler(11), Images(11, 700))) == BENCH_RECORDS_DIGEST
    assert (bench_records_digest(RecordMaker(Filler(11), Images(11, 700), default))
            == BENCH_RECORDS_DIGEST)


def _steps(rec: dict) -> tuple[int, list[int]]:
    """(tool calls before the answer, lengths of the tool results answering them), read
    from the record: every tool message but the last one (the finish echo)."""
    tool_texts = [m["content"] for m in rec["messages"] if m["role"] == "tool"]
    return len(tool_texts) - 1, [len(t) for t in tool_texts[:-1]]


def _records(shape: str, n: int = 200) -> list[tuple[int, dict]]:
    """(payload, record) for n agentic records of one shape at bench payload sizes."""
    maker = RecordMaker(Filler(5), Images(5, 64), spec.TRAJECTORY_SHAPES[shape])
    q = text_questions(5, 1, ("labevents",), "ehr_bench")[0]
    draw = random.Random(f"sizes/{shape}")
    out = []
    for i in range(n):
        payload = BENCH_SIZES.draw(draw, BENCH_SIZES.agentic)
        rec = maker.agentic(q, "glm_4_7", Plan("exact", "list", payload), random.Random(i),
                            run_index=1, runs_per_question=1, q_index=1)
        out.append((payload, rec))
    return out


def test_long_tools_makes_few_long_tool_results() -> None:
    default, long_tools = _records("default"), _records("long-tools")
    for payload, rec in long_tools:
        steps, lengths = _steps(rec)
        assert steps == 2
        # the results share the payload (one of them may be a short planted pool failure)
        assert max(lengths) == min(payload // 2, 1_000_000)
    # most of the text is in results over 100k characters; the default shape has none
    def long_share(records: list[tuple[int, dict]]) -> float:
        lengths = [n for _, rec in records for n in _steps(rec)[1]]
        return sum(n for n in lengths if n > 100_000) / sum(lengths)

    assert long_share(long_tools) > 0.25 and long_share(default) == 0
    assert (statistics.mean(len(r["messages"]) for _, r in long_tools)
            < statistics.mean(len(r["messages"]) for _, r in default))


def test_many_short_makes_many_short_messages() -> None:
    default, many = _records("default"), _records("many-short")
    for payload, rec in many:
        steps, lengths = _steps(rec)
        # a tool call per 400 characters of payload, 1 to 4 more, at most 500
        assert min(500, payload // 400 + 1) <= steps <= min(500, payload // 400 + 4)
        if steps < 500:
            assert statistics.median(lengths) <= 400
    assert (statistics.median(_steps(r)[0] for _, r in many)
            > 10 * statistics.median(_steps(r)[0] for _, r in default))


@pytest.mark.parametrize("shape", ["long-tools", "many-short"])
def test_cli_writes_a_shaped_tree(tmp_path: Path, shape: str) -> None:
    runner = CliRunner()
    for name, args in (("d", []), ("s", ["--shape", shape])):
        result = runner.invoke(cli, ["synth", str(tmp_path / name), "--seed", "3", *args])
        assert result.exit_code == 0, result.output
    assert tree_digest(tmp_path / "d") != tree_digest(tmp_path / "s")
    path = "ehr_bench/agentic/full1800/glm_4_7/results.jsonl"
    messages = {}
    for name in ("d", "s"):
        lines = (tmp_path / name / path).read_bytes().splitlines()
        messages[name] = sum(len(orjson.loads(x).get("messages") or []) for x in lines)
    if shape == "many-short":
        assert messages["s"] > messages["d"]
    else:
        assert messages["s"] <= messages["d"]
    result = runner.invoke(cli, ["synth", str(tmp_path / "x"), "--shape", "nope"])
    assert result.exit_code == 2 and "nope" in result.output


@pytest.fixture(scope="module")
def copies_tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, Path]:
    """(root, truth, warehouse) of a demo-scale many-copies tree, ingested."""
    from etl.pipeline.ingest import IngestOptions, run_ingest

    root = tmp_path_factory.mktemp("copies") / "tree"
    truth = generate(root, seed=5, damage=True, shape="many-copies")
    db = root.parent / "warehouse.duckdb"
    run_ingest(root, db, IngestOptions(jobs=1))
    return root, truth, db


def test_many_copies_writes_every_text_result_three_times_or_more(
        copies_tree: tuple[Path, dict, Path]) -> None:
    root, truth, _ = copies_tree
    current_text = {r["run_id"] for r in truth["runs"] if not r["is_archived"]
                    and r["benchmark"] in ("ehr_bench", "agent_ehr_bench")
                    and r["model"] != "medgemma_27b_it"}
    copies: dict[tuple[str, str, int], int] = {}
    kinds: dict[str, set[str]] = {}
    for f in truth["files"]:
        if f["run_id"] in current_text and f["path"].endswith(".jsonl") and (
                f["kind"].startswith("results_")):
            kinds.setdefault(f["run_id"], set()).add(f["kind"])
            for line in (root / f["path"]).read_bytes().splitlines():
                try:
                    rec = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue  # planted damage
                if isinstance(rec, dict) and "qid" in rec:
                    key = (f["run_id"], rec["qid"], rec.get("run_index") or 1)
                    copies[key] = copies.get(key, 0) + 1
    assert current_text and set(kinds) == current_text
    for run_id, found in kinds.items():
        assert {"results_merged", "results_top", "results_shard", "results_steal",
                "results_steal_copy"} <= found, run_id
    # fewer only where a planted damage took a copy's line
    assert sum(n < 3 for n in copies.values()) <= len(truth["damage"])
    assert sum(n >= 4 for n in copies.values()) > len(copies) / 10  # the stolen ones


def test_many_copies_ingests_as_its_truth_says(copies_tree: tuple[Path, dict, Path]) -> None:
    import duckdb

    _, truth, db = copies_tree
    con = duckdb.connect(str(db), read_only=True)
    try:
        n_results = dict(con.execute("SELECT run_id, n_results FROM runs").fetchall())
        where = {(r[0], r[1], r[2]): (r[3], r[4]) for r in con.execute(
            "SELECT r.run_id, r.qid, r.run_index, f.path, r.line_no FROM results r "
            "JOIN files f USING (file_id)").fetchall()}
        total = con.execute("SELECT sum(n_duplicates) FROM files").fetchall()[0][0]
    finally:
        con.close()
    for run in truth["runs"]:
        assert n_results[run["run_id"]] == run["n_results"], run["run_id"]
    losers = 0
    for dup in truth["duplicates"]:
        key = (dup["run_id"], dup["qid"], dup["run_index"])
        assert where[key] == (dup["winner"]["path"], dup["winner"]["line_no"]), key
        losers += len(dup["copies"]) - 1
    assert total == losers


def test_many_copies_shares_each_questions_timeline_between_models(
        copies_tree: tuple[Path, dict, Path]) -> None:
    import duckdb

    _, _, db = copies_tree
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            "SELECT r.qid, r.model, r.question, m.content FROM results r JOIN messages m "
            "USING (run_id, qid, run_index) WHERE r.mode = 'oneshot' AND r.split = 'full1800' "
            "AND r.benchmark = 'ehr_bench' AND m.role = 'user' AND NOT r.run_id LIKE '\\_%' "
            "ESCAPE '\\'").fetchall()
    finally:
        con.close()
    by_qid: dict[str, set[str]] = {}
    rows = [r for r in rows if r[1] in spec.TEXT_MODELS]  # not the external raw QA rows
    for qid, _model, question, content in rows:
        assert content.startswith(question) and len(content) > len(question)
        timeline = question.split("## Patient timeline\n", 1)[1].split("\n## ", 1)[0]
        assert question.count(timeline) == 3  # the timeline three times in the question
        by_qid.setdefault(qid, set()).add(question)
    models = {model for _, model, _, _ in rows}
    assert models == set(spec.TEXT_MODELS)
    assert all(len(questions) == 1 for questions in by_qid.values())
