"""Report formats are registry entries: `--report NAME=PATH` writes a built-in, a registered or an
installed format; `--junit FILE` and the like are its short forms; `evalkit report` takes the same."""

from __future__ import annotations

import os

from evalkit.extend import REPORTS, ReportFormat
from tests.conftest import run_evalkit
from tests.coverage.desk_project import write_project
from tests.in_process import invoke_evalkit


def verdict_csv(result) -> str:
    rows = [f"{case.eval_set_id}/{case.eval_id},{case.status}" for case in result.cases]
    return "\n".join(["case,status", *rows, f"run,{'passed' if result.verdict.passed else 'failed'}"]) + "\n"


def test_report_writes_built_in_formats_as_the_short_forms_do(tmp_path):
    evalset = write_project(tmp_path)
    done = invoke_evalkit("run", str(evalset), "--report", f"markdown={tmp_path / 'long.md'}",
                          "--markdown", str(tmp_path / "short.md"), "--report", f"junit={tmp_path / 'r.xml'}",
                          "--json", str(tmp_path / "r.json"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    long, short = (tmp_path / "long.md").read_text(), (tmp_path / "short.md").read_text()
    assert long.split("\n", 1)[1] == short.split("\n", 1)[1] and long.startswith("### evalkit: 3 cases: 3 passed")
    assert (tmp_path / "r.xml").read_text().startswith('<?xml version="1.0"')
    later = invoke_evalkit("report", str(tmp_path / "r.json"), "--report", f"markdown={tmp_path / 'later.md'}",
                           "--html", str(tmp_path / "later.html"), cwd=tmp_path)
    assert later.returncode == 0, later.stderr
    assert (tmp_path / "later.md").read_text() == long
    assert "<!DOCTYPE html>" in (tmp_path / "later.html").read_text()[:100]


def test_a_format_registered_in_process_is_written_by_run_and_report(tmp_path):
    REPORTS.register("verdict-csv-test", ReportFormat(verdict_csv))
    evalset = write_project(tmp_path)
    done = invoke_evalkit("run", str(evalset), "--min-coverage", "0.8", "--report",
                          f"verdict-csv-test={tmp_path / 'r.csv'}", "--json", str(tmp_path / "r.json"), cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr  # the coverage gate: the plug-in sees the verdict
    assert (tmp_path / "r.csv").read_text() == "case,status\ndesk/look,passed\ndesk/book,passed\ndesk/typo,passed\nrun,failed\n"
    again = invoke_evalkit("report", str(tmp_path / "r.json"), "--report", f"verdict-csv-test={tmp_path / 'again.csv'}")
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "again.csv").read_text() == (tmp_path / "r.csv").read_text()


def test_a_format_installed_through_an_entry_point(tmp_path):
    site = tmp_path / "site"
    (site / "tiny_report").mkdir(parents=True)
    (site / "tiny_report" / "__init__.py").write_text(
        "from evalkit.extend import ReportFormat\n\n"
        "def _render(result):\n"
        "    return ''.join(f'{c.eval_id} {c.status}\\n' for c in result.cases)\n\n"
        "LINES = ReportFormat(_render)\n", encoding="utf-8")
    dist_info = site / "tiny_report-1.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: tiny-report\nVersion: 1.0\n", encoding="utf-8")
    (dist_info / "entry_points.txt").write_text("[evalkit.reports]\nlines = tiny_report:LINES\n", encoding="utf-8")
    evalset = write_project(tmp_path)
    env = {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    done = run_evalkit("run", str(evalset), "--report", f"lines={tmp_path / 'r.txt'}", "--quiet", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "r.txt").read_text() == "look passed\nbook passed\ntypo passed\n"


def test_an_unknown_format_or_a_bad_pair_is_exit_2_before_the_run(tmp_path):
    evalset = write_project(tmp_path)
    unknown = invoke_evalkit("run", str(evalset), "--report", f"junitt={tmp_path / 'r.xml'}",
                             "--json", str(tmp_path / "r.json"), cwd=tmp_path)
    assert unknown.returncode == 2, unknown.stdout + unknown.stderr
    assert f"--report junitt={tmp_path / 'r.xml'}: unknown report format 'junitt'; did you mean 'junit'?" in unknown.stderr
    assert "known: junit, markdown, html" in unknown.stderr
    assert not (tmp_path / "r.json").exists()  # nothing ran
    bare = invoke_evalkit("run", str(evalset), "--report", "junit", cwd=tmp_path)
    assert bare.returncode == 2, bare.stdout + bare.stderr
    assert "--report ['junit']: expected NAME=PATH, such as --report junit=report.xml" in bare.stderr


def test_report_and_rescore_and_merge_take_the_option(tmp_path):
    for command in ("report", "rescore", "merge"):
        helped = invoke_evalkit(command, "--help")
        assert "--report NAME=PATH" in helped.stdout and "--junit FILE" in helped.stdout, (command, helped.stdout)
