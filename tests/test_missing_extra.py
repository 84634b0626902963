"""A missing optional package names how to install it, or, where that Python cannot have it, which Python can."""

from __future__ import annotations

import sys

from evalkit.errors import ExitCode, MissingExtraError


def test_the_hint_installs_the_package_where_this_python_can_have_it():
    error = MissingExtraError("Running an ADK agent", "adk", "google-adk", "google-adk>=2.13,<3",
                              python=sys.version_info[:2])
    assert str(error) == ("Running an ADK agent needs the optional package 'google-adk': "
                          'pip install "google-adk>=2.13,<3" (or, in evalkit\'s checkout, pip install -e ".[adk]")')
    assert error.exit_code == ExitCode.INPUT


def test_the_hint_names_the_python_the_package_needs_when_this_one_is_older():
    running = f"{sys.version_info[0]}.{sys.version_info[1]}"
    error = MissingExtraError("Running an ADK agent", "adk", "google-adk", "google-adk>=2.13,<3",
                              python=(sys.version_info[0] + 1, 0))
    assert str(error) == (f"Running an ADK agent needs the optional package 'google-adk', which needs Python "
                          f"{sys.version_info[0] + 1}.0 or later (this is Python {running}): "
                          f"run evalkit under Python {sys.version_info[0] + 1}.0 or later")
    assert error.exit_code == ExitCode.INPUT
