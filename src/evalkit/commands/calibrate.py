"""`evalkit calibrate RESULT... --labels FILE [--json OUT] [--min-kappa K]` (docs/criteria.md, "Trusting a judge").

Exit 0, or 1 when a criterion's κ is below K (or undefined); exit 2 when a label names
a case or criterion the results do not have, or a file is malformed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from evalkit.errors import ExitCode, InputError, Problem, UsageError


def calibrate_command(results: list[Path], labels_file: Path, *, json_out: Path | None = None,
                      min_kappa: float | None = None) -> int:
    from evalkit.calibration.judged import read_results
    from evalkit.calibration.labels import load_labels
    from evalkit.calibration.report import calibrate, report_lines, to_json, warnings
    from evalkit.report.console import make_console

    if min_kappa is not None and not -1.0 <= min_kappa <= 1.0:
        raise UsageError(f"--min-kappa {min_kappa:g}: κ lies between -1 and 1; give a bound in that range")
    labels = load_labels(labels_file)
    if not labels:
        raise InputError(Problem(str(labels_file), "", "no labels yet: label judged cases first with "
                                 f"`evalkit label RESULT --labels {labels_file}`"))
    calibrations = calibrate(read_results(results), labels, str(labels_file))
    console = make_console()
    for calibration in calibrations:
        for line in report_lines(calibration):
            console.print(line, highlight=False, soft_wrap=True)
    for calibration in calibrations:
        for warning in warnings(calibration):
            print(f"evalkit: warning: {warning}", file=sys.stderr)
    if json_out is not None:
        from evalkit.foundation.files import write_run_file

        write_run_file(json_out, json.dumps(to_json(calibrations), indent=2) + "\n")
    if min_kappa is None:
        return ExitCode.OK
    below = [c for c in calibrations if c.confusion.kappa is None or c.confusion.kappa < min_kappa]
    for calibration in below:
        kappa = calibration.confusion.kappa
        shown = f"κ {kappa:.2f} is below" if kappa is not None else "κ is undefined, so not at least"
        print(f"evalkit: {calibration.name}: {shown} --min-kappa {min_kappa:g}; improve the judge (rubric, "
              "judge_model or num_samples) or label more cases", file=sys.stderr)
    return ExitCode.FAILED if below else ExitCode.OK
