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
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalkit.criteria.judging.criterion import JudgeCriterion

# judge_model_options keys that do not change what the judge is asked.
_NOT_HASHED = {"judge_model", "parallelism_limit", "calibration"}
_HASH_LENGTH = 16


def provenance_of(criterion: JudgeCriterion) -> dict[str, Any]:
    return {"judge_model": criterion.judge_options.judge_model, "prompt_hash": prompt_hash(criterion)}


def prompt_hash(criterion: JudgeCriterion) -> str:
    options = criterion.options.model_dump(mode="json", exclude={"judge_model_options": _NOT_HASHED})
    identity = {"criterion": criterion.name, "prompts": criterion.prompt_identity(), "options": options}
    text = json.dumps(identity, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:_HASH_LENGTH]
