"""Safe markup for the HTML report: every plain string is escaped on its way in.

`Html` marks text that is already safe; `el` builds a tag whose plain-string children
(and attribute values) it escapes, so untrusted text from eval sets, agents and judges
can only ever appear as text (docs/architecture.md, the HTML report).
"""

from __future__ import annotations

from html import escape
from typing import Any

_VOID = {"input", "meta", "link", "br", "hr", "img"}


class Html(str):
    """Markup that is already safe: escaped text and tags built by `el`."""


def el(tag: str, *children: Any, **attributes: Any) -> Html:
    """`<tag attributes>children</tag>`; plain strings among the children are escaped."""
    attrs = ""
    for key, value in attributes.items():
        if value is None or value is False:
            continue
        name = key.rstrip("_").replace("_", "-")
        attrs += f" {name}" if value is True else f' {name}="{escape(str(value), quote=True)}"'
    if tag in _VOID:
        return Html(f"<{tag}{attrs}>")
    return Html(f"<{tag}{attrs}>{join(children)}</{tag}>")


def join(children: Any) -> Html:
    """The children side by side (nested lists flattened, None skipped), plain strings escaped."""
    parts: list[str] = []
    for child in children:
        if child is None:
            continue
        if isinstance(child, (list, tuple)):
            parts.append(join(child))
        else:
            parts.append(child if isinstance(child, Html) else escape(str(child), quote=True))
    return Html("".join(parts))
