"""One headless Chromium for the viewer's browser tests, driven by Playwright (the system's browser)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.view.support import ViewServer

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Module-scoped: Playwright's sync API keeps an event loop running in this thread while it
    is open, which would stop the async tests that run after this module in the same process."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} not found; install it with: apt-get update && apt-get install -y chromium "
                    "(.ci/run does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page that fails the test on any script error or console error, and any dialog."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    problems: list[tuple[float, str]] = []

    def problem(text: str) -> None:
        problems.append((time.monotonic(), text))

    tab.on("pageerror", lambda error: problem(f"script error: {error}"))
    tab.on("console", lambda message: problem(f"console: {message.text}") if message.type == "error" else None)
    tab.on("dialog", lambda dialog: (problem(f"dialog: {dialog.message}"), dialog.dismiss()))
    tab.problems = problems
    yield tab
    context.close()
    # The browser's own line for a request nobody answered, once the test has stopped the
    # server, is not the page's fault; anything else is.
    assert [text for when, text in problems
            if not (when >= ViewServer.stopped_at and "ERR_CONNECTION_REFUSED" in text)] == []


def screenshot(tab: Any, name: str) -> None:
    """Keep a screenshot at 1280 and at a phone's width when EVALKIT_VIEW_SCREENSHOTS names a folder."""
    folder = os.environ.get("EVALKIT_VIEW_SCREENSHOTS")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(Path(folder) / f"{name}-1280.png"), full_page=True)
    tab.set_viewport_size({"width": 400, "height": 800})
    tab.screenshot(path=str(Path(folder) / f"{name}-400.png"), full_page=True)
    tab.set_viewport_size({"width": 1280, "height": 900})
