"""Text shown on a terminal: the control characters in it escaped.

Names and values read from a tree (file names, symlink targets, qids) may hold any
character: ESC and BEL start terminal control sequences (a retitled window, a cleared
screen, a moved cursor), a C1 byte such as U+009B is one on some terminals, and a raw
newline, tab or the Unicode line separators break a line. Every message and every table
cell the tool prints goes through here, so such a character shows as its escape (\\x1b)."""

from __future__ import annotations

# C0 controls, DEL, the C1 controls and the Unicode line and paragraph separators.
_ESCAPES = {**{code: f"\\x{code:02x}" for code in (*range(0x20), 0x7f, *range(0x80, 0xa0))},
            ord("\r"): "\\r", ord("\n"): "\\n", ord("\t"): "\\t",
            0x2028: "\\u2028", 0x2029: "\\u2029"}
# A message keeps its own line breaks; everything else is escaped as in one_line.
_MESSAGE_ESCAPES = {code: text for code, text in _ESCAPES.items() if code != ord("\n")}


def one_line(text: str) -> str:
    """text on one line: every control character (newline and tab included) escaped. For a
    name quoted in a message, or a table cell."""
    return text.translate(_ESCAPES)


def printable(message: str) -> str:
    """A message as printed: its line breaks kept, every other control character escaped
    (a name quoted without one_line cannot reach the terminal raw)."""
    return message.translate(_MESSAGE_ESCAPES)
