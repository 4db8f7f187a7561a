"""A crawler of the explorer as a reader clicks through it: from the front page, every link
(`a href`, in HTML and in the SVG charts), every image, script and stylesheet, and every form
that is sent with GET, submitted as the page offers it (each field with its value, the
selected option or else the first, checked boxes only). Only links of the server itself are
followed; the JSON and CSV of a page are links like any other.

`crawl(base)` visits everything; `cap` bounds the number of URLs visited of one kind (the
path and the names of its parameters), for a quick pass over a large tree that still opens
every kind of page. `python -m tests.serve.crawl --db FILE` crawls a warehouse in full."""

from __future__ import annotations

import argparse
import collections
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path


class _Links(HTMLParser):
    """Every link of a page, and each GET form as the URL submitting it would ask for."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self._form: dict | None = None
        self._select: dict | None = None
        self._option: dict | None = None
        self._textarea: dict | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: (v if v is not None else "") for k, v in attrs}
        if tag in ("a", "link") and a.get("href"):
            self.links.append(a["href"])
        elif tag in ("img", "script") and a.get("src"):
            self.links.append(a["src"])
        elif tag == "form":
            method = a.get("method", "get").lower()
            self._form = {"action": a.get("action", ""), "fields": [], "get": method == "get"}
        elif self._form is not None and tag == "input" and a.get("name"):
            kind = a.get("type", "text").lower()
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            if kind in ("submit", "button", "image", "file"):
                return
            self._form["fields"].append((a["name"], a.get("value", "")))
        elif self._form is not None and tag == "select" and a.get("name"):
            self._select = {"name": a["name"], "first": None, "selected": None}
        elif self._select is not None and tag == "option":
            self._option = {"value": a.get("value"), "text": "", "selected": "selected" in a}
        elif self._form is not None and tag == "textarea" and a.get("name"):
            self._textarea = {"name": a["name"], "text": ""}

    def handle_data(self, data: str) -> None:
        if self._option is not None:
            self._option["text"] += data
        if self._textarea is not None:
            self._textarea["text"] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "option" and self._option is not None and self._select is not None:
            value = self._option["value"]
            value = self._option["text"].strip() if value is None else value
            if self._select["first"] is None:
                self._select["first"] = value
            if self._option["selected"]:
                self._select["selected"] = value
            self._option = None
        elif tag == "select" and self._select is not None and self._form is not None:
            value = self._select["selected"]
            value = self._select["first"] if value is None else value
            if value is not None:
                self._form["fields"].append((self._select["name"], value))
            self._select = None
        elif tag == "textarea" and self._textarea is not None and self._form is not None:
            self._form["fields"].append((self._textarea["name"], self._textarea["text"]))
            self._textarea = None
        elif tag == "form" and self._form is not None:
            if self._form["get"]:
                query = urllib.parse.urlencode(self._form["fields"])
                self.links.append(self._form["action"] + ("?" + query if query else ""))
            self._form = None


def page_links(html: str, here: str) -> list[str]:
    """The same-server links of a page at path `here`, as paths with their query, without
    fragments."""
    parser = _Links()
    parser.feed(html)
    out = []
    for link in parser.links:
        link = link.split("#", 1)[0]
        if not link:
            continue
        parts = urllib.parse.urlsplit(link)
        if parts.scheme or parts.netloc:
            continue  # another server (none should be linked at all)
        out.append(urllib.parse.urljoin(here, link))
    return out


def kind_of(url: str) -> tuple[str, tuple[str, ...]]:
    """What kind of URL it is: its path and the names of its parameters."""
    parts = urllib.parse.urlsplit(url)
    names = sorted({name for name, _ in urllib.parse.parse_qsl(parts.query,
                                                              keep_blank_values=True)})
    return parts.path, tuple(names)


@dataclass
class CrawlResult:
    statuses: dict[str, int] = field(default_factory=dict)
    referers: dict[str, str] = field(default_factory=dict)
    pages: dict[str, str] = field(default_factory=dict)  # HTML pages: url -> body
    skipped: collections.Counter = field(default_factory=collections.Counter)

    @property
    def dead(self) -> list[tuple[int, str, str | None]]:
        """(status, url, the page that links it) of every URL that did not answer 200."""
        return sorted((status, url, self.referers.get(url))
                      for url, status in self.statuses.items() if status != 200)

    def by_path(self) -> dict[str, int]:
        counts = collections.Counter(urllib.parse.urlsplit(u).path for u in self.statuses)
        return dict(sorted(counts.items()))


def fetch(base: str, url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(base + url, timeout=120) as response:
            return response.status, response.headers.get("content-type", ""), response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("content-type", ""), error.read()


def crawl(base: str, start: str = "/", cap: int | None = None, keep_pages: bool = True,
          progress: Callable[[int], None] | None = None) -> CrawlResult:
    """Visit every page reachable from `start` (breadth first). cap: at most that many URLs
    of one kind (kind_of) are visited; the others are counted in `skipped`."""
    result = CrawlResult()
    queue = collections.deque([start])
    seen = {start}
    per_kind: collections.Counter = collections.Counter()
    while queue:
        url = queue.popleft()
        status, ctype, body = fetch(base, url)
        result.statuses[url] = status
        if progress is not None:
            progress(len(result.statuses))
        if status != 200 or "text/html" not in ctype:
            continue
        html = body.decode("utf-8", "replace")
        if keep_pages:
            result.pages[url] = html
        for link in page_links(html, url):
            if link in seen:
                continue
            seen.add(link)
            kind = kind_of(link)
            if cap is not None and per_kind[kind] >= cap:
                result.skipped[kind] += 1
                continue
            per_kind[kind] += 1
            result.referers[link] = url
            queue.append(link)
    return result


@dataclass
class _Printer:
    every: int = 500

    def __call__(self, n: int) -> None:
        if n % self.every == 0:
            print(f"  {n} URLs visited", file=sys.stderr, flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description="crawl the explorer of a warehouse")
    parser.add_argument("--db", type=Path, help="a warehouse: served here for the crawl")
    parser.add_argument("--base", help="or the URL of a running etl serve")
    parser.add_argument("--cap", type=int, default=None, help="URLs visited per kind")
    args = parser.parse_args()
    if (args.db is None) == (args.base is None):
        parser.error("give --db or --base")
    if args.base:
        result = crawl(args.base, cap=args.cap, keep_pages=False, progress=_Printer())
    else:
        from tests.serving import running_server

        with running_server(args.db) as base:
            result = crawl(base, cap=args.cap, keep_pages=False, progress=_Printer())
    print(f"{len(result.statuses)} URLs visited, {len(result.dead)} not 200, "
          f"{sum(result.skipped.values())} left out by the cap")
    print("by path:", result.by_path())
    dead = collections.Counter(f"{status} {urllib.parse.urlsplit(url).path}"
                               for status, url, _ in result.dead)
    print("not 200, by status and path:", dict(sorted(dead.items())))
    for status, url, referer in result.dead[:50]:
        print(f"{status} {url}  (linked from {referer})")
    return 1 if result.dead else 0


if __name__ == "__main__":
    sys.exit(main())
