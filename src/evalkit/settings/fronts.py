"""Every declared setting, and what each front end calls it: a flag, an API keyword, a pytest option."""

from __future__ import annotations

from functools import cache

from evalkit.settings.declaration import Declared, declared
from evalkit.settings.finish import FinishSettings
from evalkit.settings.run import RunSettings


@cache
def every_setting() -> tuple[Declared, ...]:
    """The settings of a run and of its finish, as `evalkit run` lists them."""
    return tuple(declared(RunSettings, FinishSettings))


@cache
def flags() -> dict[str, str]:
    """Each setting's flag: how the CLI names it in a message (`--pass-rate 1.5: …`)."""
    return {d.name: d.setting.flag for d in every_setting()}


@cache
def keywords() -> dict[str, str]:
    """Each setting's keyword in the Python API, where it is not the setting's own name."""
    return {d.name: d.setting.keyword for d in every_setting() if d.setting.keyword}


def pytest_option(d: Declared) -> str:
    return "--evalkit-" + d.setting.flag.removeprefix("--")


@cache
def pytest_options() -> dict[str, str]:
    """Each setting the pytest plugin offers, with its option (`--evalkit-agent`)."""
    return {d.name: pytest_option(d) for d in every_setting() if d.setting.in_pytest}
