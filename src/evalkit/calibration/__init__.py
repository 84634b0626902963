"""Judges you can trust: people's labels, the judge's agreement with them, and the gate on it.

`labels.py` (the labels file), `agreement.py` (κ, agreement and its interval),
`judged.py` (the judged cases of result files), `report.py` (`evalkit calibrate`),
`provenance.py` (judge_model and prompt_hash), `option.py` and `requirement.py`
(`judge_model_options.calibration` and the gate),
`walk.py` (`evalkit label`). See docs/criteria.md, "Trusting a judge".
"""
