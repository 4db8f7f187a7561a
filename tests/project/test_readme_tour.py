"""The README shows real output: every `$ .venv/bin/etl ...` line of its tour, run on the
demo warehouse (the tree `make ingest` builds: seed 7, damaged), prints what the README shows
under it. On a change of a command's output: `python -m tests.readme_tour --write`."""

from __future__ import annotations

from pathlib import Path

from tests.readme_tour import README, run, tour, workdir_for


def test_the_tour_shows_what_the_commands_print(demo_db: Path, tmp_path: Path) -> None:
    steps = tour(README.read_text())
    commands = [step.command.split()[1] for step in steps]
    # the tour: six commands, each with the output it printed
    assert commands == ["leaderboard", "compare", "failures", "search", "query", "report"], \
        commands
    work = workdir_for(demo_db, tmp_path)
    for step in steps:
        assert step.shown.strip(), f"no output shown under {step.command}"
        printed = run(step.command, work)
        assert printed == step.shown, (
            f"README shows another output for `{step.command}`; "
            f"run `python -m tests.readme_tour --write`.\n--- printed:\n{printed}")
    assert (work / "build" / "report.html").stat().st_size > 100_000
