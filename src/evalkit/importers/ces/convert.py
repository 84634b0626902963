"""CES evaluations → evalkit eval cases and an EvalConfig `criteria` dictionary.

A golden becomes a conversation: each golden turn is one invocation whose user message
is the turn's user input, whose expected tool calls and responses come from its
`toolCall` / `toolResponse` expectations and whose expected final response is its
`agentResponse` text. `mockToolResponse` expectations become the case's `tool_mocks`
for that turn. Every expectation is also kept, with its note, under the case's `ces`
key for the CES criteria. A scenario becomes a conversation scenario for the user
simulator. Thresholds become the thresholds of the CES criteria in `test_config.json`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from evalkit.schema.ces_case import EXTENSION_KEY
from evalkit.schema.ces import Evaluation, GoldenTurn, MetricsThresholds, Scenario

DEFAULT_SEMANTIC_THRESHOLD = 3
DEFAULT_PARAMETER_THRESHOLD = 1.0
DEFAULT_OVERALL_TOOL_THRESHOLD = 1.0
DEFAULT_EXTRA_TOOL_CALLS = "FAIL"
SCENARIO_OPENING = "Hello."
DEFAULT_USER_ID = "ces_user"


@dataclass
class Conversion:
    cases: list[dict[str, Any]] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def slug(text: str) -> str:
    """A file- and id-safe form of a display name: letters, digits, `_`, `-` and `.`."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "_", text.strip()).strip("_.")
    return cleaned or "ces_evaluation"


def convert(evaluations: list[Evaluation], fallback_name: str) -> Conversion:
    result = Conversion()
    config_thresholds = evaluations[0].evaluation_metrics_threshold_override
    used: dict[str, int] = {}
    for position, evaluation in enumerate(evaluations):
        eval_id = _unique(slug(evaluation.identifier(f"{fallback_name}_{position + 1}")), used)
        where = f"evaluation {eval_id!r}"
        if evaluation.golden is not None:
            case = _golden_case(evaluation, eval_id, where, result.warnings)
        else:
            case = _scenario_case(evaluation, eval_id, where, result.warnings)
        override = evaluation.evaluation_metrics_threshold_override
        if override is not None and override != config_thresholds:
            case.setdefault(EXTENSION_KEY, {})["thresholds"] = _dump(override)
        result.cases.append(case)
    result.config = _config(evaluations, config_thresholds, result.warnings)
    return result


def _unique(name: str, used: dict[str, int]) -> str:
    used[name] = used.get(name, 0) + 1
    return name if used[name] == 1 else f"{name}_{used[name]}"


def _dump(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


# ---- golden ------------------------------------------------------------------------


def _golden_case(evaluation: Evaluation, eval_id: str, where: str, warnings: list[str]) -> dict[str, Any]:
    assert evaluation.golden is not None
    conversation: list[dict[str, Any]] = []
    turns_data: list[dict[str, Any]] = []
    mocks: list[dict[str, Any]] = []
    state: dict[str, Any] = {}
    for index, turn in enumerate(evaluation.golden.turns):
        turn_where = f"{where}, turn {index + 1}"
        conversation.append(_invocation(turn, eval_id, index, turn_where, warnings, state, mocks))
        data: dict[str, Any] = {"expectations": [_dump(s.expectation) for s in turn.steps if s.expectation]}
        if turn.turn_level_metrics_thresholds_override is not None:
            data["thresholds"] = _dump(turn.turn_level_metrics_thresholds_override)
        turns_data.append(data)
    if evaluation.golden.evaluation_expectations:
        warnings.append(f"{where}: evaluationExpectations (LLM criteria stored in CES) are not imported")
    case: dict[str, Any] = {"eval_id": eval_id, "conversation": conversation}
    if state:
        case["session_input"] = {"app_name": _app_name(evaluation), "user_id": DEFAULT_USER_ID, "state": state}
    if mocks:
        case["tool_mocks"] = mocks
    ces: dict[str, Any] = {"turns": turns_data}
    if evaluation.name:
        ces["evaluation"] = evaluation.name
    case[EXTENSION_KEY] = ces
    return case


def _invocation(
    turn: GoldenTurn, eval_id: str, index: int, where: str, warnings: list[str],
    state: dict[str, Any], mocks: list[dict[str, Any]],
) -> dict[str, Any]:
    user_texts: list[str] = []
    tool_uses: list[dict[str, Any]] = []
    responses: list[dict[str, Any]] = []
    replies: list[str] = []
    mocked: set[str] = set()
    for step in turn.steps:
        if step.user_input is not None:
            user_texts += _user_text(step.user_input, index, where, warnings, state)
        elif step.agent_transfer is not None:
            warnings.append(f"{where}: the forced transfer to {step.agent_transfer.agent_name!r} is not replayed; "
                            "the agent under test starts the turn as usual")
        elif step.expectation is not None:
            expectation = step.expectation
            if expectation.tool_call is not None:
                call = expectation.tool_call
                tool_uses.append({"name": call.tool_name, "args": dict(call.args), **({"id": call.id} if call.id else {})})
            elif expectation.tool_response is not None:
                response = expectation.tool_response
                responses.append({"name": response.tool_name, "response": dict(response.response),
                                  **({"id": response.id} if response.id else {})})
            elif expectation.agent_response is not None:
                replies.append(expectation.agent_response.text())
            elif expectation.mock_tool_response is not None:
                mock = expectation.mock_tool_response
                if mock.tool_name in mocked:
                    warnings.append(f"{where}: {mock.tool_name!r} is mocked twice in one turn; the last response is used")
                mocked.add(mock.tool_name)
                mocks.append({"name": mock.tool_name, "response": dict(mock.response), "invocation_index": index})
    if not user_texts:
        warnings.append(f"{where}: no user text; the turn sends an empty message")
    invocation: dict[str, Any] = {
        "invocation_id": f"{eval_id}-turn-{index + 1}",
        "user_content": {"role": "user", "parts": [{"text": "\n".join(user_texts)}]},
    }
    if replies:
        invocation["final_response"] = {"role": "model", "parts": [{"text": "\n".join(replies)}]}
    if tool_uses or responses:
        invocation["intermediate_data"] = {"tool_uses": tool_uses, "tool_responses": responses}
    return invocation


def _user_text(user_input: Any, index: int, where: str, warnings: list[str], state: dict[str, Any]) -> list[str]:
    texts: list[str] = []
    if user_input.text is not None:
        texts.append(user_input.text)
    if user_input.dtmf is not None:
        texts.append(user_input.dtmf)
    if user_input.variables:
        if index == 0:
            state.update(user_input.variables)  # the session starts with them
        else:
            warnings.append(f"{where}: variables set in a later turn are not applied (only the first turn's "
                            "become the session state)")
    for kind in ("audio", "image", "blob", "event", "tool_responses"):
        if getattr(user_input, kind) is not None:
            warnings.append(f"{where}: user input of kind {kind!r} is not supported and was left out")
    return texts


def _app_name(evaluation: Evaluation) -> str:
    match = re.search(r"/apps/([^/]+)", evaluation.name or "")
    return match.group(1) if match else "ces_app"


# ---- scenario ----------------------------------------------------------------------


def _scenario_case(evaluation: Evaluation, eval_id: str, where: str, warnings: list[str]) -> dict[str, Any]:
    scenario = evaluation.scenario
    assert scenario is not None
    case: dict[str, Any] = {
        "eval_id": eval_id,
        "conversation_scenario": {"starting_prompt": SCENARIO_OPENING, "conversation_plan": _plan(scenario)},
    }
    if scenario.variable_overrides:
        case["session_input"] = {"app_name": _app_name(evaluation), "user_id": DEFAULT_USER_ID,
                                 "state": dict(scenario.variable_overrides)}
    if scenario.rubrics:
        case["rubrics"] = [
            {"rubric_id": f"ces_rubric_{n + 1}", "rubric_content": {"text_property": text}, "type": "TRAJECTORY_QUALITY"}
            for n, text in enumerate(scenario.rubrics)
        ]
    mocks = [
        {"name": e.tool_expectation.mock_tool_response.tool_name,
         "response": dict(e.tool_expectation.mock_tool_response.response)}
        for e in scenario.scenario_expectations
        if e.tool_expectation is not None and e.tool_expectation.mock_tool_response is not None
    ]
    if mocks:
        case["tool_mocks"] = mocks
    ces: dict[str, Any] = {"scenario_expectations": [_dump(e) for e in scenario.scenario_expectations]}
    if evaluation.name:
        ces["evaluation"] = evaluation.name
    case[EXTENSION_KEY] = ces
    if scenario.evaluation_expectations:
        warnings.append(f"{where}: evaluationExpectations (LLM criteria stored in CES) are not imported")
    if scenario.task_completion_behavior or scenario.user_goal_behavior:
        warnings.append(f"{where}: taskCompletionBehavior / userGoalBehavior are not imported")
    return case


def _plan(scenario: Scenario) -> str:
    """The simulated user's plan: CES's task, then the facts the user may give."""
    plan = scenario.task.strip()
    if scenario.user_facts:
        facts = "\n".join(f"- {fact.name}: {fact.value}" for fact in scenario.user_facts)
        plan += f"\n\nFacts you know and can give when asked:\n{facts}"
    return plan


# ---- thresholds → criteria -----------------------------------------------------------


def _config(evaluations: list[Evaluation], thresholds: MetricsThresholds | None, warnings: list[str]) -> dict[str, Any]:
    golden = thresholds.golden_evaluation_metrics_thresholds if thresholds else None
    turn = golden.turn_level_metrics_thresholds if golden else None
    level = golden.expectation_level_metrics_thresholds if golden else None
    matching = golden.tool_matching_settings if golden else None

    semantic = _pick(turn and turn.semantic_similarity_success_threshold, DEFAULT_SEMANTIC_THRESHOLD)
    parameter = _pick(level and level.tool_invocation_parameter_correctness_threshold, DEFAULT_PARAMETER_THRESHOLD)
    overall = _pick(turn and turn.overall_tool_invocation_correctness_threshold, DEFAULT_OVERALL_TOOL_THRESHOLD)
    extra = matching.extra_tool_call_behavior if matching and matching.extra_tool_call_behavior in ("FAIL", "ALLOW") \
        else DEFAULT_EXTRA_TOOL_CALLS

    expectations = [step.expectation for e in evaluations if e.golden for t in e.golden.turns
                    for step in t.steps if step.expectation is not None]
    kinds = {expectation.kind for expectation in expectations}
    criteria: dict[str, Any] = {}
    if any(expectation.compared_by_meaning for expectation in expectations):
        criteria["ces_semantic_similarity"] = semantic
    if "tool_call" in kinds:
        criteria["ces_tool_parameter_correctness"] = parameter
    if any(e.golden for e in evaluations):
        criteria["ces_tool_invocation"] = {"threshold": overall, "extra_tool_call_behavior": extra,
                                           "tool_parameter_correctness_threshold": parameter}
    if kinds - {"mock_tool_response"} or any(e.scenario and e.scenario.scenario_expectations for e in evaluations):
        criteria["ces_expectations"] = {
            "threshold": 1.0,
            "tool_parameter_correctness_threshold": parameter,
            "semantic_similarity_threshold": semantic,
        }
    scenarios = [e.scenario for e in evaluations if e.scenario is not None]
    if any(s.rubrics for s in scenarios):
        # CES gives rubrics no pass mark, so none is invented here: the rubrics are kept on
        # the cases (type TRAJECTORY_QUALITY) for a rubric criterion the user adds.
        warnings.append("scenario rubrics were kept on the cases as TRAJECTORY_QUALITY rubrics; add "
                        "rubric_based_multi_turn_trajectory_quality_v1 with a threshold to score them")
    if not criteria:
        warnings.append("these evaluations hold nothing the CES criteria can check; add criteria to test_config.json")
    config: dict[str, Any] = {"criteria": criteria}
    turns = {s.max_turns for s in scenarios if s.max_turns is not None}
    if turns:
        config["user_simulator_config"] = {"max_allowed_invocations": max(turns)}
        if len(turns) > 1:
            warnings.append(f"scenarios allow different numbers of turns; the largest ({max(turns)}) applies to all")
    return config


def _pick(value: Any, default: Any) -> Any:
    return default if value is None else value

