"""agents-cli's `eval_config.yaml` → the criteria a dataset is scored with (docs/agent-platform.md).

`metrics_to_run` names the metrics: a `custom_metrics` entry of that name with a
`prompt_template` or a function, else a managed metric id, run by evalkit's judges
(evalkit.criteria.agent_platform). Each is reported under its name; `thresholds` gates
it, and a metric without a threshold is reported as `informational`. Every problem
(an unknown id, a function that does not compile, a threshold for a metric that does
not run) is found at once, each named by the config and its place.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evalkit.criteria.base import Criterion
from evalkit.errors import InputError, Problem
from evalkit.foundation.documents import read_document
from evalkit.foundation.suggestions import did_you_mean
from evalkit.schema.platform_config import PLATFORM_KEYS, PlatformConfig, PlatformMetric
from evalkit.schema.problems import known_keys, problems_from

CONFIG_NAMES = ("eval_config.yaml", "eval_config.yml", "eval_config.json")
_VOCABULARY = known_keys(PlatformConfig)


def is_platform_config(data: Any) -> bool:
    """A config document in agents-cli's shape rather than evalkit's `test_config.json` shape."""
    return isinstance(data, dict) and "criteria" not in data and any(key in data for key in PLATFORM_KEYS)


def discover_platform_config(dataset: Path) -> Path | None:
    """`eval_config.yaml` (or `.yml`, `.json`) beside the dataset or in its parent folder
    (agents-cli keeps it in `tests/eval/`, the datasets in `tests/eval/datasets/`)."""
    for folder in (dataset.parent, dataset.parent.parent):
        for name in CONFIG_NAMES:
            if (folder / name).is_file():
                return folder / name
    return None


def read_platform_config(path: Path, data: Any = None) -> PlatformConfig:
    data = read_document(path) if data is None else data
    try:
        return PlatformConfig.model_validate(data)
    except ValidationError as error:
        raise InputError(problems_from(error, str(path), data, _VOCABULARY)) from None


def thresholds_only(path: Path) -> bool:
    """A `--config` that gives agents-cli metrics nothing but `thresholds` (the metrics come from the
    dataset's own eval_config)."""
    try:
        data = read_document(path)
    except InputError:
        return False
    return is_platform_config(data) and set(data) & set(PLATFORM_KEYS) == {"thresholds"}


def platform_criteria(path: Path, data: Any = None, thresholds_file: Path | None = None) -> list[Criterion]:
    """The criteria of an agents-cli config, with the thresholds of `thresholds_file` over its own."""
    config = read_platform_config(path, data)
    thresholds = dict(config.thresholds)
    if thresholds_file is not None:
        thresholds.update(read_platform_config(thresholds_file).thresholds)
    file = str(path)
    problems: list[Problem] = []
    pool = {metric.name: metric for metric in config.custom_metrics}
    criteria: list[Criterion] = []
    if not config.metrics_to_run:
        problems.append(Problem(file, "metrics_to_run", "names no metric, so nothing would be scored; list the "
                                "metrics to run (`evalkit criteria` shows the managed ids evalkit runs)"))
    for position, name in enumerate(config.metrics_to_run):
        where = f"metrics_to_run[{position}]"
        try:
            criteria.append(_criterion(name, pool.get(name), thresholds.get(name), path))
        except ValueError as error:
            place = f"custom_metrics.{name}" if name in pool else where
            problems.append(Problem(file, place, str(error)))
    for name in thresholds:
        if name not in config.metrics_to_run:
            problems.append(Problem(str(thresholds_file or path), f"thresholds.{name}",
                                    f"no metric {name!r} runs{did_you_mean(name, config.metrics_to_run)}; "
                                    "give thresholds only for metrics of metrics_to_run"))
    if problems:
        raise InputError(problems)
    return criteria


def _criterion(name: str, entry: PlatformMetric | None, threshold: float | None, config: Path) -> Criterion:
    if entry is not None and entry.rubric_group_name is not None:
        raise ValueError("rubric_group_name is not supported (agents-cli refuses it too); grade a case's "
                         "rubric_groups with a managed metric and metric_spec_parameters.rubric_group_key")
    if entry is not None and entry.defines_own_body:
        return _custom(entry, threshold, config)
    from evalkit.criteria.registry import AGENT_PLATFORM_METRICS, CRITERIA

    managed = _managed_id(name)
    if managed is None:
        raise ValueError(f"unknown metric {name!r}{did_you_mean(name, AGENT_PLATFORM_METRICS)}: name a managed "
                         f"metric evalkit runs ({', '.join(AGENT_PLATFORM_METRICS)}) or define it in custom_metrics "
                         "with a prompt_template or a custom_function")
    criterion_class = CRITERIA.get(managed)
    assert criterion_class is not None
    options: dict[str, Any] = {}
    parameters = (entry.metric_spec_parameters if entry is not None else None) or {}
    if "rubric_group_key" in parameters and "rubric_group_key" in criterion_class.Options.model_fields:
        options["rubric_group_key"] = parameters["rubric_group_key"]
    if entry is not None and entry.judge_model:
        options["judge_model_options"] = {"judge_model": entry.judge_model}
    criterion = criterion_class(threshold, criterion_class.Options.model_validate(options))
    criterion.name = name  # type: ignore[misc]  # reported under the name metrics_to_run gives (`safety_v1`)
    criterion.informational = threshold is None
    return criterion


def _managed_id(name: str) -> str | None:
    """The managed metric a `metrics_to_run` name means: its id, or the id with a version (`safety_v1`)."""
    from evalkit.criteria.registry import AGENT_PLATFORM_METRICS

    lowered = name.lower()
    if lowered in AGENT_PLATFORM_METRICS:
        return lowered
    base, _, version = lowered.rpartition("_v")
    return base if base in AGENT_PLATFORM_METRICS and version.isdigit() else None


def _custom(entry: PlatformMetric, threshold: float | None, config: Path) -> Criterion:
    if entry.prompt_template is not None:
        from evalkit.criteria.agent_platform.prompt_metric import PromptMetricOptions, PromptTemplateMetric

        judge: dict[str, Any] = {"num_samples": entry.judge_model_sampling_count or 1}
        if entry.judge_model:
            judge["judge_model"] = entry.judge_model
        generation = dict(entry.judge_model_generation_config or {})
        if entry.judge_model_system_instruction:
            generation["system_instruction"] = entry.judge_model_system_instruction
        if generation:
            judge["judge_model_config"] = generation
        try:
            options = PromptMetricOptions.model_validate({"prompt_template": entry.prompt_template,
                                                          "judge_model_options": judge})
        except ValidationError as error:
            raise ValueError("; ".join(str(p) for p in problems_from(error, "", judge, set()))) from None
        return PromptTemplateMetric(entry.name, threshold, options)
    from evalkit.criteria.agent_platform.code_metric import CodeFunctionMetric, compile_metric, function_source

    if entry.custom_function is not None and entry.custom_function_file is not None:
        raise ValueError("give custom_function or custom_function_file, not both")
    if entry.custom_function is None and entry.custom_function_file is None:
        raise ValueError("remote_custom_function is not run by evalkit; give the function as custom_function or "
                         "custom_function_file")
    text, source = function_source(entry.custom_function_file, entry.custom_function, config)
    function = compile_metric(text, f"<custom_metric:{entry.name}>" if entry.custom_function else source)
    return CodeFunctionMetric(entry.name, function, source, threshold)
