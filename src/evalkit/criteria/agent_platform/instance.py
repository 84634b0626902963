"""What an agents-cli metric reads of a case: the `instance` dict and the prompt template's values.

`instance` is what the Agent Platform SDK hands a `custom_function`: the eval case as JSON
without `responses`, with `response` (the graded answer's Content) and, for a case with a
`prompt`, that prompt's Content. The template values are the texts a `prompt_template`'s
`{prompt}`, `{response}`, `{reference}`, `{context}` and `{agent_data}` stand for; a case
without a reference or a context has no such value, as on the platform.
"""

from __future__ import annotations

import json
from typing import Any

from evalkit.criteria.base import EvalContext
from evalkit.schema.content import Content
from evalkit.schema.platform_record import platform_case
from evalkit.schema.views import final_text, user_text


def instance_of(ctx: EvalContext) -> dict[str, Any]:
    case = platform_case(ctx.case, ctx.actual)
    responses = case.pop("responses", None) or []
    instance = {key: value for key, value in case.items() if key != "evalkit"}
    if responses:
        instance["response"] = responses[0]["response"]
    return instance


def template_values(ctx: EvalContext) -> dict[str, str]:
    """The placeholders' texts for the case's last turn."""
    turn = ctx.actual[-1]
    case = platform_case(ctx.case, ctx.actual)
    values = {"prompt": user_text(turn), "response": final_text(turn),
              "agent_data": json.dumps(case.get("agent_data") or {}, ensure_ascii=False)}
    reference = (case.get("reference") or {}).get("response")
    if reference is not None:
        values["reference"] = Content.model_validate(reference).text()
    context = case.get("context")
    if isinstance(context, str):
        values["context"] = context
    elif isinstance(context, dict):
        values["context"] = Content.model_validate(context).text()
    return values
