"""Every link leads somewhere, every page fits: a reader's crawl of the explorer from its
front page (tests/serve/crawl.py: every link of every page, the SVG charts' too, every image,
and every form sent with GET as the page offers it) answers 200 everywhere.

- A small copy of the damaged demo tree (tests/serve/crawl_tree.py: every run, archive,
  symlink, damaged line and the scored-only run, a few questions each, one tool result long
  enough for /message pages, images kept): every link, down to trajectories, side-by-side
  diffs, message pages and images.
- The demo tree itself: every kind of page (a path and its parameters), ten of each. The
  whole demo tree, every link, clean and damaged: `make crawl`.
- In Chromium at 1400x900, one page of each kind of the small tree: no page scrolls
  sideways (a wide table scrolls inside its own box, its key column staying in view), and
  no text shows the JSON escape of a printable character."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_etl
from tests.serve.crawl import CrawlResult, crawl, kind_of
from tests.serve.crawl_tree import small_demo_tree
from tests.serving import CHROMIUM, running_server

pytest.importorskip("starlette")

# What a reader reaches from the front page (each path at least once).
PAGES = {"/", "/board", "/heatmap", "/questions", "/question", "/trajectory", "/message",
         "/image", "/diff", "/compare", "/search", "/paper", "/lineage", "/lineage/diff",
         "/rejects", "/file", "/sql", "/failures"}
VIEWPORT = {"width": 1400, "height": 900}


@pytest.fixture(scope="module")
def small_db(demo_tree: tuple[Path, dict], tmp_path_factory: pytest.TempPathFactory) -> Path:
    parent = tmp_path_factory.mktemp("crawl")
    root = small_demo_tree(demo_tree[0], parent)
    db = parent / "warehouse.duckdb"
    run_etl("ingest", str(root), "--db", str(db), "--keep-images", "--quiet")
    return db


@pytest.fixture(scope="module")
def small_crawl(small_db: Path) -> Iterator[tuple[str, CrawlResult]]:
    with running_server(small_db) as base:
        yield base, crawl(base)


def _dead(result: CrawlResult) -> list[str]:
    return [f"{status} {url} (linked from {referer})" for status, url, referer in result.dead]


def test_every_link_of_a_small_damaged_tree_answers_200(small_crawl: tuple) -> None:
    _, result = small_crawl
    assert _dead(result) == []
    assert PAGES <= set(result.by_path()), sorted(PAGES - set(result.by_path()))
    # the JSON and CSV of the pages are links too, and were followed
    assert any("format=json" in u for u in result.statuses)
    assert any("format=csv" in u for u in result.statuses)
    assert not result.skipped


def test_every_kind_of_page_of_the_demo_tree_answers_200(server: str) -> None:
    result = crawl(server, cap=10, keep_pages=False)
    assert _dead(result) == []
    # no image kept and no long message here; ten runs' question lists may miss the one
    # that links a score file
    assert PAGES - {"/message", "/image", "/file"} <= set(result.by_path())


# JSON escapes (\uXXXX) in the text of a page, decoded
ESCAPE = re.compile(r"(?<!\\)\\u([0-9a-fA-F]{4})")
# the page's width against its window, and each table box that scrolls: its width, its
# scroll width, and where its first column is once scrolled to the right end
FIT = """() => {
  const doc = document.documentElement;
  const boxes = [...document.querySelectorAll('.scroll, .heat-wrap')]
    .filter(b => b.scrollWidth > b.clientWidth + 1 && b.querySelector('table'))
    .map(b => {
      b.scrollLeft = b.scrollWidth;
      const cell = b.querySelector('tbody tr > :first-child');
      const left = cell ? cell.getBoundingClientRect().left - b.getBoundingClientRect().left
                        : 0;
      b.scrollLeft = 0;
      return {id: (b.querySelector('table') || {}).id || '', left: Math.round(left)};
    });
  return {page: doc.scrollWidth, window: doc.clientWidth, boxes: boxes};
}"""


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium")
def test_no_page_scrolls_sideways_or_shows_json_escapes(small_crawl: tuple, browser: object
                                                         ) -> None:
    base, result = small_crawl
    one_of_each: dict[tuple, str] = {}
    for url in result.pages:
        if "format=" not in url:
            one_of_each.setdefault(kind_of(url), url)
    assert len(one_of_each) >= len(PAGES) - 1  # /image is not a page
    sideways, escaped, unstuck = [], [], []
    page = browser.new_page(viewport=VIEWPORT)
    for url in one_of_each.values():
        page.goto(base + url)
        fit = page.evaluate(FIT)
        if fit["page"] > fit["window"]:
            sideways.append((url, fit["page"]))
        # a wide table scrolls in its box with its key column in view (sticky)
        unstuck += [(url, box["id"]) for box in fit["boxes"] if abs(box["left"]) > 1]
        for match in ESCAPE.finditer(page.evaluate("() => document.body.innerText")):
            char = chr(int(match.group(1), 16))
            if char.isprintable() and char not in "\"\\" and not 0xD800 <= ord(char) <= 0xDFFF:
                escaped.append((url, match.group(0)))
                break
    page.close()
    assert sideways == [], sideways
    assert unstuck == [], unstuck
    assert escaped == [], escaped
