"""Long lines on a terminal, wrapped under themselves: a hanging indent instead of a ragged left edge.

A pipe or a log keeps each line whole (grep finds it); a terminal narrower than a line
gets it wrapped at spaces, its continuation indented past the line's own indent.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

_MIN_TEXT_WIDTH = 20  # below this, wrapping helps no one: the line is printed as it is
HANG = 4  # how much further than its line a continuation is indented


def print_hanging(console: Console, line: str | Text, hang: int = HANG) -> None:
    """Print each physical line of `line`; on a terminal, wrap it with a hanging indent."""
    text = Text(line) if isinstance(line, str) else line
    for physical in text.split("\n"):
        if not console.is_terminal:
            console.print(physical, highlight=False, soft_wrap=True)
            continue
        plain = physical.plain
        indent = len(plain) - len(plain.lstrip(" "))
        width = console.width - indent - hang
        if width < _MIN_TEXT_WIDTH or len(plain) <= console.width:
            console.print(physical, highlight=False, soft_wrap=True)
            continue
        body = physical[indent:]
        first = body.wrap(console, console.width - indent)[0]  # the first line has the room of its indent
        first.rstrip()
        console.print(Text(" " * indent) + first, highlight=False, soft_wrap=True)
        start = len(first.plain)
        start += len(body.plain[start:]) - len(body.plain[start:].lstrip(" "))
        for piece in body[start:].wrap(console, width):
            piece.rstrip()
            console.print(Text(" " * (indent + hang)) + piece, highlight=False, soft_wrap=True)
