"""The options of the commands that take settings, derived from the settings' declarations.

`with_settings(...)` gives a command function the options of the settings it names (all of
`evalkit run`'s by default), each from its field's `Setting` (evalkit.settings.declaration):
flag, spellings, metavar, help and the type the command line checks. The function receives
them by the settings' names, as the user gave them (None or False: not given), and turns
them into settings with `settings_from`, which applies the defaults and checks the values.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from functools import wraps
from typing import Any, List, Optional

import typer

from evalkit.settings import Declared, FinishSettings, RunSettings, every_setting


def with_settings(names: Iterable[str] | None = None, helps: Mapping[str, str] | None = None
                  ) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Add the options of the settings `names` (default: every one) after the function's own
    parameters; `helps` gives a command its own help line for a setting."""
    by_name = {d.name: d for d in every_setting()}
    chosen = list(by_name.values()) if names is None else [by_name[name] for name in names]

    def derive(command: Callable[..., None]) -> Callable[..., None]:
        own = [p for p in inspect.signature(command, eval_str=True).parameters.values() if p.kind is not p.VAR_KEYWORD]
        options = [_parameter(d, (helps or {}).get(d.name)) for d in chosen]

        @wraps(command)
        def with_options(**given: Any) -> None:
            command(**given)

        with_options.__signature__ = inspect.Signature([*own, *options])  # type: ignore[attr-defined]
        with_options.__annotations__ = {p.name: p.annotation for p in [*own, *options]}
        return with_options

    return derive


def _parameter(d: Declared, help_line: str | None) -> inspect.Parameter:
    setting = d.setting
    names = (setting.flag, *setting.aliases)
    if setting.is_switch:
        option = typer.Option(False, *names, help=help_line or setting.help_line())
        annotation: Any = bool
    else:
        option = typer.Option(None, *names, metavar=setting.metavar, show_default=False,
                              help=help_line or setting.help_line())
        annotation = Optional[List[setting.parsed_as]] if setting.repeatable else Optional[setting.parsed_as]  # type: ignore[name-defined]
    return inspect.Parameter(d.name, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=annotation)


def given_values(given: Mapping[str, Any]) -> dict[str, Any]:
    """What the user gave, by setting: an absent switch or repeatable option is "not given" (None)."""
    declared = {d.name: d.setting for d in every_setting()}
    values: dict[str, Any] = {}
    for name, value in given.items():
        setting = declared.get(name)
        if setting is None:
            continue
        if setting.is_switch:
            values[name] = setting.switch_gives if value else None
        else:
            values[name] = value if value not in (None, []) else None
    return values


def settings_from(given: Mapping[str, Any], **also: Any) -> tuple[RunSettings, FinishSettings]:
    """The run's settings and its finish's, from a command's options (`also`: what it knows otherwise,
    such as the paths and `--debug`)."""
    values = {**given_values(given), **also}
    run_names, finish_names = set(RunSettings.model_fields), set(FinishSettings.model_fields)
    return (RunSettings.of(**{k: v for k, v in values.items() if k in run_names}),
            FinishSettings.of(**{k: v for k, v in values.items() if k in finish_names}))
