"""Media in recorded model calls kept by content hash beside the cassettes (`DIR/media/SHA256`).

An agent that sends a 5 MB image to its model would write 7 MB of base64 into each case's
cassette (and masking secrets in that text could change it). On saving, each base64 blob
of a request or response (Gemini's `inlineData.data`, OpenAI's `input_audio.data` and
`data:` URLs) is written once to the cassette folder's `media/` and replaced by
`{"evalkit_media": SHA256}` (with the prefix of a data URL and the base64 alphabet when not
the standard one); on loading, the reference becomes the very same text again, so a replayed
request matches and a replayed response is byte for byte the recorded one.
"""

from __future__ import annotations

import base64
import binascii
from pathlib import Path
from typing import Any

from evalkit.media.blob_store import keep_blob, read_blob

MEDIA_FOLDER = "media"
_REFERENCE = "evalkit_media"
_HOLDERS = ("inlineData", "inline_data", "input_audio")  # objects whose `data` is a base64 blob
_SMALLEST = 1024  # base64 characters: smaller blobs stay in the file, where a person can read them
_ENCODINGS = {"standard": base64.b64encode, "urlsafe": base64.urlsafe_b64encode}


def media_folder(cassette_folder: Path) -> Path:
    return cassette_folder / MEDIA_FOLDER


def without_blobs(node: Any, folder: Path) -> Any:
    """A copy of `node` (a request or response body) whose blobs are kept in `folder` and referred to."""
    if isinstance(node, list):
        return [without_blobs(item, folder) for item in node]
    if isinstance(node, str):
        return _kept(node, folder, data_url=True)
    if not isinstance(node, dict):
        return node
    copy = {}
    for key, value in node.items():
        if key in _HOLDERS and isinstance(value, dict) and isinstance(value.get("data"), str):
            copy[key] = {name: _kept(inner, folder, data_url=False) if name == "data" else without_blobs(inner, folder)
                         for name, inner in value.items()}
        else:
            copy[key] = without_blobs(value, folder)
    return copy


def with_blobs(node: Any, folder: Path) -> Any:
    """`node` with every reference made the recorded text again; KeyError naming the hash when it is missing."""
    if isinstance(node, list):
        return [with_blobs(item, folder) for item in node]
    if not isinstance(node, dict):
        return node
    if isinstance(node.get(_REFERENCE), str):
        data = read_blob(folder, node[_REFERENCE])
        if data is None:
            raise KeyError(f"{folder / node[_REFERENCE]} is missing or changed")
        encoded = _ENCODINGS[node.get("base64", "standard")](data).decode("ascii")
        return node.get("prefix", "") + (encoded.rstrip("=") if node.get("unpadded") else encoded)
    return {key: with_blobs(value, folder) for key, value in node.items()}


def _kept(text: str, folder: Path, *, data_url: bool) -> Any:
    prefix = ""
    if data_url:
        if not (text.startswith("data:") and ";base64," in text[:200]):
            return text
        prefix, _, text = text.partition(";base64,")
        prefix += ";base64,"
    if len(text) < _SMALLEST:
        return prefix + text
    for name, encode in _ENCODINGS.items():
        try:
            data = (base64.urlsafe_b64decode if name == "urlsafe" else base64.b64decode)(text + "=" * (-len(text) % 4))
        except (binascii.Error, ValueError):
            continue
        encoded = encode(data).decode("ascii")
        if text not in (encoded, encoded.rstrip("=")):
            continue
        reference: dict[str, Any] = {_REFERENCE: keep_blob(folder, data)}
        if name != "standard":
            reference["base64"] = name
        if encoded != text:
            reference["unpadded"] = True
        if prefix:
            reference["prefix"] = prefix
        return reference
    return prefix + text  # not base64 that encodes back to itself: kept as it is
