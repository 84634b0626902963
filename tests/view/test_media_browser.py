"""A case's image and sound, seen in headless Chromium: in `evalkit view`, its `--export` and the HTML report.

The run keeps them by hash in `.evalkit/media/` and its result file refers to them by hash;
the viewer serves them from there, the report holds them as data URLs. The image must
decode (`naturalWidth > 0`) and the sound load (`duration > 0`); a script in the user's
text stays text.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, run_evalkit
from tests.in_process import invoke_evalkit
from tests.media.samples import HEADS, png_bytes, wav_bytes
from tests.media.evalsets import inline_part
from tests.view.conftest import screenshot
from tests.view.support import HOSTILE, ViewServer

IMAGE, SOUND = png_bytes(64, 48, rgb=(30, 120, 200)), wav_bytes(frames=4000)
SCREENSHOTS = Path(__file__).parent  # overridden by EVALKIT_VIEW_SCREENSHOTS through `screenshot`


def media_run(folder: Path, sound_type: str = "audio/wav") -> dict[str, Any]:
    """A run of one case whose user shows an image and a sound (and a script, as text) to an echo agent;
    the sound declared `sound_type`."""
    case = {"eval_id": "photo", "conversation": [{
        "user_content": {"role": "user", "parts": [{"text": f"What is in this picture? {HOSTILE}"},
                                                   inline_part(IMAGE, "image/png"), inline_part(SOUND, sound_type)]},
        "final_response": {"role": "model", "parts": [{"text": "A blue square."}]}}]}
    (folder / "media.evalset.json").write_text(json.dumps({"eval_set_id": "media", "eval_cases": [case]}))
    done = invoke_evalkit("run", "media.evalset.json", "--agent", f"{ROOT}/tests/fixtures/agents_py/agents.py:echo",
                       "--json", "result.json", "--html", "report.html", "--quiet", cwd=folder,
                       env={"EVALKIT_RUNS_DIR": str(folder / ".evalkit" / "runs")})
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return json.loads((folder / "result.json").read_text())


@contextmanager
def static_server(folder: Path) -> Iterator[str]:
    """`folder` served by the standard library's plain file server, as an exported view is meant to be."""
    handler = partial(SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *args: None  # type: ignore[method-assign]
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def check_media(page: Any) -> None:
    image, audio = page.locator("figure.medium img").first, page.locator("figure.medium audio").first
    image.scroll_into_view_if_needed()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
    assert image.evaluate("img => [img.naturalWidth, img.naturalHeight]") == [64, 48]
    page.wait_for_function("a => a.readyState >= 1 && a.duration > 0", arg=audio.element_handle())
    assert abs(audio.evaluate("a => a.duration") - 0.5) < 0.05
    assert page.evaluate("window.__pwned") is None
    assert page.get_by_text(HOSTILE).count() >= 1  # the script as the user wrote it, shown as text


def test_the_run_keeps_media_by_hash_and_the_viewer_shows_and_plays_them(page: Any, tmp_path: Path):
    result = media_run(tmp_path)
    text = (tmp_path / "result.json").read_text()
    assert "iVBORw0KGgo" not in text and "UklGR" not in text  # no base64 PNG or WAV in the result file
    parts = result["cases"][0]["invocations"][0]["actual"]["user_content"]["parts"]
    blobs = [part["inline_data"] for part in parts[1:]]
    assert [(b["mime_type"], b["size"]) for b in blobs] == [("image/png", len(IMAGE)), ("audio/wav", len(SOUND))]
    media = tmp_path / ".evalkit" / "media"
    assert [(media / b["sha256"]).read_bytes() for b in blobs] == [IMAGE, SOUND]
    assert sorted(p.name for p in media.iterdir()) == sorted(b["sha256"] for b in blobs)  # each once
    with ViewServer(cwd=tmp_path) as server:
        page.goto(server.url)
        page.locator("table.runs tbody tr").first.locator("td:nth-child(2) a").click()
        page.get_by_text("media/photo").click()
        check_media(page)
        screenshot(page, "media-case")
        page.screenshot(path=str(tmp_path / "viewer-media.png"), full_page=True)
        served = page.request.get(f"{server.url.rstrip('/')}/api/media/{blobs[0]['sha256']}?type=image/png")
        assert (served.status, served.headers["content-type"], served.body()) == (200, "image/png", IMAGE)
        assert served.headers["x-content-type-options"] == "nosniff"
        refused = page.request.get(f"{server.url.rstrip('/')}/api/media/{blobs[0]['sha256']}?type=text/html")
        assert refused.status == 404  # a declared type the viewer does not show is never served


@pytest.mark.parametrize("sound_type", ["audio/wav", "audio/vnd.wave"])  # an alias plays as its usual type
def test_the_html_report_holds_the_media_and_plays_them(page: Any, tmp_path: Path, sound_type: str):
    media_run(tmp_path, sound_type)
    report = (tmp_path / "report.html").read_text()
    assert "<script>window.__pwned" not in report
    page.goto((tmp_path / "report.html").as_uri())
    page.click("#expand-all")
    check_media(page)
    page.screenshot(path=str(tmp_path / "report-media.png"), full_page=True)


def test_an_exported_view_carries_the_media_and_shows_them_from_a_static_server(page: Any, tmp_path: Path):
    result = media_run(tmp_path)
    blobs = [part["inline_data"] for part in result["cases"][0]["invocations"][0]["actual"]["user_content"]["parts"][1:]]
    done = run_evalkit("view", "--export", "site", cwd=tmp_path, env={"EVALKIT_RUNS_DIR": str(tmp_path / ".evalkit" / "runs")})
    assert done.returncode == 0, done.stdout + done.stderr
    site = tmp_path / "site"
    [case_file] = site.glob("data/runs/*/cases/0.json")
    exported = json.loads(case_file.read_text())["case"]
    assert [b["sha256"] for b in blobs] == [part["inline_data"]["sha256"] for part in
                                            exported["invocations"][0]["actual"]["user_content"]["parts"][1:]]
    assert [(site / "data" / "media" / b["sha256"]).read_bytes() for b in blobs] == [IMAGE, SOUND]
    with static_server(site) as url:
        page.goto(url)
        page.locator("table.runs tbody tr").first.locator("td:nth-child(2) a").click()
        page.get_by_text("media/photo").click()
        check_media(page)
        screenshot(page, "media-export")


def test_an_export_from_another_folder_finds_the_media_beside_the_runs_it_names(tmp_path: Path):
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    result = media_run(project)
    hashes = [part["inline_data"]["sha256"] for part in result["cases"][0]["invocations"][0]["actual"]["user_content"]["parts"][1:]]
    for named, site in ((project / ".evalkit" / "runs", "from-history"), (project / "result.json", "from-result")):
        done = run_evalkit("view", str(named), "--export", site, cwd=elsewhere)
        assert done.returncode == 0 and "warning" not in done.stderr, done.stdout + done.stderr
        assert [(elsewhere / site / "data" / "media" / sha256).read_bytes() for sha256 in hashes] == [IMAGE, SOUND]
    (project / ".evalkit" / "media" / hashes[0]).write_bytes(b"not the image any more")  # corrupt: not copied
    done = run_evalkit("view", str(project / "result.json"), "--export", "broken", cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    assert "warning: 1 media the runs show are in no media folder" in done.stderr
    assert str(project / ".evalkit" / "media") in done.stderr and "then export again" in done.stderr
    assert not (elsewhere / "broken" / "data" / "media" / hashes[0]).exists()
    assert (elsewhere / "broken" / "data" / "media" / hashes[1]).read_bytes() == SOUND
    (project / ".evalkit" / "media" / hashes[0]).write_bytes(IMAGE)
    (elsewhere / "from-result" / "data" / "media" / hashes[0]).write_bytes(bytes(len(IMAGE)))  # damaged in the copy
    done = run_evalkit("view", str(project / "result.json"), "--export", "from-result", cwd=elsewhere)
    assert done.returncode == 0 and "warning" not in done.stderr, done.stderr
    assert (elsewhere / "from-result" / "data" / "media" / hashes[0]).read_bytes() == IMAGE  # written again


HEIC = HEADS["image/heic"]


def unlisted_run(folder: Path) -> list[str]:
    """A run of one case whose user shows a PNG (a type the page shows) and a HEIC image (one it does not); their
    hashes."""
    case = {"eval_id": "photo", "conversation": [{
        "user_content": {"role": "user", "parts": [{"text": "Two photos"}, inline_part(IMAGE, "image/png"),
                                                   inline_part(HEIC, "image/heic")]},
        "final_response": {"role": "model", "parts": [{"text": "Two photos"}]}}]}
    (folder / "media.evalset.json").write_text(json.dumps({"eval_set_id": "media", "eval_cases": [case]}))
    done = invoke_evalkit("run", "media.evalset.json", "--agent", f"{ROOT}/tests/fixtures/agents_py/agents.py:echo",
                       "--json", "result.json", "--quiet", cwd=folder,
                       env={"EVALKIT_RUNS_DIR": str(folder / ".evalkit" / "runs")})
    assert done.returncode in (0, 1), done.stdout + done.stderr
    parts = json.loads((folder / "result.json").read_text())["cases"][0]["invocations"][0]["actual"]["user_content"]
    return [part["inline_data"]["sha256"] for part in parts["parts"][1:]]


@contextmanager
def viewer(mode: str, folder: Path) -> Iterator[str]:
    """The runs of `folder` in the live viewer, or exported and served by a plain static file server."""
    if mode == "live":
        with ViewServer(cwd=folder) as server:
            yield server.url
        return
    done = run_evalkit("view", "--export", "site", cwd=folder, env={"EVALKIT_RUNS_DIR": str(folder / ".evalkit" / "runs")})
    assert done.returncode == 0, done.stdout + done.stderr
    with static_server(folder / "site") as url:
        yield url


@pytest.mark.parametrize("mode", ["live", "export"])
def test_a_type_the_page_does_not_show_is_a_file_to_download_in_the_viewer_and_its_export(page: Any, tmp_path: Path,
                                                                                          mode: str):
    png, heic = unlisted_run(tmp_path)
    with viewer(mode, tmp_path) as url:
        page.goto(url)
        page.locator("table.runs tbody tr").first.locator("td:nth-child(2) a").click()
        page.get_by_text("media/photo").click()
        figures = page.locator("figure.medium")
        figures.first.wait_for()
        assert figures.count() == 2
        image = figures.nth(0).locator("img")
        page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
        assert png in image.get_attribute("src")
        assert page.locator("figure.medium img").count() == 1  # the HEIC is no image element, broken or not
        link = figures.nth(1).locator("a.download")
        assert link.get_attribute("download") == f"{heic[:16]}.heic"
        assert "image/heic" in figures.nth(1).inner_text()
        with page.expect_download() as started:
            link.click()
        saved = tmp_path / "saved.heic"
        started.value.save_as(saved)
        assert saved.read_bytes() == HEIC and started.value.suggested_filename == f"{heic[:16]}.heic"
        screenshot(page, f"media-unlisted-{mode}")
        page.screenshot(path=str(tmp_path / f"unlisted-{mode}.png"), full_page=True)
