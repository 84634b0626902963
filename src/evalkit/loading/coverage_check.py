"""`evalkit validate`: tools the expected turns name that the config's `coverage` does not declare.

The static half of coverage's `unknown` (docs/coverage.md): with the agent's tools declared
in the config, a misspelt tool name in an eval set is found before anything runs. An
agent whose tools only its own code knows (an in-process ADK agent) is not imported
here, so its eval sets are checked by the run instead, which lists them as `unknown`.
"""

from __future__ import annotations

from evalkit.loading.packed import unpacked
from evalkit.loading.plan import PlannedSet
from evalkit.results.coverage import TRANSFER_TOOL
from evalkit.schema.views import tool_calls


def undeclared_tool_warnings(planned: PlannedSet) -> list[str]:
    """One warning per expected tool call of an undeclared tool (none without a declaration)."""
    declaration = planned.config.coverage
    if declaration is None or not declaration.tools:
        return []
    from evalkit.foundation.suggestions import did_you_mean

    declared = declaration.inventory().tools
    warnings = []
    for packed in planned.cases:
        case = unpacked(packed)
        for index, turn in enumerate(case.conversation or ()):
            for call in tool_calls(turn):
                if call.name and call.name != TRANSFER_TOOL and call.name not in declared:
                    warnings.append(
                        f"{planned.file}: eval case {case.eval_id!r}: conversation[{index}]: tool {call.name!r} is not "
                        f"among the tools {planned.config_file} declares under coverage{did_you_mean(call.name, declared)}"
                        "; fix the name, or declare the tool")
    return warnings
