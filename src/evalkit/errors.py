"""evalkit's exceptions.

Library code raises these; only the CLI turns them into messages and exit codes, so
every message is shaped here and nowhere else.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum


class ExitCode(IntEnum):
    """The exit codes of every evalkit command (docs/architecture.md, "Contracts"; docs/ci.md)."""

    OK = 0  # at least one case ran, and every case passed
    FAILED = 1  # a case failed a threshold or was not evaluated (compare: a regression)
    INPUT = 2  # usage or input error; nothing ran
    RUN_ERROR = 3  # an agent or judge error left some case unscored
    INTERNAL = 4  # an evalkit bug: one line on stderr, `--debug` shows the traceback
    INTERRUPTED = 130  # Ctrl-C; finished cases were still written
    TERMINATED = 143  # SIGTERM (CI cancellation, `docker stop`): ended like Ctrl-C


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: the run ends as on Ctrl-C (finished cases written), with exit 143.

    A KeyboardInterrupt, so every place that ends a run cleanly on Ctrl-C does so here too.
    """


def raise_terminated(signum: int, frame: object) -> None:
    """The CLI's SIGTERM handler (engine/aio.py's `run_sync` turns it into a loop-safe cancel)."""
    raise Terminated()


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a user's input, pinned to a file and a place in it."""

    file: str
    location: str
    message: str

    def __str__(self) -> str:
        parts = [p for p in (self.file, self.location) if p]
        return ": ".join([*parts, self.message])


@dataclass(frozen=True)
class SettingProblem(Problem):
    """A problem with a setting's value, worded by whoever the user gave it to.

    The library names the setting (`shard='3/2': ...`); the CLI words it with its flag
    (`--shard 3/2: ...`), the Python API with its keyword, the pytest plugin with its
    option: `worded(words)`. The message may name other settings as `{name}` for the
    same rewording; `mentions` lists them.
    """

    setting: str = ""  # the setting whose value is wrong ("" when the message names them all)
    value: object = None
    mentions: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.worded()

    def worded(self, words: Mapping[str, str] | None = None) -> str:
        """The problem with each setting called what `words` calls it (a flag starts with "-")."""
        def word(name: str) -> str:
            return (words or {}).get(name, name)

        message = self.message
        for name in self.mentions:
            message = message.replace("{" + name + "}", word(name))
        head = []
        if self.setting:
            called = word(self.setting)
            if called.startswith("-") and self.value is True:  # a switch: given by its name alone
                head = [called]
            elif called.startswith("-"):
                value = f"{self.value:g}" if isinstance(self.value, float) else str(self.value)
                head = [f"{called} {value}"]
            else:
                head = [f"{called}={self.value!r}"]
        return ": ".join([p for p in (self.file, self.location) if p] + head + [message])


class EvalkitError(Exception):
    """Base class. `exit_code` is what the CLI exits with when this escapes a command."""

    exit_code = ExitCode.FAILED

    def lines(self) -> list[str]:
        """The readable lines to print on stderr."""
        return [str(self)]


class InputError(EvalkitError):
    """The user's input is wrong (exit 2): every problem found is reported at once."""

    exit_code = ExitCode.INPUT

    def __init__(self, problems: list[Problem] | Problem | str):
        if isinstance(problems, str):
            problems = [Problem("", "", problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    def lines(self, words: Mapping[str, str] | None = None) -> list[str]:
        """One line per problem; `words` names the settings as the user's tool does (the CLI's flags)."""
        return [p.worded(words) if isinstance(p, SettingProblem) else str(p) for p in self.problems]

    def renamed(self, words: Mapping[str, str]) -> InputError:
        """This error worded with `words` (the Python API's keywords), of the same class."""
        copy = self.__class__.__new__(self.__class__)
        copy.__dict__.update(self.__dict__)
        copy.problems = [Problem(p.file, p.location, p.worded(words)) if isinstance(p, SettingProblem) else p
                         for p in self.problems]
        Exception.__init__(copy, "\n".join(str(p) for p in copy.problems))
        return copy


class UsageError(InputError):
    """A bad flag or argument combination (exit 2)."""


class SettingError(UsageError):
    """A setting's value is wrong (exit 2), named as the Python API spells it (`pass_rate=1.5`).

    The CLI rewords it with the flag the user typed (`--pass-rate 1.5`): see `SettingProblem`.
    """

    def __init__(self, name: str, value: object, reason: str, mentions: tuple[str, ...] = ()):
        self.name, self.value, self.reason = name, value, reason
        super().__init__(SettingProblem("", "", reason, name, value, mentions))

    def worded_as(self, flag: str) -> str:
        return self.lines({self.name: flag})[0]


class AgentLoadError(SettingError):
    """The agent the `agent` setting names cannot be loaded (exit 2); nothing ran.

    Worded as the setting (`agent='my_agent.py': no such file`); the CLI words it with
    `--agent`, the pytest plugin with `--evalkit-agent`. `spec` is None when the problem
    is not the spec's (google-adk missing).
    """

    def __init__(self, spec: str | None, reason: str):
        if spec is None:
            UsageError.__init__(self, reason)
            self.name, self.value, self.reason = "", None, reason
        else:
            super().__init__("agent", spec, reason)


class MissingExtraError(InputError):
    """An optional dependency is needed for what was asked (exit 2).

    The hint names the package itself, or the extra of evalkit's checkout: the name
    `evalkit` on the package index is another project (docs/ci.md, "Installing evalkit").
    """

    def __init__(self, what: str, extra: str, package: str, requirement: str | None = None,
                 python: tuple[int, int] | None = None):
        if python is not None and sys.version_info < python:  # the install hint would only fail here
            wanted, running = ".".join(map(str, python)), ".".join(map(str, sys.version_info[:2]))
            super().__init__(
                f"{what} needs the optional package {package!r}, which needs Python {wanted} or later "
                f"(this is Python {running}): run evalkit under Python {wanted} or later"
            )
            return
        super().__init__(
            f"{what} needs the optional package {package!r}: "
            f'pip install "{requirement or package}" (or, in evalkit\'s checkout, pip install -e ".[{extra}]")'
        )


class AgentError(EvalkitError):
    """The agent under test failed during a turn: the case becomes `error`.

    `detail` is what explains it beyond the one-line message (a worker's last stderr
    lines); it goes to the case's `error_detail` in the result file.
    """

    exit_code = ExitCode.RUN_ERROR

    def __init__(self, message: str, detail: str | None = None):
        super().__init__(message)
        self.detail = detail


class AgentOverloaded(AgentError):
    """The agent (or its model) answered 429/503: too much at once. The case is run again later."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class AgentTimeout(AgentError):
    """A turn ran past the per-turn timeout."""


class StorageError(EvalkitError):
    """A file could not be written once the run had begun (a full disk, a removed folder): exit 3, never 4."""

    exit_code = ExitCode.RUN_ERROR


class JudgeError(EvalkitError):
    """A judge (or user-simulator) model call failed for good, after its retries."""

    exit_code = ExitCode.RUN_ERROR
