"""`evalkit generate --agent SPEC --out FILE`: conversation scenarios aimed at what no case reaches yet.

The agent's inventory (as coverage builds it: its own, else the recorded MCP listings of
`--cassettes`, joined with `--config`'s `coverage`) is known before any model call; none is
an input error. Then rounds of proposals (evalkit.generation.rounds) until the planned
coverage reaches `--min-coverage` or `--count` cases are kept; the eval set is written after
every round that kept a case, so a model that fails midway leaves the cases so far (exit 3).
A model that never answered is exit 2, and no file is written. docs/generate.md.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from evalkit.defaults import DEFAULT_GENERATE_MIN_COVERAGE
from evalkit.errors import InputError, JudgeError, Problem, UsageError
from evalkit.foundation.aio import run_sync
from evalkit.foundation.files import write_user_file
from evalkit.generation.eval_set import SAFETY_CRITERIA, config_document, document_text, eval_set_document
from evalkit.generation.items import PlannedReach
from evalkit.generation.rounds import Aim, Generation, generate
from evalkit.generation.writer_model import WriterModel
from evalkit.generation.request import model_config
from evalkit.loading.configs import CONFIG_NAMES
from evalkit.loading.evalset_paths import default_id
from evalkit.schema.config import EvalConfig
from evalkit.schema.coverage import Inventory
from evalkit.settings import RunSettings, check_partners


@dataclass(frozen=True)
class GenerateRequest:
    """generate's own flags (the agent, config, cassettes and --min-coverage are run settings)."""

    out: Path
    count: int
    model: str | None = None  # None: the judges' default model
    seed: int | None = None
    adversarial: bool = False


def generate_command(settings: RunSettings, request: GenerateRequest) -> int:
    check_partners(settings)
    if settings.cassettes is not None:
        from evalkit.cassettes.deck import check_cassette_options

        check_cassette_options(settings.cassettes, settings.cassette_mode)
    _check_out(request.out)
    config = _config(settings)
    agent_spec = settings.agent or _config_agent(settings, config)
    model = request.model or _default_model()
    eval_set_id = default_id(request.out)
    written = _Output(request, config, model,
                      DEFAULT_GENERATE_MIN_COVERAGE if settings.min_coverage is None else settings.min_coverage)

    async def inventory_then_rounds() -> tuple[Generation, WriterModel]:
        inventory, instruction = await _agent_facts(settings, config, agent_spec)
        aim = Aim(instruction, request.count, written.min_coverage, request.adversarial)
        writer = WriterModel(model, model_config(request.seed), settings.environment, cassettes=settings.cassettes,
                             cassette_mode=settings.cassette_mode, name=eval_set_id)

        def after_round(generation: Generation, line: str) -> None:
            print(line, file=sys.stderr, flush=True)
            if generation.cases and len(generation.cases) != written.cases:
                written.write(eval_set_id, generation)

        async with writer:
            return await generate(writer.ask, PlannedReach(inventory), aim, after_round), writer

    generation, writer = run_sync(inventory_then_rounds)
    return _finish(generation, writer, written, model)


def _shortfall(generation: Generation, min_coverage: float) -> str | None:
    """What the cases do not aim at when the generation ended below `min_coverage`, and what to do."""
    reach = generation.reach
    if reach.ratio >= min_coverage - 1e-12:
        return None
    tools, pairs, agents = reach.unreached()
    missing = [*(f"tool {t}" for t in tools), *(f"parameter {p} of {t}" for t, p in pairs if t not in tools),
               *(f"sub-agent {a}" for a in agents)]
    shown = ", ".join(missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
    return (f"planned coverage {reach.ratio:.2f} is below --min-coverage {min_coverage:g}; no case aims at {shown}; "
            "run generate again with a higher --count (into another file), or write those cases by hand")


def _finish(generation: Generation, writer: WriterModel, written: _Output, model: str) -> int:
    failure = generation.failure
    reason = (writer.missed() or str(failure)) if failure is not None else ""
    if failure is not None and not generation.answered:
        raise InputError(f"--model {model}: no answer from the model ({reason}); check where it is served and its "
                         "credentials (docs/generate.md), or replay recorded calls with --cassettes; no file was written")
    print(generation.summary())
    if written.cases:
        print(f"{written.cases} case{'s' if written.cases != 1 else ''} written to {written.out}"
              + (f" (and its config {written.config_path})" if written.config_written else ""))
    for note in (written.config_note, None if failure is not None else _shortfall(generation, written.min_coverage)):
        if note:
            print(f"evalkit: {note}", file=sys.stderr)
    if failure is not None:
        raise JudgeError(f"the model failed after {generation.rounds - 1} round(s): {reason}; the cases so far are "
                         f"kept in {written.out}; run generate again once the model answers (it writes the set anew)"
                         if written.cases else
                         f"the model failed after {generation.rounds - 1} round(s): {reason}; no case was kept")
    if not written.cases:
        raise JudgeError(f"the model's replies gave no usable case in {generation.rounds} round(s); no file was "
                         "written; try another --model, or look at its replies with --cassettes DIR --cassette-mode record")
    return 0


class _Output:
    """The eval set, rewritten after each round that kept a case, and its config, written once if missing."""

    def __init__(self, request: GenerateRequest, config: EvalConfig | None, model: str, min_coverage: float):
        self.request, self.config, self.model, self.min_coverage = request, config, model, min_coverage
        self.out = request.out
        self.cases = 0
        self.config_path = request.out.parent / CONFIG_NAMES[0]
        self.config_written = False
        self.config_note: str | None = None

    def write(self, eval_set_id: str, generation: Generation) -> None:
        adversarial = self.request.adversarial
        document = eval_set_document(eval_set_id, generation.cases, adversarial=adversarial)
        write_user_file(self.out, document_text(self.out, document))
        self.cases = len(generation.cases)
        if self.cases and not self.config_written and self.config_note is None:
            self._config_beside()

    def _config_beside(self) -> None:
        existing = next((self.out.parent / name for name in CONFIG_NAMES if (self.out.parent / name).is_file()), None)
        if existing is None:
            coverage = self.config.coverage if self.config is not None else None
            document = config_document(self.model, adversarial=self.request.adversarial, coverage=coverage)
            write_user_file(self.config_path, document_text(self.config_path, document))
            self.config_written = True
            return
        self.config_path = existing
        if self.request.adversarial and SAFETY_CRITERIA[0] not in _criteria_of(existing):
            self.config_note = (f"{existing} was already there and is left as it is, but it does not name "
                                f"{SAFETY_CRITERIA[0]}: add it (and {SAFETY_CRITERIA[1]}, which reads the cases' "
                                "rubric), or generate the adversarial cases into a folder of their own")


async def _agent_facts(settings: RunSettings, config: EvalConfig | None, spec: str | None
                       ) -> tuple[Inventory, str | None]:
    """The agent's inventory and instruction; an input error when nothing says what the agent can do."""
    from evalkit.agents.registry import resolve_agent
    from evalkit.engine.coverage import agent_inventory

    agent = resolve_agent(spec, None, settings)
    try:
        declared = config.coverage.inventory() if config is not None and config.coverage is not None else None
        inventory = await agent_inventory(agent, declared, settings.cassettes)
        instruction = agent.instruction()
    finally:
        await agent.aclose()
    if inventory is None or not (inventory.tools or inventory.agents):
        raise UsageError(
            f"--agent {spec}: evalkit knows no tool or sub-agent of this agent, so there is nothing to aim cases at; "
            "declare them under \"coverage\" in a config given with --config (docs/coverage.md), or give --cassettes "
            "DIR where `evalkit mcp` recorded the agent's MCP servers; an ADK agent declares its own")
    return inventory, instruction


def _criteria_of(config_file: Path) -> list[str]:
    """The criteria a config names (none when it cannot be read: `validate` and `run` will say why)."""
    from evalkit.foundation.documents import read_document

    try:
        data = read_document(config_file)
    except InputError:
        return []
    criteria = data.get("criteria") if isinstance(data, dict) else None
    return list(criteria) if isinstance(criteria, dict) else []


def _config(settings: RunSettings) -> EvalConfig | None:
    if settings.config is None:
        return None
    from evalkit.loading.configs import load_config

    return load_config(Path(settings.config))


def _config_agent(settings: RunSettings, config: EvalConfig | None) -> str:
    from evalkit.agents.registry import config_agent_spec, no_agent_error

    if config is None or not config.agent or settings.config is None:
        raise no_agent_error()
    return config_agent_spec(config.agent, Path(settings.config))


def _check_out(out: Path) -> None:
    if out.is_dir():
        raise UsageError(Problem(str(out), "", "is a folder; --out names the eval set file to write, such as "
                                               f"{out / 'generated.evalset.json'}"))


def _default_model() -> str:
    from evalkit.criteria.judging.options import DEFAULT_JUDGE_MODEL

    return DEFAULT_JUDGE_MODEL
