"""The words a setting's value may take that pydantic does not know: "auto" for a count, headers."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Literal

from pydantic import BeforeValidator

from evalkit.foundation.concurrency import JobsSetting, parse_jobs

# How many things run at once: a whole number ≥ 1 or "auto" (the adaptive controller of
# `evalkit.foundation.concurrency`), parsed here for the CLI, the Python API and the plugin.
Concurrency = Annotated[JobsSetting, BeforeValidator(parse_jobs)]

AUTO_PROCESSES: Literal["auto"] = "auto"
ProcessesSetting = int | Literal["auto"]


def parse_processes(value: object) -> ProcessesSetting:
    """`processes`: `auto` (evalkit.engine.process_count chooses) or a whole number ≥ 1.

    The same words as `jobs`, so the same parser; `RunSettings.of` words its ValueError
    as a `SettingError`.
    """
    return parse_jobs(value)


Processes = Annotated[ProcessesSetting, BeforeValidator(parse_processes)]

LOCAL_CLUSTER = "local"
_SCHEDULER_ADDRESS = re.compile(r"tcp://(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):[0-9]{1,5}")


def parse_cluster(value: object) -> str | None:
    """`cluster`: `local`, `local:N` (N worker processes, at least 1) or `tcp://HOST:PORT` (a Dask
    scheduler), as given but for spaces and case; anything else is a ValueError (worded by the setting)."""
    if value is None:
        return None
    text = str(value).strip()
    lowered = text.lower()
    if lowered == LOCAL_CLUSTER:
        return LOCAL_CLUSTER
    if lowered.startswith(LOCAL_CLUSTER + ":"):
        count = lowered.partition(":")[2]
        if count.isdigit() and int(count) >= 1:
            return f"{LOCAL_CLUSTER}:{int(count)}"
        raise ValueError(text)
    if _SCHEDULER_ADDRESS.fullmatch(text) and 0 < int(text.rpartition(":")[2]) < 65536:
        return text
    raise ValueError(text)


Cluster = Annotated[str | None, BeforeValidator(parse_cluster)]


def is_local_cluster(address: str) -> bool:
    """Whether a `cluster` value (as parsed) names a local cluster, `local` or `local:N`, rather than a scheduler."""
    return address == LOCAL_CLUSTER or address.startswith(LOCAL_CLUSTER + ":")

# A header field name: an HTTP token (RFC 9110, section 5.6.2).
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def parse_reports(value: object) -> tuple[tuple[str, str], ...]:
    """`reports`: "NAME=PATH" strings (`--report`, repeatable), or (name, path) pairs; which names
    are formats is the report registry's to say (evalkit.finish checks it before the run)."""
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else list(value)  # type: ignore[call-overload]
    pairs = []
    for item in items:
        if isinstance(item, (tuple, list)) and len(item) == 2:
            name, path = str(item[0]), str(item[1])
        else:
            name, _, path = str(item).partition("=")
        if not name.strip() or not path.strip():
            raise ValueError(f"{str(item)!r} is not NAME=PATH; write it as --report junit=report.xml")
        pairs.append((name.strip(), path.strip()))
    return tuple(pairs)


def parse_headers(value: object) -> tuple[tuple[str, str], ...]:
    """`headers`: "Name: value" strings (`--header`, repeatable) or a mapping name → value (the Python API).

    Header values are often credentials: a ValueError here names the header, never its value.
    """
    if value is None:
        return ()
    if isinstance(value, Mapping):
        pairs = [(str(name), str(text)) for name, text in value.items()]
    elif isinstance(value, str):
        pairs = [_split_header(value)]
    else:
        # (name, value) pairs as well: what RunSettings holds, and its JSON for a worker (lists)
        pairs = [(str(item[0]), str(item[1])) if isinstance(item, (tuple, list)) and len(item) == 2
                 else _split_header(str(item)) for item in value]  # type: ignore[attr-defined]
    for name, text in pairs:
        if not _HEADER_NAME.fullmatch(name):
            raise ValueError(f"{name[:40]!r} is not a header name; write --header 'Name: value', "
                             "such as --header 'Authorization: Bearer TOKEN'")
        if "\r" in text or "\n" in text:
            raise ValueError(f"the value of header {name} holds a line break; give it on one line")
    return tuple((name, text.strip()) for name, text in pairs)


def _split_header(text: str) -> tuple[str, str]:
    name, colon, value = text.partition(":")
    if not colon:
        # Only what comes before a space is shown: the rest may be a credential.
        raise ValueError(f"{text.split(' ')[0][:40]!r}… has no colon; write --header 'Name: value', "
                         "such as --header 'Authorization: Bearer TOKEN'")
    return name.strip(), value


def parse_origins(value: object) -> tuple[str, ...]:
    """`header_origins`: URLs (`--header-origin`, repeatable) kept as their origins, `scheme://host[:port]`."""
    from urllib.parse import urlsplit

    given = [value] if isinstance(value, str) else list(value or ())  # type: ignore[call-overload]
    origins = []
    for each in given:
        parts = urlsplit(str(each).strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{str(each)[:80]!r} is not an http(s) origin; write it as scheme://host[:port], "
                             "such as https://agent.example.com:8443")
        origins.append(f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}")
    return tuple(origins)


Headers = Annotated[tuple[tuple[str, str], ...], BeforeValidator(parse_headers)]
Origins = Annotated[tuple[str, ...], BeforeValidator(parse_origins)]
Reports = Annotated[tuple[tuple[str, str], ...], BeforeValidator(parse_reports)]

