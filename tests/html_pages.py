"""Reading an HTML page the way the report's and the explorer's tests check it: every start
tag with its attributes (SVG elements with the chart they belong to) and the text; a
warehouse's rows to compare it with; a number printed in a cell against the database's."""

from __future__ import annotations

import math
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import duckdb


class Elements(HTMLParser):
    """Every start tag with its attributes, and the text of the document."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.svg_stack: list[str] = []
        self.in_svg: list[tuple[str, str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if tag == "svg":
            self.svg_stack.append(attributes.get("id") or "")
        elif self.svg_stack:
            self.in_svg.append((self.svg_stack[-1], tag, attributes))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag == "svg":
            self.svg_stack.pop()

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg" and self.svg_stack:
            self.svg_stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def classed(self, css_class: str) -> list[tuple[str, dict[str, str | None]]]:
        """(enclosing svg id, attributes) of SVG elements with that class."""
        return [(svg, a) for svg, _, a in self.in_svg
                if css_class in (a.get("class") or "").split()]

    def svg_ids(self, css_class: str) -> list[str]:
        return [a["id"] or "" for tag, a in self.tags
                if tag == "svg" and css_class in (a.get("class") or "").split()]


def parse(page: str) -> Elements:
    parser = Elements()
    parser.feed(page)
    parser.close()
    return parser


def warehouse_rows(db: Path, sql: str) -> list[dict[str, Any]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        cursor = con.execute(sql)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    finally:
        con.close()


def close_to(text: str | None, value: float | None) -> bool:
    if value is None:
        return text in ("", "None", None)
    return text is not None and math.isclose(float(text), value, rel_tol=1e-12, abs_tol=1e-12)
