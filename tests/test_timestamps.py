"""ISO 8601 times with a `Z` read the same on Python 3.10 (whose fromisoformat rejects it) as later."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from evalkit.foundation.timestamps import parse_iso_datetime


@pytest.mark.parametrize("text", ["2026-01-02T03:04:05Z", "2026-01-02T03:04:05z", "2026-01-02T03:04:05+00:00"])
def test_a_utc_time_is_read_with_its_zone(text):
    assert parse_iso_datetime(text) == datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def test_an_offset_and_a_bare_time_keep_what_they_say():
    assert parse_iso_datetime("2026-01-02T03:04:05+01:00").utcoffset() == timedelta(hours=1)
    assert parse_iso_datetime("2026-01-02").tzinfo is None


def test_what_is_not_a_time_is_a_value_error():
    with pytest.raises(ValueError):
        parse_iso_datetime("yesterday")
