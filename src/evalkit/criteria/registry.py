"""Criteria by name.

Built-in criteria are listed as `module:Class` strings and imported on first use, so
naming one criterion never pays for the others (nor for their heavy dependencies).
Plug-ins call `register()`.
"""

from __future__ import annotations

from importlib import import_module

from evalkit.criteria.base import Criterion

INFORMATIONAL = ("tool_call_count_v1", "inference_call_count_v1", "token_usage_v1", "invocation_duration_v1")

_BUILT_IN: dict[str, str] = {
    "tool_trajectory_avg_score": "evalkit.criteria.adk.trajectory:ToolTrajectoryCriterion",
    "response_match_score": "evalkit.criteria.adk.response_match:ResponseMatchCriterion",
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
}

_registered: dict[str, type[Criterion]] = {}


def register(criterion: type[Criterion]) -> type[Criterion]:
    """Make a criterion class available by its `name` (usable as a class decorator)."""
    _registered[criterion.name] = criterion
    return criterion


def names() -> list[str]:
    return [*_BUILT_IN, *(n for n in _registered if n not in _BUILT_IN)]


def get(name: str) -> type[Criterion] | None:
    if name in _registered:
        return _registered[name]
    target = _BUILT_IN.get(name)
    if target is None:
        return None
    module_name, _, class_name = target.partition(":")
    criterion = getattr(import_module(module_name), class_name)
    _registered[name] = criterion
    return criterion
