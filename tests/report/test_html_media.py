"""The HTML report's media: data URLs of the types it shows, within its budget, never the declared type as such."""

from __future__ import annotations

import hashlib

from evalkit.report.html_media import media_figures, media_island
from evalkit.schema.results import CaseResult, InvocationRecord, Status
from tests.media.samples import png_bytes

IMAGE = png_bytes()
SHA = hashlib.sha256(IMAGE).hexdigest()


def recorded(mime_type: str, sha: str = SHA, size: int = len(IMAGE)) -> dict:
    return {"role": "user", "parts": [{"text": "hi"}, {"inline_data": {"mime_type": mime_type, "sha256": sha,
                                                                       "size": size}}]}


def case(*contents: dict) -> CaseResult:
    return CaseResult(eval_set_id="s", eval_id="c", status=Status.PASSED,
                      invocations=[InvocationRecord(actual={"user_content": c}) for c in contents])


def test_a_shown_type_becomes_a_data_url_of_its_served_type_once(tmp_path):
    (tmp_path / SHA).write_bytes(IMAGE)
    island = media_island([case(recorded("IMAGE/PNG"), recorded("image/png"))], [tmp_path])
    assert list(island) == [SHA] and island[SHA].startswith("data:image/png;base64,iVBORw0KGgo")
    figure = media_figures(recorded("image/png"))
    assert f'<img data-media="{SHA}" data-type="image/png"' in figure and f"image/png, {len(IMAGE)} B" in figure


def test_a_type_from_the_file_is_never_trusted_as_markup(tmp_path):
    (tmp_path / SHA).write_bytes(IMAGE)
    hostile = 'text/html"><script>alert(1)</script>'
    assert media_island([case(recorded("text/html"), recorded(hostile))], [tmp_path]) == {}
    figure = media_figures(recorded(hostile))
    assert "<script>" not in figure and "data-media" not in figure and "&lt;script&gt;" in figure


def test_media_over_the_budget_or_missing_are_left_out(tmp_path):
    (tmp_path / SHA).write_bytes(IMAGE)
    other = hashlib.sha256(b"gone").hexdigest()
    assert media_island([case(recorded("image/png"))], [tmp_path], budget=len(IMAGE) - 1) == {}
    assert media_island([case(recorded("image/png", other, 4))], [tmp_path]) == {}
