"""`response_evaluation_score`: ADK's Vertex AI coherence criterion, accepted and reported not evaluated.

ADK 2.13 (`ResponseEvaluator`) scores it with Vertex AI's hosted Gen AI evaluation
service: each turn's prompt, response and reference go to `client.evals.evaluate` with
`PrebuiltMetric.COHERENCE`, and the service's own judge (model and prompt not
published) answers a score from 1 to 5. Nothing of that can be computed here without
calling Vertex, which evalkit does not do; ADK itself fails without Google Cloud
credentials. So a config naming it is valid (its threshold on the 1–5 scale), and
every case reports it `not_evaluated`, with the reason and what to use instead.
"""

from __future__ import annotations

from evalkit.criteria.base import Criterion, EvalContext, Outcome
from evalkit.schema.results import InvocationScore, Status

REASON = ("scored only by Vertex AI's hosted coherence metric (ADK sends each turn to the Vertex Gen AI "
          "evaluation service), which evalkit does not call; for a coherence judge you can run, use "
          "pointwise_metric with \"template\": \"coherence\" (docs/criteria.md)")


class ResponseEvaluationScoreCriterion(Criterion):
    name = "response_evaluation_score"
    description = "ADK's Vertex AI coherence score (1-5): accepted, reported not evaluated (needs Vertex AI)"
    requires_expected = True
    score_range = (1.0, 5.0)

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        turns = [InvocationScore(status=Status.NOT_EVALUATED, details={"reason": REASON}) for _ in ctx.actual]
        return Outcome(score=None, status=Status.NOT_EVALUATED, invocations=turns, details={"reason": REASON})
