"""EvalConfig files (`test_config.json` / `.yaml`): read, validate, discover."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from evalkit.errors import InputError, Problem
from evalkit.foundation.documents import read_document
from evalkit.loading.evalset_paths import is_dataset_name
from evalkit.schema.problems import known_keys, problems_from
from evalkit.schema.config import EvalConfig

CONFIG_NAMES = ("test_config.json", "test_config.yaml", "test_config.yml")
_VOCABULARY = known_keys(EvalConfig)


def load_config(path: Path) -> EvalConfig:
    data = read_document(path)
    if not isinstance(data, dict):
        raise InputError(Problem(str(path), "", f"expected a config object, found {type(data).__name__}"))
    try:
        return EvalConfig.model_validate(data)
    except ValidationError as error:
        raise InputError(problems_from(error, str(path), data, _VOCABULARY)) from None


def discover_config(evalset_file: Path) -> Path | None:
    """`test_config.json` (or `.yaml`) in the eval set's folder, if there is one; for an Agent
    Platform dataset, agents-cli's `eval_config.yaml` beside it or in its parent first."""
    if is_dataset_name(evalset_file):
        from evalkit.loading.platform_config import discover_platform_config

        found = discover_platform_config(evalset_file)
        if found is not None:
            return found
    for name in CONFIG_NAMES:
        candidate = evalset_file.parent / name
        if candidate.is_file():
            return candidate
    return None
