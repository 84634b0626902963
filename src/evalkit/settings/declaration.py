"""How a user gives a setting, declared once, on the settings model's field.

A field of `RunSettings` or `FinishSettings` carries a `Setting` in its annotation:

    timeout: Annotated[float | None, Setting("--timeout", "Seconds allowed per turn", metavar="SECONDS")]

Every front end is derived from these declarations: the options of `evalkit run`
(`evalkit.cli.options`), the keywords of `evalkit.run_evals`, the pytest plugin's options,
and the word each message uses for a setting (evalkit.settings.fronts).
A new setting is one field with its `Setting` (docs/architecture.md, "Where a change goes").
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from pydantic import BaseModel, ValidationError

from evalkit.errors import SettingError

Model = TypeVar("Model", bound=BaseModel)


@dataclass(frozen=True)
class Needs:
    """A setting that means nothing without another: `--tolerance` without `--baseline`.

    The words name settings as `{name}`, so each front end words them its own way
    (`--baseline` on the command line, `baseline=` in Python).
    """

    setting: str  # the other setting's name; "not given" is its default
    with_words: str  # "{repeat} N (N > 1)": what it means something with
    fix: str  # "add {repeat}"
    otherwise: str | None = None  # the alternative to dropping this setting


@dataclass(frozen=True)
class Setting:
    """One setting as its users give it: its flag and help, its API keyword, its pytest option."""

    flag: str  # the command line's flag, such as "--jobs"
    help: str  # one line for `--help`
    metavar: str | None = None  # None: a switch, given by being present
    reason: str | None = None  # why a value was refused: "expected …, such as 16" (None: pydantic's words)
    aliases: tuple[str, ...] = ()  # other spellings: "-j", ADK's "--config_file_path"
    repeatable: bool = False  # given once per value (`--case A --case B`)
    switch_gives: object = True  # what a switch sets when present (`--no-cache` sets use_cache to False)
    parsed_as: type = str  # what the command line checks before the model does (a number, a path)
    default_text: str | None = None  # "[default: …]" in the help; None: not shown
    keyword: str | None = None  # the Python API's keyword, when it differs from the field's name
    in_api: bool = True  # a keyword of `run_evals` (agent, config and paths are its arguments)
    in_pytest: bool = False  # offered by the pytest plugin, as --evalkit-FLAG and the ini key evalkit_NAME
    pytest_help: str | None = None  # its help there, when the CLI's does not fit a test session
    needs: Needs | None = None  # the setting without which this one means nothing
    choices: tuple[str, ...] = ()  # the only values it takes, when they are few words

    @property
    def is_switch(self) -> bool:
        return self.metavar is None

    def help_line(self) -> str:
        return f"{self.help} [default: {self.default_text}]" if self.default_text is not None else self.help


class Declared(NamedTuple):
    name: str  # the field's name: the library's word for the setting
    setting: Setting
    default: Any  # the field's default: what "not given" means


def declared(*models: type[BaseModel]) -> Iterator[Declared]:
    """The declared settings of `models`, in field order."""
    for model in models:
        for name, field in model.model_fields.items():
            for mark in field.metadata:
                if isinstance(mark, Setting):
                    yield Declared(name, mark, field.get_default(call_default_factory=False))


def reason_for(model: type[BaseModel], name: str) -> str | None:
    """The declared words for a refused value of setting `name` (None: pydantic's)."""
    return next((d.setting.reason for d in declared(model) if d.name == name), None)


def settings_of(model: type[Model], given: dict[str, Any]) -> Model:
    """`model` from what a user gave (`None`: not given, so the default); a bad value raises
    `SettingError` naming the setting, worded without the value when the field hides it
    (`repr=False`: a header, which may be a credential)."""
    chosen = {name: value for name, value in given.items() if value is not None}
    try:
        return model(**chosen)
    except ValidationError as error:
        first = error.errors()[0]
        name = str(first["loc"][0]) if first["loc"] else "settings"
        field = model.model_fields.get(name)
        if field is not None and field.repr is False:
            raise SettingError(name, "…", str(first.get("ctx", {}).get("error", first["msg"]))) from None
        raise SettingError(name, chosen.get(name), reason_for(model, name) or first["msg"]) from None
