"""Criteria by name: one `Registry` (docs/criteria.md, docs/extending.md).

Built-in criteria are listed as `module:Class` strings and imported on first use, so
naming one criterion never pays for the others (nor for their heavy dependencies).

Other packages add criteria through the `evalkit.criteria` entry point group: the entry
point's name is the criterion's name, its object the Criterion class. Entry points are
read only when a name is not built in, or when every criterion is listed. In-process
code (a test, a notebook) can also register a class (`evalkit.extend.register_criterion`).
"""

from __future__ import annotations

from typing import Any

from evalkit.criteria.base import Criterion
from evalkit.foundation.registry import Registry

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
    # The managed Agent Platform metrics (agents-cli's metrics_to_run), run by evalkit's judges.
    **{name: f"evalkit.criteria.agent_platform.managed:{attr}" for name, attr in (
        ("final_response_match", "FinalResponseMatch"), ("hallucination", "Hallucination"), ("safety", "Safety"),
        ("grounding", "Grounding"), ("tool_use_quality", "ToolUseQuality"),
        ("final_response_quality", "FinalResponseQuality"),
        ("final_response_reference_free", "FinalResponseReferenceFree"), ("general_quality", "GeneralQuality"),
        ("text_quality", "TextQuality"), ("instruction_following", "InstructionFollowing"),
        ("multi_turn_task_success", "MultiTurnTaskSuccess"),
        ("multi_turn_trajectory_quality", "MultiTurnTrajectoryQuality"),
        ("multi_turn_tool_use_quality", "MultiTurnToolUseQuality"))},
}
# Their ids as agents-cli's `metrics_to_run` names them (evalkit.loading.platform_config).
AGENT_PLATFORM_METRICS = ("final_response_match", "hallucination", "safety", "grounding", "tool_use_quality",
                          "final_response_quality", "final_response_reference_free", "general_quality",
                          "text_quality", "instruction_following", "multi_turn_task_success",
                          "multi_turn_trajectory_quality", "multi_turn_tool_use_quality")


def _is_criterion_class(entry: Any) -> bool:
    return isinstance(entry, type) and issubclass(entry, Criterion)


CRITERIA: Registry[type[Criterion]] = Registry("criterion", ENTRY_POINT_GROUP, built_in=_BUILT_IN,
                                               accepts=_is_criterion_class, wanted="a Criterion class")


def register_criterion(criterion: type[Criterion]) -> type[Criterion]:
    """Make a criterion class available by its `name` (usable as a class decorator)."""
    return CRITERIA.register(criterion.name, criterion)
