"""pytest plugin: eval cases as test items, one per case.

    pytest --evalkit evals/                      # eval sets under evals/, plus the usual tests
    pytest --evalkit evals/weather.evalset.json:paris --evalkit-agent my_agent.py:agent

or, in the pytest configuration, `evalkit_paths = evals/` (and `evalkit_agent`,
`evalkit_config`). Paths from `evalkit_paths` join a plain `pytest` run; when pytest is
given explicit test paths, they only count for eval set files among those paths, so
`pytest tests/test_one.py` does not start every eval.

`--evalkit-quarantine FILE` (or `evalkit_quarantine`) takes the list `evalkit run
--quarantine` does: a quarantined case that does not pass is reported as xfail, not as a
failure, until its date; expired and unknown entries are named in the summary.

`--evalkit-min-coverage RATIO` (or `evalkit_min_coverage`, or the configs' `min_coverage`)
fails the session when the eval cases of all its eval set files together called fewer
than that share of the agent's tools (docs/coverage.md); the summary names the rest.

`--evalkit-max-cost USD`, `--evalkit-max-tokens N`, `--evalkit-max-model-calls N` (or the
configs' `max_cost`, ...) bound the whole session: every eval set file spends from one
budget; once it is reached, the cases not started fail with the reason, and the summary
says what was spent.

The cases of one eval set file run together (concurrently, one agent) when its first
selected item is set up; each item then reports its own case. `-k` and `-m evalkit`
select cases like any test. A failing case shows its criteria and the first difference.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from evalkit.errors import EvalkitError, InputError, SettingError
from evalkit.schema.results import CaseResult, Status

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr, TracebackStyle  # the types of pytest's own repr_failure

    from evalkit.settings import RunSettings


@dataclass
class Targets:
    """The eval set files and folders to collect, with ADK-style `file.json:id1,id2` selections."""

    files: dict[Path, list[str]] = field(default_factory=dict)
    folders: list[Path] = field(default_factory=list)

    def add(self, raw: str, base: Path) -> Path:
        from evalkit.loading.evalset_paths import split_selector

        target, ids = split_selector(raw, lambda name: (base / name).exists() or Path(name).exists())
        path = (base / target).resolve()
        if path.is_dir():
            self.folders.append(path)
        else:
            self.files.setdefault(path, []).extend(ids)
        return path

    def wants(self, path: Path) -> bool:
        path = path.resolve()
        if path in self.files:
            return True
        from evalkit.loading.evalset_paths import is_evalset_name

        return is_evalset_name(path) and any(folder in path.parents for folder in self.folders)


_TARGETS = pytest.StashKey[Targets]()
_QUARANTINE = pytest.StashKey[Any]()
_SETTINGS = pytest.StashKey["RunSettings"]()
_SETTINGS_ERROR = pytest.StashKey[EvalkitError]()
_LEDGER = pytest.StashKey[Any]()  # the session's budget (engine/budget.py): every eval set file spends from it


@dataclass
class CoverageGate:
    """`--evalkit-min-coverage` (or the configs' `min_coverage`) over the whole session: each eval set
    file's run adds its coverage; the session fails when all of them together fall below it."""

    requested: float | None
    parts: list[Any] = field(default_factory=list)  # each run's `coverage` (None: the agent's tools unknown)
    minimums: list[float] = field(default_factory=list)  # each run's own minimum (the option's, else its configs')
    message: str | None = None

    def add(self, outcome: Any) -> None:
        self.parts.append(outcome.result.coverage)
        if outcome.min_coverage is not None:
            self.minimums.append(outcome.min_coverage)

    def judge(self) -> str | None:
        """The one decider's coverage rule (evalkit.results.run_verdict), over the session's files together."""
        from evalkit.results.coverage import merged_coverage
        from evalkit.results.run_verdict import coverage_failure

        minimum = self.requested if self.requested is not None else max(self.minimums, default=None)
        self.message = coverage_failure(merged_coverage(self.parts), minimum) if self.parts else None
        return self.message


_COVERAGE = pytest.StashKey[CoverageGate]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """`--evalkit PATH`, and an option (with an ini key, unless repeatable) for each setting declared
    for the plugin (evalkit.settings: `in_pytest`), so a new one needs no line here."""
    from evalkit.settings import every_setting
    from evalkit.settings import pytest_option

    group = parser.getgroup("evalkit", "evalkit: eval cases as tests")
    group.addoption("--evalkit", action="append", default=[], dest="evalkit_paths", metavar="PATH",
                    help="Collect the eval cases of this eval set file or folder (repeatable; file.json:id1,id2 selects cases)")
    parser.addini("evalkit_paths", "eval set files or folders collected as tests", type="paths", default=[])
    for d in every_setting():
        if not d.setting.in_pytest:
            continue
        help_line = d.setting.pytest_help or d.setting.help
        if d.setting.repeatable:
            group.addoption(pytest_option(d), action="append", default=[], dest=f"evalkit_{d.name}",
                            metavar=d.setting.metavar, help=help_line)
        else:
            group.addoption(pytest_option(d), dest=f"evalkit_{d.name}", metavar=d.setting.metavar, help=help_line)
            parser.addini(f"evalkit_{d.name}", help_line, default="")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "evalkit: an eval case collected by evalkit")
    targets = Targets()
    given = [targets.add(raw, config.invocation_params.dir) for raw in config.getoption("evalkit_paths") or []]
    from_ini = [targets.add(str(path), config.rootpath) for path in config.getini("evalkit_paths")]
    config.stash[_TARGETS] = targets
    settings = config.stash[_SETTINGS] = _settings(config)
    if settings.quarantine is not None:
        from evalkit.results.quarantine import load_quarantine

        try:
            config.stash[_QUARANTINE] = load_quarantine(settings.quarantine)
        except InputError as error:
            raise pytest.UsageError("evalkit: " + "\nevalkit: ".join(error.lines())) from None
    if settings.cluster:  # what cannot go with a cluster stops the session, as it stops `evalkit run`
        from evalkit.engine.beside_cluster import refuse_beside_cluster

        try:
            refuse_beside_cluster(settings, settings.agent)
        except EvalkitError as error:
            raise pytest.UsageError("evalkit: " + "\nevalkit: ".join(_lines(error))) from None
    config.stash[_COVERAGE] = CoverageGate(settings.min_coverage)
    extra = given if config.args_source is config.ArgsSource.ARGS else given + from_ini
    covered = [Path(arg.split("::")[0]).resolve() for arg in config.args]
    for path in extra:
        if not any(path == c or c in path.parents for c in covered):
            config.args.append(str(path))
            covered.append(path)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    targets = parent.config.stash.get(_TARGETS, None)
    if targets is not None and targets.wants(file_path):
        return EvalSetFile.from_parent(parent, path=file_path)
    return None


class EvalCaseFailed(Exception):
    def __init__(self, case: CaseResult):
        super().__init__(f"{case.eval_set_id}/{case.eval_id} {case.status}")
        self.case = case


class EvalSetFile(pytest.File):
    """One eval set file: its cases are the items; they run together when the first is set up."""

    plan: Any = None
    results: dict[str, CaseResult]

    def collect(self) -> Iterator[EvalCaseItem]:
        from evalkit.loading.plan import build_plan

        targets = self.config.stash[_TARGETS]
        ids = targets.files.get(self.path.resolve(), [])
        selector = f"{_shown(self.path)}:{','.join(ids)}" if ids else str(_shown(self.path))
        try:
            self.plan = build_plan([selector], config_file=self.config.stash[_SETTINGS].config)
        except InputError as error:
            raise self.CollectError("evalkit: " + "\nevalkit: ".join(_lines(error))) from None
        for planned in self.plan.sets:
            for case in planned.cases:
                yield EvalCaseItem.from_parent(self, name=case.eval_id, eval_set_id=planned.evalset.eval_set_id)

    def setup(self) -> None:
        from dataclasses import replace

        from evalkit.engine.run import run
        from evalkit.loading.plan import Plan

        chosen = {item.name for item in self.session.items if item.parent is self}
        plan = Plan([replace(s, cases=[c for c in s.cases if c.eval_id in chosen]) for s in self.plan.sets])
        try:
            quarantine = self.config.stash.get(_QUARANTINE, None)
            gate = self.config.stash[_COVERAGE]
            if _SETTINGS_ERROR in self.config.stash:
                raise self.config.stash[_SETTINGS_ERROR]
            outcome = run(self.config.stash[_SETTINGS], plan=plan, full=True, ledger=self._session_ledger(plan))
        except EvalkitError as error:
            problem = "evalkit: " + "\nevalkit: ".join(_lines(error))
        else:
            if outcome.interrupted:
                raise KeyboardInterrupt
            self.results = {case.eval_id: case for case in outcome.result.cases}
            gate.add(outcome)
            if quarantine is not None:  # the session's list learns which of its entries this file's cases meet
                list(quarantine.marked(outcome.result.cases))
            return
        pytest.fail(problem, pytrace=False)  # outside the handler, so no chained traceback is shown

    def _session_ledger(self, plan: Any) -> Any:
        """The session's budget, made by the first file that runs (the options', else its configs')."""
        ledger = self.config.stash.get(_LEDGER, None)
        if ledger is None:
            from evalkit.engine.budget import Ledger

            ledger = Ledger.for_run(self.config.stash[_SETTINGS], plan)
            if ledger is not None:
                self.config.stash[_LEDGER] = ledger
        return ledger


class EvalCaseItem(pytest.Item):
    def __init__(self, *, eval_set_id: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.eval_set_id = eval_set_id
        self.add_marker("evalkit")

    def runtest(self) -> None:
        evalset_file = self.parent
        assert isinstance(evalset_file, EvalSetFile)  # its only parent (EvalSetFile.collect)
        case = evalset_file.results.get(self.name)
        if case is None:
            pytest.fail(f"evalkit: eval case {self.name!r} has no result", pytrace=False)
        for criterion in case.criteria:
            if criterion.score is not None and criterion.status is not Status.INFORMATIONAL:
                self.user_properties.append((criterion.name, criterion.score))
        if case.status is not Status.PASSED and case.quarantined:
            entry = self.config.stash[_QUARANTINE].active[f"{case.eval_set_id}/{case.eval_id}"]
            pytest.xfail(f"quarantined until {entry.until.isoformat()} ({entry.reason}): {case.status}")
        if case.status is not Status.PASSED:
            raise EvalCaseFailed(case)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: TracebackStyle | None = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, EvalCaseFailed):
            return describe_failure(excinfo.value.case)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"eval case {self.eval_set_id}/{self.name}"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The coverage gate, over every eval set file the session ran: below it, the session fails; so does a
    session whose budget was reached."""
    gate = session.config.stash.get(_COVERAGE, None)
    failed = gate is not None and gate.judge() is not None
    ledger = session.config.stash.get(_LEDGER, None)
    if (failed or (ledger is not None and ledger.figures().reached)) and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """The coverage gate's verdict; what a reached budget spent; quarantine entries that expired (their
    cases counted again) or named no collected case."""
    gate = config.stash.get(_COVERAGE, None)
    if gate is not None and gate.message is not None:
        terminalreporter.section("evalkit coverage")
        terminalreporter.write_line(f"evalkit: {gate.message}")
    ledger = config.stash.get(_LEDGER, None)
    budget = ledger.figures() if ledger is not None else None
    if budget is not None and budget.reached:
        terminalreporter.section("evalkit budget")
        terminalreporter.write_line(f"evalkit: {budget.reached_line()}")
    quarantine = config.stash.get(_QUARANTINE, None)
    if quarantine is None:
        return
    warnings = quarantine.warnings()
    if warnings:
        terminalreporter.section("evalkit quarantine")
        for line in warnings:
            terminalreporter.write_line(f"evalkit: warning: {line}")


def describe_failure(case: CaseResult) -> str:
    """The case's verdict, a line per criterion (score against threshold), then the first differences."""
    from evalkit.report.console import failure_lines

    lines = [f"eval case {case.eval_set_id}/{case.eval_id}: {case.status}"]
    shown = [c for c in case.criteria if c.status is not Status.INFORMATIONAL]
    width = max((len(c.name) for c in shown), default=0)
    for criterion in shown:
        score = "n/a" if criterion.score is None else f"{criterion.score:.3f}"
        threshold = "" if criterion.threshold is None else f"threshold {criterion.threshold:g}"
        lines.append(f"  {criterion.name:<{width}}  {score:>5}  {threshold:<15}  {criterion.status}")
    lines += failure_lines([case])
    return "\n".join(lines)


def _settings(config: pytest.Config) -> RunSettings:
    """The session's run settings, from each declared option, else its ini key (files in the ini are
    relative to the rootdir); checked once, before collection, as a run checks its flags."""
    from evalkit.settings import RunSettings, every_setting

    given: dict[str, Any] = {}
    for d in every_setting():
        if not d.setting.in_pytest:
            continue
        from_option = config.getoption(f"evalkit_{d.name}")
        if from_option:
            given[d.name] = from_option
        elif not d.setting.repeatable and config.getini(f"evalkit_{d.name}"):
            given[d.name] = _from_ini(config, d.name, config.getini(f"evalkit_{d.name}"))
    try:
        return RunSettings.of(**given)
    except SettingError as error:
        # A setting the session itself uses (its quarantine list, its coverage gate) stops it before
        # collection; one only the runs use (the agent's headers) fails the eval cases, as before.
        if error.name in ("quarantine", "min_coverage"):
            raise pytest.UsageError("evalkit: " + "\nevalkit: ".join(_lines(error))) from None
        config.stash[_SETTINGS_ERROR] = error
        return RunSettings.of(**{name: value for name, value in given.items() if name != error.name})


def _from_ini(config: pytest.Config, name: str, value: str) -> str:
    """An ini value, with a file it names taken relative to the rootdir (where the ini is)."""
    if name == "agent":
        from evalkit.agents.registry import spec_relative_to

        return spec_relative_to(value, config.rootpath)
    candidate = config.rootpath / value
    return str(candidate) if name in ("config", "quarantine") and candidate.exists() else value


def _lines(error: EvalkitError) -> list[str]:
    from evalkit.settings import pytest_options

    return error.lines(pytest_options()) if isinstance(error, InputError) else error.lines()


def _shown(path: Path) -> Path:
    """Relative to the current folder when inside it, so messages name files as the user does."""
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path
