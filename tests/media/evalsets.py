"""Eval sets with media parts, written to a test's folder."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any


def media_case(eval_id: str, *parts: dict[str, Any], text: str = "What is in this?", answer: str = "ok") -> dict[str, Any]:
    return {"eval_id": eval_id, "conversation": [{
        "invocation_id": "t1",
        "user_content": {"role": "user", "parts": [{"text": text}, *parts]},
        "final_response": {"role": "model", "parts": [{"text": answer}]},
    }]}


def file_part(uri: str, mime_type: str) -> dict[str, Any]:
    return {"file_data": {"mime_type": mime_type, "file_uri": uri}}


def inline_part(data: bytes, mime_type: str) -> dict[str, Any]:
    return {"inline_data": {"mime_type": mime_type, "data": base64.b64encode(data).decode()}}


def write_evalset(folder: Path, *cases: dict[str, Any], name: str = "media.evalset.json") -> Path:
    path = folder / name
    path.write_text(json.dumps({"eval_set_id": "media", "eval_cases": list(cases)}))
    return path
