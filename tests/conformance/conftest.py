"""The servers of the A2A conformance modules (tests/conformance/a2a_conformance.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def servers(request, tmp_path_factory):
    """The A2A servers the module names in SERVER_NAMES, started side by side on the scripted model."""
    from tests.conformance.a2a_conformance import scripted_model, started

    with scripted_model() as model:
        yield from started(request.module.SERVER_NAMES, model, tmp_path_factory)
