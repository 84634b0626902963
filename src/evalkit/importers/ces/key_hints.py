"""Where a misplaced key of a CES file belongs.

CES nests its thresholds three levels deep; a key written one level too high or too
low is a known key in the wrong place, and "did you mean" its own name is no help.
This finds the key's nested path from the nearest enclosing object that can hold it
(docs/ces.md, "What the importer reads").
"""

from __future__ import annotations

import re
import typing
from collections import deque

from pydantic import BaseModel
from pydantic.alias_generators import to_camel, to_snake

_INDEX = re.compile(r"\[\d+\]")


def belongs_at(root: type[BaseModel], location: str) -> str | None:
    """For an unknown key at `location` (`a.b[0].key`), the path where that key is a field, or None."""
    segments = location.split(".")
    key = to_snake(_INDEX.sub("", segments[-1]))
    parents = segments[:-1]
    models = _models_along(root, parents)
    for depth in range(len(models) - 1, -1, -1):  # the nearest enclosing object first
        path = _path_to(models[depth], key)
        if path is not None:
            return ".".join([*parents[:depth], *(to_camel(name) for name in path)])
    return None


def _models_along(root: type[BaseModel], segments: list[str]) -> list[type[BaseModel]]:
    """The model of the root and of each segment that is itself an object."""
    models = [root]
    model: type[BaseModel] | None = root
    for segment in segments:
        field = model.model_fields.get(to_snake(_INDEX.sub("", segment))) if model else None
        model = _model_in(field.annotation) if field else None
        if model is None:
            break
        models.append(model)
    return models


def _path_to(model: type[BaseModel], key: str) -> list[str] | None:
    """Field names from `model` down to a field named `key`, fewest levels first."""
    queue: deque[tuple[type[BaseModel], list[str]]] = deque([(model, [])])
    seen: set[type[BaseModel]] = set()
    while queue:
        current, path = queue.popleft()
        if current in seen:
            continue
        seen.add(current)
        if key in current.model_fields:
            return [*path, key]
        for name, field in current.model_fields.items():
            nested = _model_in(field.annotation)
            if nested is not None:
                queue.append((nested, [*path, name]))
    return None


def _model_in(annotation: object) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for argument in typing.get_args(annotation):
        found = _model_in(argument)
        if found is not None:
            return found
    return None
