"""`FinishSettings`: what a finished run writes, compares with and gates on, declared once.

The run's outputs and gates (evalkit.finish) read these; `evalkit run` takes every
one as a flag, `rescore` and `merge` the ones that apply to them (evalkit.cli.options).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from evalkit.settings.declaration import Needs, Setting, declared, settings_of
from evalkit.settings.values import Reports

GATE_THRESHOLDS, GATE_REGRESSIONS, GATE_BOTH = "thresholds", "regressions", "both"
SHORT_FORMS = ("junit", "markdown", "html")  # `--junit FILE` is `--report junit=FILE`: field name = format name
Gate = Literal["thresholds", "regressions", "both"]


class FinishSettings(BaseModel):
    """The outputs of one run, its baseline and its gates. Frozen, like the run's settings."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    json_out: Annotated[Path | None, Setting("--json", "Write the result file here", "FILE", parsed_as=Path)] = None
    junit: Annotated[Path | None, Setting("--junit", "Write a JUnit XML report here", "FILE", parsed_as=Path)] = None
    markdown: Annotated[Path | None, Setting(
        "--markdown", "Write a Markdown summary here", "FILE", parsed_as=Path)] = None
    html: Annotated[Path | None, Setting(
        "--html", "Write a self-contained HTML report here", "FILE", parsed_as=Path)] = None
    reports: Annotated[Reports, Setting(
        "--report", "Write a report of format NAME to PATH (repeatable): junit, markdown, html or a plug-in's "
        "(docs/extending.md); --junit FILE is --report junit=FILE", "NAME=PATH",
        "expected NAME=PATH, such as --report junit=report.xml", repeatable=True)] = ()
    quiet: Annotated[bool, Setting("--quiet", "Print only the summary line", aliases=("-q",))] = False
    detailed: Annotated[bool, Setting(
        "--print_detailed_results", "Also list every criterion of every turn (ADK's option)")] = False

    baseline: Annotated[str | None, Setting(
        "--baseline", "Compare with an earlier result file (evalkit's or ADK's), 'last' for the previous run, or "
        "'history' for the last 20 runs pooled (history:N for N); regressions exit 1",
        "FILE|last|history[:N]")] = None
    tolerance: Annotated[float | None, Setting(
        "--tolerance", "With --baseline: a score may drop this much before it counts as a regression (default 0)",
        "DELTA", "a score drop allowance cannot be negative", parsed_as=float, needs=Needs("baseline", "{baseline}", "add {baseline} FILE (or last)"))] = Field(default=None, ge=0)
    significance: Annotated[float | None, Setting(
        "--significance", "With --baseline: count a regression only when it is significant at LEVEL, such as 0.05",
        "LEVEL", "expected a level above 0 and below 1, such as 0.05", parsed_as=float, needs=Needs(
            "baseline", "{baseline}", "add {baseline} FILE (or last)", "compare two result files with evalkit compare"))] = Field(
        default=None, gt=0, lt=1)
    gate_scores: Annotated[bool, Setting(
        "--gate-scores", "With --significance: a significant drop of a criterion's mean score also exits 1",
        needs=Needs("significance", "{significance} LEVEL", "add {significance} 0.05"))] = False
    gate: Annotated[Gate | None, Setting(
        "--gate", "What exits 1: failed thresholds, regressions against --baseline, or both", "thresholds|regressions|both",
        "expected thresholds, regressions or both (see docs/repeats.md)",
        default_text="both with --baseline, else thresholds")] = None

    debug: bool = False  # show each error case's detail (the CLI's --debug, given before or after the command)

    @classmethod
    def of(cls, **given: Any) -> FinishSettings:
        """As `RunSettings.of`: `None` means "not given"; a bad value raises `SettingError` naming the setting."""
        return settings_of(cls, given)

    @property
    def chosen_gate(self) -> str:
        """What sets exit 1: thresholds without a baseline, both with one (unless `--gate` says)."""
        if self.gate is not None:
            return self.gate
        return GATE_BOTH if self.baseline else GATE_THRESHOLDS

    @property
    def report_files(self) -> list[tuple[str, Path]]:
        """Every report to write, as (format name, path): the short forms' (`--junit FILE`), then `--report`'s."""
        short = [(name, getattr(self, name)) for name in SHORT_FORMS if getattr(self, name) is not None]
        return short + [(name, Path(path)) for name, path in self.reports]

    @property
    def outputs(self) -> dict[str, Path | None]:
        """The files to write, by flag: every declared setting that is a path and every `--report` (checked
        together before the run: report/output_paths.py), so a new output is checked with the others."""
        paths = {d.setting.flag: getattr(self, d.name) for d in declared(FinishSettings) if d.setting.parsed_as is Path}
        return {**paths, **{f"--report {name}={path}": Path(path) for name, path in self.reports}}
