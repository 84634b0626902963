"""`evalkit report RESULT.json`: render a saved result in any registered report format.

The files are written by `evalkit.report.writing`, as `evalkit run` writes them, so a
report rendered later is byte for byte the one the run would have written (its verdict
included: the result file holds it).
"""

from __future__ import annotations

from pathlib import Path

from evalkit.settings import FinishSettings


def report_command(result_file: Path, finish: FinishSettings) -> int:
    """Write each asked-for report; with none asked for, print the console table instead."""
    from evalkit.finish import Finish
    from evalkit.report.writing import write_report_files
    from evalkit.results.reader import read_result

    Finish.plan(finish)  # the paths and the format names, before the result is read
    result = read_result(result_file)
    if not finish.report_files:
        from evalkit.report.console import make_console, render

        render(result, make_console())
        return 0
    from evalkit.results.media_folder import media_also_in, media_folders_near

    with media_also_in(media_folders_near(result_file)):  # a result kept elsewhere: its media are beside it
        write_report_files(result, finish.report_files)
    return 0
