"""Judge options for criteria that, like CES and Vertex AI, ask the judge once per item.

ADK's `judge_model_options` default to 5 samples voted on; the CES and Vertex criteria
take the same options but default to one sample, as those services rate each item once.
"""

from __future__ import annotations

from pydantic import Field

from evalkit.criteria.judging.options import JudgeModelOptions


class SingleSampleJudgeOptions(JudgeModelOptions):
    num_samples: int = Field(default=1, ge=1, description="how many times the judge is asked about each item")
