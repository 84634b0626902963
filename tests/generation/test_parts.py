"""The generation's parts alone: which targets are refused and why, what counts as the same proposal, the reply's shape."""

from __future__ import annotations

import json

import pytest

from evalkit.generation.items import UNKNOWN_AGENT, UNKNOWN_PARAMETER, UNKNOWN_TOOL, PlannedReach, Targets
from evalkit.generation.proposals import NOT_THE_ASKED_SHAPE, NotTheAskedJson, Proposal, read_reply
from evalkit.schema.coverage import Inventory

INVENTORY = Inventory(tools={"book": ["day", "seats"], "lookup": None}, agents=["billing"])


@pytest.mark.parametrize(("targets", "reason"), [
    (Targets(tools=("book",)), None),
    (Targets(parameters=(("book", ("day",)),)), None),
    (Targets(parameters=(("lookup", ("anything",)),)), None),  # lookup's parameters are unknown: cannot be checked
    (Targets(tools=("refund",)), UNKNOWN_TOOL),
    (Targets(parameters=(("refund", ("order",)),)), UNKNOWN_TOOL),
    (Targets(parameters=(("book", ("day", "room")),)), UNKNOWN_PARAMETER),
    (Targets(agents=("shipping",)), UNKNOWN_AGENT),
])
def test_targets_naming_what_the_inventory_lacks_are_refused_with_its_kind(targets, reason):
    assert PlannedReach(INVENTORY).refusal(targets) == reason


def test_planned_coverage_counts_tools_pairs_and_agents_and_a_parameter_names_its_tool():
    reach = PlannedReach(INVENTORY)
    assert reach.size == 5  # book, lookup, (book, day), (book, seats), billing
    (proposal,) = read_reply(json.dumps({"scenarios": [{"starting_prompt": "a", "conversation_plan": "b",
                                                        "targets": {"parameters": {"book": ["day"]}}}]}),
                             with_mocks=False)
    assert isinstance(proposal, Proposal) and proposal.targets.tools == ("book",)
    reach.add(proposal.targets)
    assert reach.ratio == 2 / 5
    assert reach.describe() == "1 of 2 tools, 1 of 2 parameters, 0 of 1 sub-agents"
    assert reach.unreached() == (["lookup"], [("book", "seats")], ["billing"])


def test_sameness_ignores_case_whitespace_and_punctuation_only():
    def proposal(start: str, plan: str) -> Proposal:
        return Proposal(start, plan, Targets())

    assert proposal("Book a room, please!", "Say Monday.").sameness() == \
        proposal("book a  ROOM please", "say monday").sameness()
    assert proposal("Book a room", "Say Monday").sameness() != proposal("Book a room", "Say Tuesday").sameness()
    assert proposal("Costs $5", "x").sameness() != proposal("Costs 5", "x").sameness()  # a symbol is not punctuation


def test_a_scenario_without_the_asked_fields_is_refused_and_the_rest_kept():
    text = json.dumps({"scenarios": [{"starting_prompt": "", "conversation_plan": "b", "targets": {}},
                                     {"starting_prompt": "a", "conversation_plan": "b", "targets": {"tools": [1]}},
                                     {"starting_prompt": "a", "conversation_plan": "b"},
                                     {"starting_prompt": "a", "conversation_plan": "b", "targets": {},
                                      "tool_mocks": [{"name": "book", "response": {"ok": True}}]}]})
    *refused, kept = read_reply(text, with_mocks=True)
    assert refused == [NOT_THE_ASKED_SHAPE] * 3
    assert isinstance(kept, Proposal) and kept.tool_mocks == (("book", {"ok": True}),)
    (ordinary,) = read_reply(json.dumps({"scenarios": [json.loads(text)["scenarios"][3]]}), with_mocks=False)
    assert isinstance(ordinary, Proposal) and ordinary.tool_mocks == ()  # mocks only when adversarial


@pytest.mark.parametrize("text", ["", "Here you go", "[]", '{"scenarios": {}}', '{"cases": []}'])
def test_a_reply_that_is_not_the_asked_object_says_what_it_is(text):
    with pytest.raises(NotTheAskedJson):
        read_reply(text, with_mocks=False)
