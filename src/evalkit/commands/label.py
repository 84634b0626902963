"""`evalkit label RESULT --labels FILE`: label the judged cases of a run in the terminal (docs/criteria.md)."""

from __future__ import annotations

from pathlib import Path

from evalkit.errors import ExitCode, InputError, Problem


def label_command(result_file: Path, labels_file: Path, *, criteria: list[str], again: bool = False) -> int:
    from evalkit.calibration.judged import read_results
    from evalkit.calibration.labels import load_labels
    from evalkit.calibration.walk import TerminalKeys, walk
    from evalkit.report.console import make_console

    earlier = {label.key: label for label in load_labels(labels_file)}
    judged = [item for item in read_results([result_file]).values() if item.is_judged and item.verdict is not None]
    names = {item.result.name for item in judged}
    unknown = [name for name in criteria if name not in names]
    if unknown:
        listed = ", ".join(sorted(names)) or "none"
        raise InputError(Problem(str(result_file), "", f"no judged criterion {unknown[0]!r} with a verdict here "
                                 f"(judged: {listed}); pass one of those to --criterion"))
    if criteria:
        judged = [item for item in judged if item.result.name in criteria]
    if not judged:
        raise InputError(Problem(str(result_file), "", "no judged case with a verdict to label; run an eval with an "
                                 "LLM-judge criterion (docs/criteria.md) and pass its result file"))
    waiting = judged if again else [item for item in judged if item.key not in earlier]
    console = make_console()

    def say(line: str) -> None:
        console.print(line, markup=False, highlight=False, soft_wrap=True)

    if not waiting:
        say(f"all {len(judged)} judged case(s) are labelled in {labels_file}; --again shows them once more")
        return ExitCode.OK
    say(f"{len(waiting)} judged case(s) to label ({len(judged) - len(waiting)} labelled before); "
        f"answers are saved to {labels_file} as you go")
    try:
        summary = walk(waiting, labels_file, TerminalKeys(), say, earlier)
    except KeyboardInterrupt:
        say(f"\nstopped; the answers given are saved in {labels_file}: run the same command to go on")
        return ExitCode.INTERRUPTED
    left = f", {summary.left} left for next time (run the same command to go on)" if summary.left else ""
    say(f"{summary.labelled} labelled, {summary.skipped} skipped{left}; "
        f"then: evalkit calibrate {result_file} --labels {labels_file}")
    return ExitCode.OK
