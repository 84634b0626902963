"""Hypothesis profiles for the fuzzing tests: `ci` (the default: seeded, a few dozen examples a test,
fast) and `long` (thousands, for a local hunt): `HYPOTHESIS_PROFILE=long python -m pytest tests/reliability`."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                                       HealthCheck.data_too_large]}
settings.register_profile("ci", max_examples=25, derandomize=True, database=None, **_COMMON)
settings.register_profile("long", max_examples=2000, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
