"""Judges you can trust: people's labels, the judge's agreement with them, and the gate on it.

`labels.py` (the labels file), `agreement.py` (κ, agreement and its interval),
`judged.py` (the judged cases of result files), `report.py` (`evalkit calibrate`),
`walk.py` (`evalkit label`). The criteria's side (judge_model and prompt_hash, the
`judge_model_options.calibration` gate) is in `evalkit.criteria.judging`, below this
package. See docs/criteria.md, "Trusting a judge".
"""
