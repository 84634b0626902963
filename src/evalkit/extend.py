"""What a plug-in imports: the public face for extending evalkit (docs/extending.md).

A criterion, an agent kind (a prefix, its loader and its traits) or a judge backend
written in another package needs only
the names below. Everything else under `evalkit.` is evalkit's own and may move. Each
kind of plug-in has one `Registry`: installed packages add to it through an entry point
group (`evalkit.criteria`, `evalkit.agents`, `evalkit.judges`, `evalkit.reports`); code in the running
process (a test, a notebook) through its `register_*` function.

Importing this module is cheap: no model client, no ADK, no metric library.
"""

from __future__ import annotations

from evalkit.agents.base import Agent, AgentSession, SessionSpec
from evalkit.agents.kinds import AgentKind, AgentLoader
from evalkit.agents.prefixes import AGENT_PREFIXES, register_agent_prefix
from evalkit.agents.registry import agent_from_object
from evalkit.agents.turn_protocol import Turn
from evalkit.criteria.base import Criterion, CriterionOptions, EvalContext, NoOptions, Outcome
from evalkit.criteria.registry import CRITERIA, register_criterion
from evalkit.errors import AgentError, AgentLoadError, AgentOverloaded, InputError, JudgeError
from evalkit.foundation.overloads import report_upstream_overload
from evalkit.foundation.registry import PluginLoadError, Registry, UnknownName
from evalkit.judge.backends import JUDGE_BACKENDS, JudgeBackendClass, register_judge_backend
from evalkit.report.formats import REPORTS, ReportFormat
from evalkit.judge.base import JudgeBackend, JudgeReply, JudgeRequest, JudgeUnavailable, TransientJudgeError
from evalkit.schema.content import Content, FunctionCall, FunctionResponse, Part, content_text
from evalkit.schema.evalset import ConversationScenario, EvalCase, Invocation
from evalkit.schema.results import InvocationScore, Status
from evalkit.schema.views import final_text, tool_calls, tool_responses, user_text
from evalkit.settings import RunSettings

# Sorted; docs/extending.md says which names each kind of plug-in uses.
__all__ = [
    "AGENT_PREFIXES",
    "CRITERIA",
    "JUDGE_BACKENDS",
    "REPORTS",
    "Agent",
    "AgentError",
    "AgentKind",
    "AgentLoadError",
    "AgentLoader",
    "AgentOverloaded",
    "AgentSession",
    "Content",
    "ConversationScenario",
    "Criterion",
    "CriterionOptions",
    "EvalCase",
    "EvalContext",
    "FunctionCall",
    "FunctionResponse",
    "InputError",
    "Invocation",
    "InvocationScore",
    "JudgeBackend",
    "JudgeBackendClass",
    "JudgeError",
    "JudgeReply",
    "JudgeRequest",
    "JudgeUnavailable",
    "NoOptions",
    "Outcome",
    "Part",
    "PluginLoadError",
    "Registry",
    "ReportFormat",
    "RunSettings",
    "SessionSpec",
    "Status",
    "TransientJudgeError",
    "Turn",
    "UnknownName",
    "agent_from_object",
    "content_text",
    "final_text",
    "register_agent_prefix",
    "register_criterion",
    "register_judge_backend",
    "report_upstream_overload",
    "tool_calls",
    "tool_responses",
    "user_text",
]
