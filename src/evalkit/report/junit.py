"""The JUnit XML report (`--junit`): what CI servers show as test results.

One `testsuite` per eval set, one `testcase` per eval case (classname = eval set id,
name = eval id). The document follows Apache Ant's JUnit format, the one GitLab,
Jenkins and the GitHub test-report actions all read, and validates against its schema:

- a `failed` case carries one `failure` whose message lists each failing criterion as
  `name score < threshold`, and whose text adds the first difference of each;
- a `not_evaluated` case is a `failure` too (type `not_evaluated`): ADK counts a case
  it could not score as failed, and a CI gate must not turn it green by skipping it;
- an `error` case carries an `error` whose message is the case's error;
- `time` is the case's own duration; a suite's time is the sum over its cases;
- a quarantined case that did not pass (`--quarantine`) is `skipped`, its message saying
  how it ended, so it is reported without failing the build;
- the suite's properties carry each repeated case's runs, stability and 95% interval,
  with `--baseline … --significance` each tested case's p-value, and the run's
  coverage (`coverage_ratio`, `coverage_tools_never_called`, …: docs/coverage.md);
- the run's own gates are test cases of a last suite, `evalkit`: `coverage` (with a coverage
  minimum) and `regressions` (with a baseline), failing when the run's verdict says so, so
  a run that exits 1 on a gate never shows as all green.

Ant's schema allows at most one of `failure`/`error`/`skipped` per test case, and no
attributes on the `testsuites` root (consumers add the suites' counts up themselves).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import datetime, timezone

from evalkit.foundation.timestamps import parse_iso_datetime
from evalkit.report.formats import ReportFormat
from evalkit.report.console import failure_lines, unmatched_tool_lines
from evalkit.report.statistics import case_note, change_line, overall_line, tested_changes
from evalkit.schema.results import CaseResult, CriterionResult, RunResult, Status, total_cost

# Characters XML 1.0 cannot carry at all, even escaped; an agent may well emit them
# (terminal colour codes, NUL bytes), and one of them would make the file unreadable.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def render_junit(result: RunResult) -> str:
    root = ET.Element("testsuites")
    suites = _by_eval_set(result.cases)
    for index, (eval_set_id, cases) in enumerate(suites.items()):
        root.append(_suite(result, index, eval_set_id, cases))
    gates = _gates(result, len(suites))
    if gates is not None:
        root.append(gates)
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _coverage(result: RunResult) -> list[tuple[str, str]]:
    """The run's coverage (docs/coverage.md), on every suite: a suite is an eval set, coverage is the run's."""
    if result.coverage is None:
        return []
    from evalkit.report.coverage_report import junit_properties

    minimum = result.verdict.min_coverage if result.verdict is not None else result.coverage.min_ratio
    return junit_properties(result.coverage, minimum)


def _by_eval_set(cases: list[CaseResult]) -> dict[str, list[CaseResult]]:
    groups: dict[str, list[CaseResult]] = {}
    for case in cases:
        groups.setdefault(case.eval_set_id, []).append(case)
    return groups


def _suite(result: RunResult, index: int, eval_set_id: str, cases: list[CaseResult]) -> ET.Element:
    counted = [case for case in cases if not (case.quarantined and case.status is not Status.PASSED)]
    failures = sum(case.status in (Status.FAILED, Status.NOT_EVALUATED) for case in counted)
    errors = sum(case.status is Status.ERROR for case in counted)
    suite = ET.Element("testsuite", {
        "name": _text(eval_set_id) or "(unnamed eval set)",
        "package": _text(eval_set_id) or "(unnamed eval set)",
        "id": str(index),
        "tests": str(len(cases)),
        "failures": str(failures),
        "errors": str(errors),
        "skipped": str(len(cases) - len(counted)),
        "time": _seconds(sum(case.duration_s or 0.0 for case in cases)),
        "timestamp": _timestamp(result.started_at),
        # The result file does not record the machine; Ant's schema names this fallback.
        "hostname": "localhost",
    })
    properties = ET.SubElement(suite, "properties")
    source_files = sorted({case.source_file for case in cases if case.source_file})
    cost = total_cost(cases)
    priced = [("cost", f"{cost:.6f}")] if cost is not None else []
    for name, value in [("evalkit_version", result.evalkit_version), *(("source_file", f) for f in source_files),
                        *priced, *_statistics(result, cases), *_coverage(result)]:
        ET.SubElement(properties, "property", {"name": name, "value": _text(value)})
    for case in cases:
        suite.append(_testcase(case))
    ET.SubElement(suite, "system-out").text = ""
    ET.SubElement(suite, "system-err").text = ""
    return suite


def _gates(result: RunResult, index: int) -> ET.Element | None:
    """The run's own gates as test cases of a suite `evalkit`: `coverage` when the run had a coverage
    minimum, `regressions` when it was compared with a baseline, `budget` when it had one (`--max-cost`,
    ...); each fails as the exit code did."""
    verdict = result.verdict
    if verdict is None:
        return None
    gated = [*(["coverage"] if verdict.min_coverage is not None and result.shard is None else []),
             *(["regressions"] if result.comparison is not None else []),
             *(["budget"] if result.budget is not None else [])]
    if not gated:
        return None
    failed = {failure.gate: failure.message for failure in verdict.failures}
    suite = ET.Element("testsuite", {
        "name": "evalkit", "package": "evalkit", "id": str(index), "tests": str(len(gated)),
        "failures": str(sum(gate in failed for gate in gated)), "errors": "0", "skipped": "0", "time": "0.000",
        "timestamp": _timestamp(result.started_at), "hostname": "localhost"})
    ET.SubElement(suite, "properties")
    for gate in gated:
        case = ET.SubElement(suite, "testcase", {"classname": "evalkit", "name": gate, "time": "0.000"})
        if gate in failed:
            failure = ET.SubElement(case, "failure", {"type": gate, "message": _text(failed[gate])})
            failure.text = _text(failed[gate])
    ET.SubElement(suite, "system-out").text = ""
    ET.SubElement(suite, "system-err").text = ""
    return suite


def _testcase(case: CaseResult) -> ET.Element:
    element = ET.Element("testcase", {
        "classname": _text(case.eval_set_id) or "(unnamed eval set)",
        "name": _text(case.eval_id) or "(unnamed case)",
        "time": _seconds(case.duration_s or 0.0),
    })
    # The body a CI server shows under the test: why it did not pass, with the agent's
    # traceback or a worker's last stderr lines (`error_detail`) and the tool calls no fake
    # matched. Ant's schema gives a test case no output element of its own.
    body = "\n".join(failure_lines([case], debug=True) + unmatched_tool_lines([case]))
    note = case_note(case)
    if note and case.status is not Status.PASSED:
        body = f"{case.status} {note}\n{body}"
    if case.quarantined and case.status is not Status.PASSED:
        # Run and reported, but not to turn the build red: CI servers count `skipped` apart.
        skipped = ET.SubElement(element, "skipped", {"message": _text(f"quarantined: {case.status} {note}".strip())})
        skipped.text = _text(body)
    elif case.status is Status.ERROR:
        error = ET.SubElement(element, "error", {"type": "error", "message": _text(_error_message(case))})
        error.text = _text(body or _error_message(case))
    elif case.status is Status.FAILED:
        failing = [c for c in case.criteria if c.status is Status.FAILED]
        failure = ET.SubElement(element, "failure", {"type": "failed", "message": _text(_failure_message(failing))})
        failure.text = _text(body)
    elif case.status is Status.NOT_EVALUATED:
        names = ", ".join(c.name for c in case.criteria if c.status is Status.NOT_EVALUATED)
        message = f"not evaluated: {names}" if names else "not evaluated: no criterion could score this case"
        failure = ET.SubElement(element, "failure", {"type": "not_evaluated", "message": _text(message)})
        failure.text = _text(body or message)
    return element


def _statistics(result: RunResult, cases: list[CaseResult]) -> list[tuple[str, str]]:
    """Suite properties: each repeated case's stability and interval, each quarantined case,
    and with `--baseline … --significance` the p-values of this suite's tested cases."""
    names = {(case.eval_set_id, case.eval_id) for case in cases}
    properties = [(f"repeat:{case.eval_id}", case_note(case)) for case in cases if case.repeat is not None]
    properties += [(f"quarantined:{case.eval_id}", str(case.status)) for case in cases if case.quarantined]
    properties += [(f"p_value:{change.eval_id}", change_line(change)) for change in tested_changes(result)
                   if (change.eval_set_id, change.eval_id) in names]
    overall = overall_line(result)
    return properties + ([("significance", overall)] if overall else [])


def _failure_message(failing: list[CriterionResult]) -> str:
    """`name score < threshold` for each failing criterion: the line CI servers show first."""
    parts = []
    for criterion in failing:
        score = "n/a" if criterion.score is None else f"{criterion.score:.4g}"
        threshold = "" if criterion.threshold is None else f" < {criterion.threshold:g}"
        parts.append(f"{criterion.name} {score}{threshold}")
    return "; ".join(parts) or "failed"


def _error_message(case: CaseResult) -> str:
    if case.error:
        return case.error
    broken = [f"{c.name}: {c.error or 'error'}" for c in case.criteria if c.status is Status.ERROR]
    return "; ".join(broken) or "error"


def _text(value: str | None) -> str:
    if value is None:
        return ""
    return _NOT_XML.sub(lambda match: ascii(match.group())[1:-1], value)


def _seconds(value: float) -> str:
    return f"{max(value, 0.0):.3f}"


def _timestamp(started_at: str) -> str:
    """Ant's timestamp: ISO 8601 to the second, without a zone (so: UTC)."""
    try:
        moment = parse_iso_datetime(started_at)
    except ValueError:
        moment = datetime.now(timezone.utc)
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


JUNIT = ReportFormat(render_junit)  # registered by name in report/formats.py
