"""Which judge produced a verdict: `judge_model` and `prompt_hash`, recorded in each judged result.

The hash is of what the judge is asked, not of one case's filled-in prompt, so it is
the same for every case of a criterion: the criterion's name, its prompt templates
(`JudgeCriterion.prompt_identity`) and the options that change what the judge is asked
or how its replies become a verdict (rubrics, `num_samples`, `judge_model_config`, …).
Left out: the judge model (recorded beside it), `parallelism_limit` (only pacing) and
the calibration requirement itself. A calibration made with one hash does not vouch for
another (docs/criteria.md, "Trusting a judge").
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

# judge_model_options keys that do not change what the judge is asked.
_NOT_HASHED = {"judge_model", "parallelism_limit", "calibration"}
_HASH_LENGTH = 16


def provenance_of(judge_model: str, criterion: str, prompts: Sequence[str], options: BaseModel) -> dict[str, Any]:
    """A judged criterion's provenance, from its judge model, name, prompt identity and options."""
    return {"judge_model": judge_model, "prompt_hash": prompt_hash(criterion, prompts, options)}


def prompt_hash(criterion: str, prompts: Sequence[str], options: BaseModel) -> str:
    dumped = options.model_dump(mode="json", exclude={"judge_model_options": _NOT_HASHED})
    identity = {"criterion": criterion, "prompts": list(prompts), "options": dumped}
    text = json.dumps(identity, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:_HASH_LENGTH]
