"""Every filter a reader takes (benchmark, mode, model, scorer, run) is checked against the
warehouse, on the command line and in the notebook API alike: an unknown value exits non-zero
(raises UnknownName) naming the closest valid values, never an empty table; a model named by
its display name or any alias reads the same rows as its key.

The valid values and the alias table are read here with plain SQL over the same file; the
suggestions are judged against them, not against the code's own lists."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import etl
from etl.cli import cli
from etl.errors import UnknownName, WarehouseError
from tests.budgets import examples

# DESIGN: the leaderboard's runs are not archived and of the benchmark's full split.
FULL_SPLITS = ("full1800", "subset600", "full2703")
SETTINGS = settings(max_examples=examples(25), deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def column(wh, sql: str, params: list | None = None) -> list:
    """The first column of the test's own SQL, on a cursor of the API's connection (DuckDB
    allows one configuration per file and process)."""
    return [row[0] for row in wh.con.cursor().execute(sql, params or []).fetchall()]


@pytest.fixture(scope="module")
def wh(demo_db: Path):
    with etl.open(demo_db, frames="arrow") as warehouse:
        yield warehouse


def etl_cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


# -- the command line -------------------------------------------------------------------
@pytest.mark.parametrize(("args", "typed", "meant"), [
    (("leaderboard", "--benchmark", "ehr-bench"), "ehr-bench", "ehr_bench"),
    (("leaderboard", "--benchmark", "EHR_Bench"), "EHR_Bench", "ehr_bench"),
    (("leaderboard", "--mode", "agent"), "agent", "agentic"),
    (("leaderboard", "--mode", "one-shot"), "one-shot", "oneshot"),
    (("search", "x", "--benchmark", "mm-bench"), "mm-bench", "mm_bench"),
    (("search", "x", "--mode", "agentc"), "agentc", "agentic"),
    (("search", "x", "--model", "claude opus"), "claude opus", "claude_opus_4_6"),
    (("compare", "claude_opus_4_6", "claude_sonnet_4_6", "--benchmark", "ehr-bench"),
     "ehr-bench", "ehr_bench"),
])
def test_a_typo_exits_non_zero_naming_the_closest_value(demo_db: Path, args: tuple[str, ...],
                                                        typed: str, meant: str) -> None:
    code, out, err = etl_cli(*args, "--db", str(demo_db))
    assert code == 2, (out, err)
    assert out == ""  # no empty table, no "no rows match"
    assert f"'{typed}'" in err and "did you mean" in err and meant in err
    assert "Traceback" not in err


def test_an_unknown_scorer_lists_the_board_scorers(demo_db: Path, wh) -> None:
    boards = column(wh, "SELECT DISTINCT scorer FROM leaderboard_result_scores_all")
    code, out, err = etl_cli("leaderboard", "--scorer", "bogus", "--db", str(demo_db))
    assert code == 2 and out == ""
    listed = err.split("Valid scorers: ")[1].rstrip(".\n").split(", ")
    assert sorted(listed) == sorted(boards)


def test_a_scorer_with_rows_but_no_board_says_where_its_rows_are(demo_db: Path, wh) -> None:
    n_rows = column(wh, "SELECT count(*) FROM question_scores "
                             "WHERE scorer = 'authors_mm_set'")[0]
    assert n_rows > 0  # the demo tree has the authors' multimodal rows
    code, out, err = etl_cli("leaderboard", "--scorer", "authors_mm_set", "--db", str(demo_db))
    assert code == 2 and out == ""
    assert f"Its {n_rows} rows" in err and "question_scores" in err and "scores(" in err


def test_unknown_archive_and_unknown_run_name(demo_db: Path, wh) -> None:
    archived = column(wh, "SELECT run_id FROM runs WHERE is_archived ORDER BY 1")
    code, _, err = etl_cli("lineage", "no_such_archive", "--db", str(demo_db))
    assert code == 2 and all(run in err for run in archived)
    # a typo of an archive name is answered with it
    name = archived[0].split("/")[-1]
    code, _, err = etl_cli("lineage", name[:-2], "--db", str(demo_db))
    assert code == 2 and "did you mean" in err and name in err
    code, _, err = etl_cli("compare", "claude_opus_4_66", "claude_sonnet_4_6", "--benchmark",
                           "ehr_bench", "--mode", "agentic", "--db", str(demo_db))
    assert code == 1 and "did you mean" in err and "claude_opus_4_6" in err


# -- the API: the same checks, any typo --------------------------------------------------
FILTERS = {"benchmark": "SELECT DISTINCT benchmark FROM runs",
           "mode": "SELECT DISTINCT mode FROM runs",
           "run": "SELECT run_id FROM runs"}


@pytest.mark.parametrize("kind", sorted(FILTERS))
def test_any_unknown_value_is_refused_with_valid_suggestions(demo_db: Path, wh, kind: str
                                                             ) -> None:
    valid = set(column(wh, FILTERS[kind])) - {None}

    @SETTINGS
    @given(st.text(min_size=1, max_size=30))
    def check(value: str) -> None:
        if value in valid:
            return
        with pytest.raises(UnknownName) as refused:
            wh.runs(**{kind: value}) if kind != "run" else wh.coverage(run=value)
        message = str(refused.value)
        assert set(refused.value.suggestions) <= valid
        if refused.value.suggestions:  # the close ones ...
            assert "did you mean" in message
        else:  # ... or else the valid ones
            assert all(v in message for v in sorted(valid)[:12])
        assert set(refused.value.valid) == valid
        assert refused.value.exit_code == 2

    check()


@pytest.mark.parametrize("kind", ["benchmark", "mode"])
def test_a_misspelt_valid_value_is_suggested(demo_db: Path, wh, kind: str) -> None:
    valid = sorted(set(column(wh, FILTERS[kind])) - {None})

    @SETTINGS
    @given(st.sampled_from(valid), st.sampled_from(["upper", "dash", "drop_last", "swap"]))
    def check(value: str, how: str) -> None:
        typo = {"upper": value.upper(), "dash": value.replace("_", "-") + " ",
                "drop_last": value[:-1],
                "swap": value[:2] + value[3] + value[2] + value[4:]}[how].strip()
        if typo in valid:
            return
        with pytest.raises(UnknownName) as refused:
            wh.results(**{kind: typo})
        assert value in refused.value.suggestions, (typo, refused.value.suggestions)
        assert "did you mean" in str(refused.value)

    check()


def test_scorer_filters(demo_db: Path, wh) -> None:
    with pytest.raises(UnknownName) as refused:
        wh.scores(scorer="authors_text_fallbak")
    assert refused.value.suggestions[0] == "authors_text_fallback"
    # scores() takes any scorer with rows; results() only a board's
    n_rows = column(wh, "SELECT count(*) FROM question_scores AS s JOIN runs AS u "
                             "USING (run_id) WHERE s.scorer = 'authors_mm_set' AND NOT "
                             "coalesce(u.is_archived, false) AND u.split IN "
                             f"{FULL_SPLITS}")[0]
    assert len(wh.scores(scorer="authors_mm_set")) == n_rows > 0
    with pytest.raises(UnknownName, match="not a leaderboard scorer"):
        wh.results(scorer="authors_mm_set")


# -- one alias table, every reader --------------------------------------------------------
def model_spellings(wh) -> list[tuple[str, str]]:
    """(spelling, key) for every display name and alias of a model with runs here."""
    con = wh.con.cursor()
    try:
        return con.execute(
            "SELECT display_name, model FROM models WHERE model IN (SELECT model FROM runs) "
            "UNION SELECT alias, model FROM model_aliases "
            "WHERE model IN (SELECT model FROM runs) ORDER BY 1").fetchall()
    finally:
        con.close()


def test_display_names_and_aliases_read_the_rows_of_the_key(demo_db: Path, wh) -> None:
    spellings = model_spellings(wh)
    assert len({key for _, key in spellings}) >= 5 and len(spellings) > 50
    n_keys = {spelling: len({k for s, k in spellings if s == spelling}) for spelling, _ in
              spellings}

    @SETTINGS
    @given(st.sampled_from(spellings))
    def check(pair: tuple[str, str]) -> None:
        spelling, key = pair
        if n_keys[spelling] > 1:  # one spelling of two models must be refused, not guessed
            with pytest.raises(WarehouseError, match="give the key"):
                wh.runs(model=spelling)
            return
        expected = column(wh, "SELECT run_id FROM runs WHERE model = ? AND NOT "
                                   f"coalesce(is_archived, false) AND split IN {FULL_SPLITS} "
                                   "ORDER BY 1", [key])
        assert wh.runs(model=spelling)["run_id"].to_pylist() == expected
        assert wh.coverage(model=spelling)["run_id"].to_pylist() == expected
        answered = column(wh, "SELECT DISTINCT run_id FROM results WHERE run_id IN "
                              "(SELECT unnest(?))", [expected])
        assert set(wh.results(model=spelling)["run_id"].to_pylist()) == set(answered)
        assert set(wh.scores(model=spelling)["model"].to_pylist()) <= {key}

    check()


def test_the_command_line_takes_the_same_names(demo_db: Path, wh) -> None:
    by_key = etl_cli("search", "the", "--model", "claude_opus_4_6", "--format", "json",
                     "--db", str(demo_db))
    by_display = etl_cli("search", "the", "--model", "Claude Opus 4.6", "--format", "json",
                         "--db", str(demo_db))
    by_alias = etl_cli("search", "the", "--model", "anthropic.claude-opus-4-6-v1:0",
                       "--format", "json", "--db", str(demo_db))
    assert by_key[0] == 0 and by_key[1].count("claude_opus_4_6") > 0
    assert by_key == by_display == by_alias
    run = column(wh, "SELECT run_id FROM leaderboard_runs WHERE model = 'claude_opus_4_6' "
                          "AND benchmark = 'ehr_bench' AND mode = 'agentic'")[0]
    assert wh.resolve_run("Claude Opus 4.6", "ehr_bench", "agentic") == run
    assert wh.resolve_run("claude-opus-4-6", "ehr_bench", "agentic") == run
    code, out, _ = etl_cli("compare", "Claude Opus 4.6", "claude-sonnet-4-6", "--benchmark",
                           "ehr_bench", "--mode", "agentic", "--format", "csv",
                           "--db", str(demo_db))
    assert code == 0 and out.count("\n") > 10
