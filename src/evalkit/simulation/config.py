"""`user_simulator_config`: how the LLM that plays the user is set up (docs/adk-parity.md, "User simulator").

The same fields, spellings (snake_case or camelCase) and defaults as ADK's
`LlmBackedUserSimulatorConfig`. Where ADK lets a mistake through, evalkit reports it
before anything runs (exit 2): an unknown key (ADK keeps and ignores it), a turn
limit of 0 or below -1, a `custom_instructions` template that a scenario with a
persona cannot use (ADK finds that out mid-run), and the `llm_audio` type, which only
ADK's Live-mode audio evaluation uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from evalkit.errors import InputError, Problem
from evalkit.schema.genai_config import checked_generate_content_config

DEFAULT_SIMULATOR_MODEL = "gemini-2.5-flash"
#: What the simulator writes to end the conversation. Fixed, as in ADK: the
#: `stop_signal` option of per_turn_user_simulator_quality_v1 does not change it.
STOP_SIGNAL = "</finished>"

TEMPLATE_VARIABLES = ("stop_signal", "conversation_plan", "conversation_history")
PERSONA_VARIABLE = "persona"


def _default_model_configuration() -> dict[str, Any]:
    # ADK lets the simulator think before it writes (thoughts are not sent to the agent).
    return {"thinking_config": {"include_thoughts": True, "thinking_budget": 10240}}


class LlmBackedUserSimulatorConfig(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    type: Literal["llm_backed"] = Field(
        default="llm_backed", description="the simulator kind; only 'llm_backed' (the default) is supported"
    )
    model: str = Field(
        default=DEFAULT_SIMULATOR_MODEL,
        min_length=1,
        description="model playing the user: a Gemini model name, or openai/<model>",
    )
    model_configuration: dict[str, Any] = Field(
        default_factory=_default_model_configuration,
        description="google-genai GenerateContentConfig fields for the simulator's model",
    )
    max_allowed_invocations: int = Field(
        default=20,
        description="most user messages per conversation, the starting prompt and the closing "
        "stop-signal reply included; -1 for no limit",
    )
    custom_instructions: str | None = Field(
        default=None,
        description="a Jinja template replacing the simulator's instructions; it must use "
        "{{ stop_signal }}, {{ conversation_plan }}, {{ conversation_history }} "
        "and, for scenarios with a persona, {{ persona }}",
    )
    include_function_calls: bool = Field(
        default=False, description="show the simulator the agent's tool calls and results too"
    )

    @field_validator("type", mode="before")
    @classmethod
    def _supported_type(cls, value: Any) -> Any:
        if value is None:  # as ADK: an explicit null is the legacy default, not "no simulator kind"
            return "llm_backed"
        if value == "llm_audio":
            raise ValueError(
                "'llm_audio' simulates a speaking user for ADK's Live (streaming audio) mode, "
                "which evalkit does not run; use 'llm_backed'"
            )
        return value

    @field_validator("max_allowed_invocations")
    @classmethod
    def _a_usable_limit(cls, value: int) -> int:
        # ADK accepts 0 (every conversation ends before the starting prompt) and treats
        # any negative number as "no limit"; both are more likely slips than intent.
        if value == 0 or value < -1:
            raise ValueError(f"must be at least 1 (the starting prompt counts), or -1 for no limit; found {value}")
        return value

    @field_validator("model_configuration", mode="before")
    @classmethod
    def _a_generate_content_config(cls, value: Any) -> Any:
        if value is None:
            return _default_model_configuration()
        return checked_generate_content_config(value)

    @field_validator("custom_instructions")
    @classmethod
    def _a_usable_template(cls, value: str | None) -> str | None:
        if value is None:
            return None
        missing = missing_template_variables(value, TEMPLATE_VARIABLES)
        if missing:
            raise ValueError(
                "the template must use " + ", ".join("{{ " + name + " }}" for name in missing)
                + " (Jinja syntax)"
            )
        return value

    @classmethod
    def from_raw(cls, raw: dict[str, Any] | None) -> LlmBackedUserSimulatorConfig:
        """The config from its raw dict (None means all defaults); InputError if invalid."""
        if raw is None:
            return cls()
        try:
            return cls.model_validate(raw)
        except ValidationError as error:
            raise InputError(_problems(error, "")) from None


def missing_template_variables(template: str, required: tuple[str, ...]) -> list[str]:
    """The `required` variables a Jinja template never reads; ValueError if it does not parse."""
    from jinja2 import TemplateSyntaxError, meta
    from jinja2.sandbox import SandboxedEnvironment

    try:
        parsed = SandboxedEnvironment().parse(template)
    except TemplateSyntaxError as error:
        raise ValueError(f"not a valid Jinja template: line {error.lineno}: {error.message}") from None
    used = meta.find_undeclared_variables(parsed)
    return [name for name in required if name not in used]


def simulator_config_problems(
    raw: dict[str, Any] | None, cases: list[Any], evalset_file: Path, config_file: Path | None
) -> list[Problem]:
    """Everything wrong with a config's `user_simulator_config` for these eval cases.

    Checked when eval sets are loaded (`run` and `validate`), so a bad simulator setup
    is exit 2 before any agent runs: the config's own fields, a custom template that
    lacks `{{ persona }}` while a scenario has a persona, and a scenario whose starting
    prompt is empty (ADK would fail that case mid-run).
    """
    problems: list[Problem] = []
    config_name = str(config_file or "default config")
    config: LlmBackedUserSimulatorConfig | None = None
    if raw is not None:
        try:
            config = LlmBackedUserSimulatorConfig.model_validate(raw)
        except ValidationError as error:
            problems += _problems(error, config_name)
    for case in cases:
        scenario = getattr(case, "conversation_scenario", None)
        if scenario is None:
            continue
        where = f"eval case {case.eval_id!r}"
        if not scenario.starting_prompt.strip():
            problems.append(Problem(str(evalset_file), f"{where}: conversation_scenario.starting_prompt",
                                    "is empty; the simulated user needs a first message to send"))
        if (config is not None and config.custom_instructions is not None and scenario.user_persona is not None
                and missing_template_variables(config.custom_instructions, (PERSONA_VARIABLE,))):
            problems.append(Problem(
                config_name, "user_simulator_config.custom_instructions",
                f"{where} in {evalset_file} has a user_persona, so the template must use {{{{ persona }}}}",
            ))
    return problems


def _problems(error: ValidationError, file: str) -> list[Problem]:
    problems: list[Problem] = []
    for item in error.errors(include_url=False):
        field = ".".join(str(p) for p in item["loc"])
        where = "user_simulator_config" + (f".{field}" if field else "")
        if item["type"] == "extra_forbidden":
            known = ", ".join(LlmBackedUserSimulatorConfig.model_fields)
            message = f"unknown key (the keys are {known})"
        else:
            message = item["msg"].removeprefix("Value error, ")
        problems.append(Problem(file, where, message))
    return problems
