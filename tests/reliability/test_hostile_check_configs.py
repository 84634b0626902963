"""`response_checks_v1` configs that cannot work are refused when the config loads (exit 2 naming the
file and the check), never found out while scoring: a `$ref` to another file or a URL, a `$ref` that
leads back to itself, a `$schema` draft nobody knows, `"regex": "yes"`."""

from __future__ import annotations

import json

import pytest

from tests.devloop.helpers import WEATHER, evalkit

AGENT = "examples/weather_agent/agent.py:weather_agent"

REFUSED = [
    ({"contains": "x", "regex": "yes"}, "regex: input should be a valid boolean"),
    ({"json_schema": {"$schema": "https://example.com/draft-99", "type": "object"}},
     "$schema 'https://example.com/draft-99' is no JSON Schema draft evalkit knows"),
    ({"json_schema": {"$ref": "#"}}, "its $ref leads back to itself without end"),
    ({"json_schema": {"$ref": "https://example.com/schema.json"}}, "points outside the schema"),
    ({"json_schema": {"properties": {"a": {"$ref": "file:///etc/passwd"}}}},
     "/properties/a: $ref 'file:///etc/passwd' points outside the schema"),
    ({"json_schema": {"patternProperties": {"^x": {}}, "unevaluatedProperties": False}},
     "unevaluatedProperties with patternProperties is not supported"),
]


@pytest.mark.parametrize(("check", "reason"), REFUSED)
def test_a_check_that_cannot_work_stops_the_run_before_it_starts(tmp_path, check, reason):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"criteria": {"response_checks_v1": {"threshold": 1.0, "checks": [check]}}}))
    done = evalkit("run", WEATHER, "--config", str(config), "--quiet", tmp_path=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert str(config) in done.stderr and reason in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_a_recursive_schema_with_a_base_case_still_scores(tmp_path):
    node = {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"criteria": {"response_checks_v1": {"threshold": 1.0, "checks": [
        {"json_schema": {"$defs": {"node": node}, "$ref": "#/$defs/node"}}]}}}))
    done = evalkit("run", WEATHER, "--agent", AGENT, "--config", str(config), "--quiet", tmp_path=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr  # the weather answers are not JSON: failed, not refused
