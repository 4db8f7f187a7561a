"""The project's docs stand alone: a clone has no `../shared`, and users know nothing of the
project's issue tracker. Every page the README, docs/ and the --help texts send a reader to
exists in the repository."""

from __future__ import annotations

import re
from pathlib import Path

import click

from etl.cli import cli

REPO = Path(__file__).resolve().parents[2]
USER_TEXTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
# "issue 11", "issue #3", "issue 16's targets": the project's own tracker. A link into
# another project's tracker (".../issues/1379") is a reference, not one of these.
ISSUE_NUMBER = re.compile(r"\bissues? #?\d+", re.I)
MARKDOWN_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
DOC_PATH = re.compile(r"(?<![\w/.])((?:docs/)?[A-Z][A-Z_-]+\.md)\b")


def _help_texts() -> dict[str, str]:
    texts = {}

    def walk(command: click.Command, path: list[str]) -> None:
        with click.Context(command, info_name=" ".join(path)) as ctx:
            texts[" ".join(path)] = command.get_help(ctx)
            if isinstance(command, click.Group):  # lazy: the commands are listed, then loaded
                for name in command.list_commands(ctx):
                    sub = command.get_command(ctx, name)
                    if sub is not None:
                        walk(sub, [*path, name])

    walk(cli, ["etl"])
    return texts


def test_no_text_for_users_points_outside_the_repository_or_to_issue_numbers() -> None:
    texts = {str(p.relative_to(REPO)): p.read_text() for p in USER_TEXTS}
    texts["Makefile"] = (REPO / "Makefile").read_text()
    texts.update({f"{name} --help": text for name, text in _help_texts().items()})
    assert len(texts) > 20
    for name, text in texts.items():
        assert "../shared" not in text, name
        assert not ISSUE_NUMBER.search(text), (name, ISSUE_NUMBER.search(text))
        assert "clinseek-warehouse[" not in text, f"{name}: the package is not on PyPI"


def test_no_source_file_points_to_the_shared_docs() -> None:
    for path in sorted((REPO / "etl").rglob("*.py")):
        text = path.read_text()
        assert "../shared" not in text, path
        assert not ISSUE_NUMBER.search(text), (path, ISSUE_NUMBER.search(text))


def test_every_linked_page_exists() -> None:
    for page in USER_TEXTS:
        text = page.read_text()
        for target in MARKDOWN_LINK.findall(text):
            if "://" in target:
                continue
            assert (page.parent / target).exists(), f"{page.name} links to missing {target}"
        for name in DOC_PATH.findall(text):
            where = REPO / name if name.startswith("docs/") else None
            candidates = [where] if where else [page.parent / name, REPO / "docs" / name,
                                                 REPO / name]
            assert any(c.exists() for c in candidates), f"{page.name} names missing {name}"


def test_readme_opens_with_the_two_commands() -> None:
    lines = (REPO / "README.md").read_text().splitlines()
    first_block = lines[lines.index("```sh") + 1:lines.index("```")]
    assert [line.split("#")[0].strip() for line in first_block] == ["make ingest", "make test"]
    assert len(lines) < 200  # the long parts live in docs/
