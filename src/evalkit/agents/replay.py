"""`replay:RESULT.json`: no agent; re-score the actual turns stored in an earlier result.

Reads evalkit result files and ADK's `*.evalset_result.json` alike (through
`evalkit.results.reader`), so a run recorded by either tool can be scored again under a
different config.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalkit.agents.base import Agent, AgentSession, SessionSpec
from evalkit.errors import AgentError, InputError, SettingProblem
from evalkit.schema.content import Content
from evalkit.schema.evalset import Invocation

if TYPE_CHECKING:
    from evalkit.results.reader import ScoredCase


class ReplaySession(AgentSession):
    def __init__(self, turns: list[Invocation], where: str, state: dict[str, Any] | None = None):
        self.turns = turns
        self.where = where
        self.state = state
        self.no_state_reason = "the recorded run holds no final session state for this case"

    async def final_state(self) -> dict[str, Any] | None:
        return self.state

    def recorded_turns(self) -> list[Invocation]:
        return self.turns

    async def run_turn(self, user_content: Content, index: int) -> Invocation:
        if index >= len(self.turns):
            raise AgentError(f"{self.where}: the recorded run has only {len(self.turns)} turns")
        return self.turns[index]


class ReplayAgent(Agent):
    def __init__(self, recorded: dict[tuple[str, str], list[dict[str, Any]]], source: str,
                 cases: list[ScoredCase] | None = None, states: dict[tuple[str, str], dict[str, Any]] | None = None):
        self.recorded = recorded
        self.cases = cases or []  # the whole record, for `evalkit rescore`
        self.states = states or {}  # evalkit result files keep each case's final state
        self.source = source
        self.description = f"replay:{source}"
        # Where the recorded run kept its cases' media by hash (results/media_folder.py), to show them again.
        self.media_dirs: list[Path] = []

    @classmethod
    def from_file(cls, path: str, media_dir: Path | None = None) -> ReplayAgent:
        """The recorded run in `path`; its media, kept by hash, are read back from `media_dir`, else from
        the media folder beside `path` (a run made elsewhere, its `.evalkit/media` brought along)."""
        from evalkit.results.reader import read_scored_run

        run = read_scored_run(Path(path))
        states = {key: case.final_state for key, case in run.cases.items() if case.final_state is not None}
        agent = cls({key: case.actual for key, case in run.cases.items()}, path, list(run.cases.values()), states)
        from evalkit.results.media_folder import media_folders_near

        given = [media_dir] if media_dir is not None else []
        agent.media_dirs = list(dict.fromkeys([*given, *media_folders_near(Path(path))]))
        return agent

    def key_of(self, eval_set_id: str, eval_id: str) -> tuple[str, str] | None:
        """Which recorded case a case is: by eval set id and eval id, or by the eval id alone
        when exactly one recorded case has it (eval sets renamed between runs)."""
        if (eval_set_id, eval_id) in self.recorded:
            return (eval_set_id, eval_id)
        same_id = [key for key in self.recorded if key[1] == eval_id]
        return same_id[0] if len(same_id) == 1 else None

    def recording_of(self, eval_set_id: str, eval_id: str) -> list[dict[str, Any]] | None:
        key = self.key_of(eval_set_id, eval_id)
        return None if key is None else self.recorded[key]

    def check_cases(self, cases: list[tuple[str, str]]) -> None:
        missing = [(set_id, eval_id) for set_id, eval_id in cases if self.recording_of(set_id, eval_id) is None]
        if missing:
            raise InputError([SettingProblem(self.source, "", f"no recorded run of case {set_id}/{eval_id}; record "
                                                              "it again, or select the recorded cases with {case_ids}",
                                             mentions=("case_ids",))
                              for set_id, eval_id in missing])

    async def open_session(self, spec: SessionSpec) -> AgentSession:
        case_id = spec.case.eval_id
        key = self.key_of(spec.eval_set_id, case_id)
        where = f"{self.description}: case {case_id!r}"
        if key is None:
            raise AgentError(f"{where}: not in the recorded run")
        turns = self.recorded[key]
        if self.media_dirs:
            from evalkit.results.media_folder import with_media

            turns = [with_media(turn, self.media_dirs) for turn in turns]
        return ReplaySession([Invocation.model_validate(t) for t in turns], where, self.states.get(key))
