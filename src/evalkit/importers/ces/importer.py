"""`evalkit import ces FILE [--out PATH]`: write an eval set and its `test_config.json`.

FILE holds one CES Evaluation resource (as the CES API returns it), a list of them, or
a `{"evaluations": [...]}` listing. The eval set goes to `<name>.evalset.json` in the
current folder unless `out` names a file or a folder; `test_config.json` goes beside it.
Both files are loaded back through evalkit's own loaders before this returns, so what
was written is known to run.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evalkit.importers.ces.convert import convert, slug
from evalkit.schema.ces import Evaluation
from evalkit.errors import InputError, Problem
from evalkit.foundation.documents import read_document
from evalkit.schema.problems import known_keys, problems_from
from evalkit.foundation.files import write_user_file

CONFIG_NAME = "test_config.json"


@dataclass
class ImportResult:
    evalset_path: Path
    config_path: Path
    case_ids: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def import_ces(path: Path, out: Path | None = None, *, force: bool = False) -> tuple[Path, Path]:
    result = import_ces_file(path, out, force=force)
    return result.evalset_path, result.config_path


def import_ces_file(path: Path, out: Path | None = None, cwd: Path | None = None, *,
                    force: bool = False) -> ImportResult:
    path = Path(path)
    evaluations = read_evaluations(path)
    single = len(evaluations) == 1
    name = slug(evaluations[0].identifier(_stem(path))) if single else slug(_stem(path))
    conversion = convert(evaluations, name)
    evalset_path = _target(out, name, cwd or Path.cwd())
    evalset: dict[str, Any] = {"eval_set_id": name, "name": evaluations[0].display_name or name if single else name}
    if single and evaluations[0].description:
        evalset["description"] = evaluations[0].description
    evalset["eval_cases"] = conversion.cases
    config_path = evalset_path.with_name(CONFIG_NAME)
    if not force:
        _refuse_to_overwrite([evalset_path, config_path])
    evalset_path.parent.mkdir(parents=True, exist_ok=True)
    _write_json(evalset_path, evalset)
    _write_json(config_path, conversion.config)
    _self_check(evalset_path, config_path)
    return ImportResult(evalset_path, config_path, [c["eval_id"] for c in conversion.cases], conversion.warnings)


def read_evaluations(path: Path) -> list[Evaluation]:
    data = read_document(path)
    file = str(path)
    prefix = ""
    if isinstance(data, dict) and "evaluations" in data and "golden" not in data and "scenario" not in data:
        data, prefix = data["evaluations"], "evaluations"
    items = data if isinstance(data, list) else [data]
    if not items:
        raise InputError(Problem(file, prefix, "no evaluations in the file"))
    evaluations: list[Evaluation] = []
    problems: list[Problem] = []
    for index, item in enumerate(items):
        where = f"{prefix}[{index}]" if isinstance(data, list) else prefix
        if not isinstance(item, dict):
            problems.append(Problem(file, where, f"expected a CES Evaluation object, found {type(item).__name__}"))
            continue
        try:
            evaluations.append(Evaluation.model_validate(item))
        except ValidationError as error:
            problems += [_camel(p) for p in problems_from(error, file, item, known_keys(Evaluation), prefix=where)]
    if problems:
        raise InputError(problems)
    return evaluations


def _camel(problem: Problem) -> Problem:
    # problems_from names missing keys in snake_case, as eval sets are written; CES files are camelCase.
    from pydantic.alias_generators import to_camel

    from evalkit.importers.ces.key_hints import belongs_at

    parts = problem.location.split(".")
    message = problem.message
    if message == "field required" and parts:
        parts[-1] = to_camel(parts[-1])
    elif message.startswith("unknown key "):
        # A known key in the wrong place: say where it goes, not its own name in snake_case.
        place = belongs_at(Evaluation, problem.location)
        if place is not None:
            message = f"{message.split(';')[0]} here; it belongs at {place}"
        else:  # suggest the key as CES files spell it
            message = re.sub(r"did you mean '(\w+)'", lambda m: f"did you mean {to_camel(m.group(1))!r}", message)
    return Problem(problem.file, ".".join(parts), message)


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".json", ".yaml", ".yml"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def _target(out: Path | None, name: str, cwd: Path) -> Path:
    file_name = f"{name}.evalset.json"
    if out is None:
        return cwd / file_name
    out = Path(out)
    if out.is_dir() or str(out).endswith(("/", os.sep)) or not out.suffix:
        return out / file_name
    if out.name == CONFIG_NAME:
        raise InputError(Problem(str(out), "", f"--out names the eval set file; {CONFIG_NAME} is written beside it"))
    return out


def _refuse_to_overwrite(paths: list[Path]) -> None:
    """A `test_config.json` may hold thresholds of other eval sets in its folder: keep it unless told."""
    existing = [path for path in paths if path.exists()]
    if existing:
        raise InputError([Problem(str(path), "", "already exists; pass --force to overwrite it, "
                                                 "or --out to write the eval set elsewhere")
                          for path in existing])


def _write_json(path: Path, data: Any) -> None:
    """Write atomically, so a failed import never leaves half a file behind."""
    write_user_file(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _self_check(evalset_path: Path, config_path: Path) -> None:
    from evalkit.loading.plan import build_plan

    build_plan([str(evalset_path)], case_ids=[], config_file=str(config_path))


def summary_lines(result: ImportResult) -> list[str]:
    """What an import wrote and what it left out, for the command line."""
    count = len(result.case_ids)
    lines = [f"wrote {result.evalset_path} ({count} eval case{'s' if count != 1 else ''}: {', '.join(result.case_ids)})",
             f"wrote {result.config_path}"]
    lines += [f"note: {warning}" for warning in result.warnings]
    return lines
