"""`evalkit import otel FILE... [--out PATH] [--since] [--until] [--service] [--conversation] [--max-cases] [--sample] [--seed]
[--group-by ATTR]`."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from evalkit.errors import UsageError
from evalkit.foundation.timestamps import parse_iso_datetime

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def import_otel_command(files: list[Path], out: Path | None, *, since: str | None = None, until: str | None = None,
                        services: list[str] | None = None, conversations: list[str] | None = None,
                        max_cases: int | None = None, sample: float | None = None,
                        seed: int | None = None, group_by: str | None = None) -> list[str]:
    """Write the eval set; return the lines to print (what was written, left out and not placed)."""
    from evalkit.defaults import DEFAULT_SAMPLE_SEED
    from evalkit.importers.otel.importer import OtelFilter, import_otel, summary_lines

    if max_cases is not None and max_cases < 1:
        raise UsageError(f"--max-cases {max_cases}: give at least 1")
    if sample is not None and not 0 < sample <= 1:
        raise UsageError(f"--sample {sample:g}: give the fraction of conversations to keep, above 0 and at most 1 "
                         "(e.g. 0.1)")
    chosen = OtelFilter(
        since_ns=_instant("--since", since), until_ns=_instant("--until", until),
        services=tuple(services or ()), conversations=tuple(conversations or ()),
        max_cases=max_cases, sample=sample, seed=DEFAULT_SAMPLE_SEED if seed is None else seed,
        group_by=group_by.strip() if group_by else None,
    )
    if group_by is not None and not group_by.strip():
        raise UsageError("--group-by needs an attribute name, e.g. --group-by session.id")
    if chosen.since_ns is not None and chosen.until_ns is not None and chosen.since_ns >= chosen.until_ns:
        raise UsageError(f"--since {since} is not before --until {until}: nothing could be kept")
    return summary_lines(import_otel(files, out, chosen))


def _instant(flag: str, value: str | None) -> int | None:
    """An ISO 8601 date or time (UTC unless it says otherwise) → nanoseconds since 1970."""
    if value is None:
        return None
    text = value.strip()
    try:
        moment = parse_iso_datetime(text)
    except ValueError:
        raise UsageError(f"{flag} {value}: not a date or time; write e.g. 2026-11-24, 2026-11-24T08:30 "
                         "or 2026-11-24T08:30:00+01:00 (UTC unless an offset is given)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return (moment - EPOCH) // timedelta(microseconds=1) * 1_000  # exact: a float timestamp would round
