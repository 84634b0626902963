"""The images and sounds of the HTML report: inlined as data URLs, up to a budget.

The report is one file that works wherever it is opened or attached (a CI artifact, an
e-mail) and its Content-Security-Policy allows no network, so media go into the page itself
rather than being linked from `.evalkit/media/`: each distinct medium once, in a JSON island
(`<script type="application/json" id="media">`), which the page's script puts into the
`src` of the `<img>`, `<audio>` and `<video>` elements that name its hash. Media beyond
`REPORT_MEDIA_BUDGET_BYTES` in all, of a type the page does not show, or missing from the
media folder are named with their type, size and hash instead (docs/media.md, "Seeing media").

A data URL's type is the one `results/media_folder.py` serves the declared type as, never
the declared text itself: a file saying `text/html` is not shown at all.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from evalkit.defaults import REPORT_MEDIA_BUDGET_BYTES
from evalkit.report.html_markup import Html, el
from evalkit.results.media_folder import media_refs, read_media_from, shown_as
from evalkit.schema.results import CaseResult


def media_figures(content: Any) -> Html | None:
    """A recorded Content's media, each a figure: its player (filled in by the script) and its caption."""
    figures = []
    for ref in media_refs(content):
        about = ref.mime_type or "unknown type"
        if ref.size is not None:
            about += f", {_size(ref.size)}"
        shown = shown_as(ref.mime_type)
        player = None
        if shown is not None:
            tag = shown[0]
            attributes: dict[str, Any] = {"alt": about} if tag == "img" else {"controls": True, "preload": "metadata"}
            player = el(tag, data_media=ref.sha256, data_type=shown[1], title=about, **attributes)
        figures.append(el("figure", player, el("figcaption", about), class_="medium"))
    return el("div", figures, class_="media") if figures else None


def media_island(cases: Iterable[CaseResult], folders: list[Path],
                 budget: int = REPORT_MEDIA_BUDGET_BYTES) -> dict[str, str]:
    """sha256 → data URL of each medium the cases show, in the order met, while the budget lasts
    (read from the first of `folders` that holds it)."""
    urls: dict[str, str] = {}
    spent = 0
    for case in cases:
        for record in case.invocations:
            for side in (record.actual, record.expected):
                for content in _contents(side):
                    for ref in media_refs(content):
                        shown = shown_as(ref.mime_type)
                        if shown is None or ref.sha256 in urls or (ref.size or 0) + spent > budget:
                            continue
                        data = read_media_from(folders, ref.sha256)
                        if data is None or spent + len(data) > budget:
                            continue
                        spent += len(data)
                        urls[ref.sha256] = f"data:{shown[1]};base64,{base64.b64encode(data).decode('ascii')}"
    return urls


def _contents(side: dict[str, Any] | None) -> list[Any]:
    return [] if side is None else [side.get("user_content"), side.get("final_response")]


def _size(n: int) -> str:
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KB" if n < 1024 * 1024 else f"{n / 1024 / 1024:.1f} MB"
