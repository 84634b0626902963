"""What a setting's declaration promises beyond its type, checked here for every front end: a setting
that means nothing alone names the one it `needs` (declaration.Needs), and one of a few words takes
only its `choices`."""

from __future__ import annotations

import re

from pydantic import BaseModel

from evalkit.errors import SettingError
from evalkit.settings.declaration import Setting, declared

_NAMED = re.compile(r"\{(\w+)\}")


def check_partners(*models: BaseModel) -> None:
    """Refuse a setting given without the one it needs, such as `--tolerance` without `--baseline`,
    then a value that is not one of its setting's `choices` (`cassette_mode="bogus"`).

    "Given" means away from its default. A partner that none of `models` holds is not
    checked (`merge` has no baseline of its own).
    """
    values = {name: getattr(model, name) for model in models for name in type(model).model_fields}
    defaults = {name: field.get_default(call_default_factory=True) for model in models
                for name, field in type(model).model_fields.items()}
    for model in models:
        for d in declared(type(model)):
            needs, value = d.setting.needs, getattr(model, d.name)
            if needs is None or value == d.default or needs.setting not in values:
                continue
            if values[needs.setting] != defaults[needs.setting]:
                continue
            otherwise = needs.otherwise or "drop {" + d.name + "}"
            message = f"only means something with {needs.with_words}{_not_a_choice(d.setting, value)}; " \
                      f"{needs.fix}, or {otherwise}"
            raise SettingError(d.name, value, message, mentions=tuple(dict.fromkeys(_NAMED.findall(message))))
    for model in models:
        for d in declared(type(model)):
            value = getattr(model, d.name)
            if d.setting.choices and value not in d.setting.choices:
                raise SettingError(d.name, value, d.setting.reason or f"expected one of {', '.join(d.setting.choices)}")


def _not_a_choice(setting: Setting, value: object) -> str:
    if not setting.choices or value in setting.choices:
        return ""
    noun = (setting.metavar or "value").lower()
    return f" (and it is not a {noun}: expected one of {', '.join(setting.choices)})"
