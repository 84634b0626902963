"""`evalkit view` on a large run and a long history, timed in headless Chromium.

    python benchmarks/bench_view.py [--cases 10000] [--runs 200]

Builds a history of RUNS result files and one result file of CASES cases, both shaped
like real ones (each case copies a case of a real run of the README's demo, two turns,
with its ids and texts changed; a fifth fail), then starts `evalkit view` on both and
opens, in headless Chromium (Playwright driving /usr/bin/chromium), the runs list and the
large run's page, each in a fresh tab: the time from navigation to the first row shown,
the first time (the server reads the files then) and again. Prints the viewer's resident
memory after both pages (and its peak), as a Markdown table.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync"]


def demo_case(workdir: Path) -> dict:
    """A failed case of a real run of the demo (the regressed agent), as the result file keeps it."""
    shutil.copytree(ROOT / "evalsets", workdir / "demo" / "evalsets", ignore=shutil.ignore_patterns("cassettes", "llm_*"))
    shutil.copytree(ROOT / "examples" / "weather_agent", workdir / "demo" / "examples" / "weather_agent")
    subprocess.run([sys.executable, "-m", "evalkit", "run", "evalsets/weather.evalset.json", "--quiet", "--agent",
                    "examples/weather_agent/regressed_agent.py:weather_agent", "--json", "demo.json"],
                   cwd=workdir / "demo", env={**os.environ, "EVALKIT_HISTORY_LIMIT": "0"}, capture_output=True,
                   check=False)
    cases = json.loads((workdir / "demo" / "demo.json").read_text())["cases"]
    return next(case for case in cases if case["eval_id"] == "london_then_tokyo")  # two turns


def write_run(path: Path, template: dict, cases: int, started_at: str, set_id: str) -> None:
    built = []
    for index in range(cases):
        case = copy.deepcopy(template)
        case["eval_set_id"], case["eval_id"] = set_id, f"case_{index:05d}"
        failed = index % 5 == 0
        case["status"] = "failed" if failed else "passed"
        for criterion in case["criteria"]:
            if criterion["status"] in ("passed", "failed"):
                criterion["status"] = case["status"]
                criterion["score"] = 0.0 if failed else 1.0
        for record in case["invocations"]:
            record["actual"]["final_response"]["parts"][0]["text"] += f" (case {index})"
        built.append(case)
    summary = {"cases": cases, "passed": cases - len(built[::5]), "failed": len(built[::5]), "not_evaluated": 0,
               "errors": 0, "flaky": 0}
    document = {"evalkit_version": "0.1.0", "started_at": started_at, "duration_s": 12.5, "summary": summary,
                "cases": built, "agent": "examples/weather_agent/agent.py:weather_agent",
                "git": {"commit": "0" * 40, "branch": "main"}}
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")


def memory_mb(pid: int) -> tuple[float, float]:
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


# Notes, in the page's own clock, when the first row is in the document (from navigation start).
WATCH = """
new MutationObserver((changes, observer) => {
  if (document.querySelector(%s)) { window.__firstRowMs = performance.now(); observer.disconnect(); }
}).observe(document, {childList: true, subtree: true});
"""


def first_row(browser, url: str, selector: str) -> float:
    """Seconds from the start of the navigation to the first row in the page."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.add_init_script(WATCH % json.dumps(selector))
    page.goto(url)
    page.wait_for_selector(selector, timeout=60_000)
    elapsed = page.evaluate("window.__firstRowMs") / 1000
    page.close()
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--workdir", type=Path, help="keep the files here (default: a temporary folder)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="evalkit-bench-view-"))
    template = demo_case(workdir)
    history = workdir / "runs"
    history.mkdir(parents=True, exist_ok=True)
    for number in range(args.runs):
        write_run(history / f"run-{number:04d}.json", template, 3, f"2026-01-01T00:{number // 60:02d}:{number % 60:02d}+00:00",
                  "weather")
    big = workdir / "big.json"
    write_run(big, template, args.cases, "2026-02-01T00:00:00+00:00", "big")
    size_mb = big.stat().st_size / 1e6

    started = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "evalkit", "view", "--no-open", "--port", "0", str(history), str(big)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.append(server.stdout.readline()), daemon=True)
    reader.start()
    reader.join(60)
    url = lines[0].split()[-1]
    up = time.perf_counter() - started
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
            run_first = first_row(browser, url + "#/run/big", "#cases tbody tr")
            run_again = first_row(browser, url + "#/run/big", "#cases tbody tr")
            list_first = first_row(browser, url, "table.runs tbody tr")
            list_again = first_row(browser, url, "table.runs tbody tr")
            browser.close()
        rss, peak = memory_mb(server.pid)
    finally:
        server.terminate()
        server.wait(10)
    print("| what | first time | again |\n|---|---:|---:|")
    print(f"| {args.cases:,}-case run ({size_mb:.0f} MB file): first cases shown | {run_first:.2f} s | {run_again:.2f} s |")
    print(f"| runs list of {args.runs + 1} runs: first row shown | {list_first:.2f} s | {list_again:.2f} s |")
    print(f"\nserver up (first line printed) in {up:.2f} s; viewer memory after both pages: "
          f"{rss:.0f} MB resident, {peak:.0f} MB peak")
    return 0


if __name__ == "__main__":
    sys.exit(main())
