"""Criteria by name (docs/criteria.md, docs/architecture.md).

Built-in criteria are listed as `module:Class` strings and imported on first use, so
naming one criterion never pays for the others (nor for their heavy dependencies).

Other packages add criteria through the `evalkit.criteria` entry point group: the entry
point's name is the criterion's name, its object the Criterion class. Entry points are
read only when a name is not built in, or when every criterion is listed. In-process
code (a test, a notebook) can also `register()` a class.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from evalkit.criteria.base import Criterion
from evalkit.errors import InputError

ENTRY_POINT_GROUP = "evalkit.criteria"

_BUILT_IN: dict[str, str] = {
    "tool_trajectory_avg_score": "evalkit.criteria.adk.trajectory:ToolTrajectoryCriterion",
    "response_match_score": "evalkit.criteria.adk.response_match:ResponseMatchCriterion",
    "response_evaluation_score": "evalkit.criteria.adk.response_evaluation:ResponseEvaluationScoreCriterion",
    "safety_v1": "evalkit.criteria.adk.safety:SafetyCriterion",
    "final_response_match_v2": "evalkit.criteria.adk.final_response_match_v2:FinalResponseMatchV2Criterion",
    "rubric_based_final_response_quality_v1": "evalkit.criteria.adk.rubric_final_response:RubricFinalResponseQualityCriterion",
    "rubric_based_tool_use_quality_v1": "evalkit.criteria.adk.rubric_tool_use:RubricToolUseQualityCriterion",
    "rubric_based_multi_turn_trajectory_quality_v1": (
        "evalkit.criteria.adk.rubric_multi_turn:RubricMultiTurnTrajectoryCriterion"
    ),
    "hallucinations_v1": "evalkit.criteria.adk.hallucinations:HallucinationsCriterion",
    "tool_call_count_v1": "evalkit.criteria.adk.efficiency:ToolCallCount",
    "inference_call_count_v1": "evalkit.criteria.adk.efficiency:InferenceCallCount",
    "token_usage_v1": "evalkit.criteria.adk.efficiency:TokenUsage",
    "invocation_duration_v1": "evalkit.criteria.adk.efficiency:InvocationDuration",
    "exact_match": "evalkit.criteria.vertex.text:ExactMatchCriterion",
    "bleu": "evalkit.criteria.vertex.text:BleuCriterion",
    "rouge": "evalkit.criteria.vertex.text:RougeCriterion",
    "tool_call_valid": "evalkit.criteria.vertex.tools:ToolCallValidCriterion",
    "tool_name_match": "evalkit.criteria.vertex.tools:ToolNameMatchCriterion",
    "tool_parameter_key_match": "evalkit.criteria.vertex.tools:ToolParameterKeyMatchCriterion",
    "tool_parameter_kv_match": "evalkit.criteria.vertex.tools:ToolParameterKvMatchCriterion",
    "ces_semantic_similarity": "evalkit.criteria.ces.semantic_similarity:CesSemanticSimilarityCriterion",
    "ces_tool_parameter_correctness": "evalkit.criteria.ces.tools:CesToolParameterCorrectnessCriterion",
    "ces_tool_invocation": "evalkit.criteria.ces.tools:CesToolInvocationCriterion",
    "ces_expectations": "evalkit.criteria.ces.expectations:CesExpectationsCriterion",
    "pointwise_metric": "evalkit.criteria.vertex.model_based:PointwiseMetricCriterion",
    "pairwise_metric": "evalkit.criteria.vertex.model_based:PairwiseMetricCriterion",
    "per_turn_user_simulator_quality_v1": "evalkit.criteria.adk.user_simulator_quality:PerTurnUserSimulatorQualityCriterion",
    "multi_turn_task_success_v1": "evalkit.criteria.adk.multi_turn:MultiTurnTaskSuccessCriterion",
    "multi_turn_trajectory_quality_v1": "evalkit.criteria.adk.multi_turn:MultiTurnTrajectoryQualityCriterion",
    "multi_turn_tool_use_quality_v1": "evalkit.criteria.adk.multi_turn:MultiTurnToolUseQualityCriterion",
    "tool_trajectory_match_v1": "evalkit.criteria.extended.tool_trajectory_match:ToolTrajectoryMatchCriterion",
    "final_session_state_v1": "evalkit.criteria.extended.final_session_state:FinalSessionStateCriterion",
    "cost_v1": "evalkit.criteria.extended.cost:CostCriterion",
    "response_checks_v1": "evalkit.criteria.extended.response_checks:ResponseChecksCriterion",
}

_registered: dict[str, type[Criterion]] = {}


def register(criterion: type[Criterion]) -> type[Criterion]:
    """Make a criterion class available by its `name` (usable as a class decorator)."""
    _registered[criterion.name] = criterion
    return criterion


def names() -> list[str]:
    """Every criterion: the built-in ones, then those registered or installed by plug-ins."""
    extra = [*_registered, *_plugins()]
    return [*_BUILT_IN, *dict.fromkeys(n for n in extra if n not in _BUILT_IN)]


def get(name: str) -> type[Criterion] | None:
    if name in _registered:
        return _registered[name]
    target = _BUILT_IN.get(name)
    if target is not None:
        module_name, _, class_name = target.partition(":")
        criterion = getattr(import_module(module_name), class_name)
    else:
        entry_point = _plugins().get(name)
        if entry_point is None:
            return None
        criterion = _load_plugin(entry_point)
    _registered[name] = criterion
    return criterion


def _plugins() -> dict[str, Any]:
    from evalkit.plugins import entry_points_of

    return entry_points_of(ENTRY_POINT_GROUP)


def _load_plugin(entry_point: Any) -> type[Criterion]:
    try:
        criterion = entry_point.load()
    except Exception as error:
        raise InputError(f"criterion {entry_point.name!r}: its plug-in {entry_point.value} failed to load: "
                         f"{type(error).__name__}: {error}") from None
    if not (isinstance(criterion, type) and issubclass(criterion, Criterion)):
        raise InputError(f"criterion {entry_point.name!r}: its plug-in {entry_point.value} is not a Criterion class")
    return criterion
