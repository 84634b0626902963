"""The budget ledger's interface, as an engine that runs cases elsewhere uses it: spend recorded
here and spend told by a worker add up, and the question before a case starts follows them."""

from __future__ import annotations

import pickle

from evalkit.criteria.extended.cost import Price
from evalkit.engine.budget import Budget, Ledger, Spend

PRICES = {"flash": Price(input=1.0, output=4.0), "*": Price(input=2.0, output=8.0)}


def test_a_workers_spend_and_this_ledgers_own_add_up_to_the_budget():
    ledger = Ledger(Budget(max_model_calls=3, max_tokens=10_000), PRICES)
    ledger.record("flash", 1_000, 500)
    assert ledger.may_start()
    worker = Ledger(Budget(max_model_calls=3), PRICES)  # a ledger in another process, its spend sent back
    worker.add(ledger.spend())  # told what the run had spent when its chunk began
    before = worker.spend()
    worker.record("flash-lite-002", 200, 100)
    worker.record_judge("openai/gpt-x", 100, 0)  # no price of its own: the "*" entry
    assert not worker.may_start()  # the run's three calls, as the worker knows them
    shipped = pickle.loads(pickle.dumps(worker.spend() - before))  # only what its chunk spent

    ledger.add(shipped)

    assert ledger.spend() == Spend(3, 1_300, 600, (1_000 * 1 + 500 * 4 + 200 * 1 + 100 * 4 + 100 * 2) / 1e6)
    assert not ledger.may_start()
    ledger.skipped(5)
    figures = ledger.figures()
    assert (figures.reached, figures.not_started, figures.model_calls, figures.tokens) == ("--max-model-calls", 5, 3, 1_900)
    assert figures.reached_line() == ("budget --max-model-calls 3 reached: 3 model calls, 1,900 tokens, 0.0038 USD "
                                      "spent; 5 cases not started")


def test_each_limit_is_reached_at_spent_equal_to_allowed_and_an_unknown_price_reaches_any_cost_limit():
    assert Budget(max_tokens=150).reached_by(Spend(1, 100, 50)) == "max_tokens"
    assert Budget(max_tokens=151).reached_by(Spend(1, 100, 50)) is None
    assert Budget(max_cost=0.5).reached_by(Spend(2, cost=0.5)) == "max_cost"
    assert Budget(max_cost=100).reached_by(Spend(1, unpriced=("house-model",))) == "max_cost"
    assert Budget(max_model_calls=2).reached_by(Spend(1, unpriced=("house-model",))) is None

    ledger = Ledger(Budget(max_cost=100), {"flash": Price(input=1.0, output=1.0)})
    ledger.record("house-model", 10, 10)
    assert not ledger.may_start()
    assert ledger.figures().cost is None and ledger.figures().unpriced_models == ["house-model"]
    assert ledger.figures().not_started_reason() == "not started: --max-cost 100 reached"
