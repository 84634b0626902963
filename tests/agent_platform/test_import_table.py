"""`evalkit import table`: CSV, JSON Lines and Parquet rows become eval cases; every unusable value
is named by row (from 1, the header left out) and column."""

from __future__ import annotations

import json

import pytest

from evalkit.loading.evalsets import load_evalset
from evalkit.schema.content import content_text
from evalkit.schema.views import tool_calls
from tests.in_process import invoke_evalkit

MAPS = ("--map", "user=question", "--map", "expected=answer", "--map", "id=key", "--map", "tool_calls=calls",
        "--map", "state=start")
ROWS = [
    {"key": "greet", "question": "Hi", "answer": "Hello!", "calls": "", "start": ""},
    {"key": "oslo", "question": "Weather in Oslo?", "answer": "Sunny.",
     "calls": json.dumps([{"name": "get_weather", "args": {"city": "Oslo"}}]), "start": json.dumps({"unit": "C"})},
]


def check_cases(path):
    greet, oslo = load_evalset(path).eval_cases
    assert (greet.eval_id, oslo.eval_id) == ("greet", "oslo")
    assert content_text(greet.conversation[0].user_content) == "Hi"
    assert content_text(greet.conversation[0].final_response) == "Hello!"
    assert [(c.name, c.args) for c in tool_calls(oslo.conversation[0])] == [("get_weather", {"city": "Oslo"})]
    assert oslo.session_input.state == {"unit": "C"}


def test_a_csv_table(tmp_path):
    import csv

    table = tmp_path / "faq.csv"
    with table.open("w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(ROWS[0]))
        writer.writeheader()
        writer.writerows(ROWS)
    done = invoke_evalkit("import", "table", str(table), *MAPS, "--out", str(tmp_path / "faq.evalset.json"),
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"wrote {tmp_path / 'faq.evalset.json'} (2 eval cases)"
    check_cases(tmp_path / "faq.evalset.json")
    assert invoke_evalkit("validate", str(tmp_path / "faq.evalset.json"), cwd=tmp_path).returncode == 0


def test_a_json_lines_table_takes_json_values_as_they_are(tmp_path):
    table = tmp_path / "faq.jsonl"
    rows = [dict(ROWS[0]), {**ROWS[1], "calls": json.loads(ROWS[1]["calls"]), "start": {"unit": "C"}}]
    table.write_text("".join(json.dumps(row) + "\n" for row in rows))
    done = invoke_evalkit("import", "table", str(table), *MAPS, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    check_cases(tmp_path / "faq.evalset.json")


def test_a_parquet_table(tmp_path):
    parquet = pytest.importorskip("pyarrow.parquet", reason="pyarrow (the tables extra) is not installed")
    import pyarrow

    table = tmp_path / "faq.parquet"
    parquet.write_table(pyarrow.Table.from_pylist(ROWS), table)
    done = invoke_evalkit("import", "table", str(table), *MAPS, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    check_cases(tmp_path / "faq.evalset.json")


def test_every_unusable_value_is_named_by_row_and_column(tmp_path):
    table = tmp_path / "bad.csv"
    table.write_text("key,question,answer,calls,start\n"
                     "a,Hi,Hello,{not json,\n"
                     "b,,Hello,,\n"
                     "a,Hi,Hello,,[1]\n"
                     "c,Hi,Hello,\"[{\"\"args\"\": {}}]\",\n")
    done = invoke_evalkit("import", "table", str(table), *MAPS, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"evalkit: {table}: row 1, column 'calls': not valid JSON (Expecting property name enclosed in double "
        "quotes at character 1)",
        f"evalkit: {table}: row 2, column 'question': expected text, found nothing",
        f"evalkit: {table}: row 3, column 'start': expected a JSON object, found list",
        f"evalkit: {table}: row 4, column 'calls', call 0: expected {{\"name\": \"tool\", \"args\": {{...}}}}",
    ]
    assert not (tmp_path / "bad.evalset.json").exists()


def test_a_missing_column_and_a_bad_map_are_usage_errors(tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("q,a\nhi,hello\n")
    done = invoke_evalkit("import", "table", str(table), "--map", "user=q", "--map", "expected=answer", cwd=tmp_path)
    assert done.returncode == 2
    assert "header: no column 'answer' (given as --map expected=answer); the columns are 'q', 'a'" in done.stderr
    done = invoke_evalkit("import", "table", str(table), "--map", "user=q", cwd=tmp_path)
    assert done.returncode == 2 and "--map expected=COLUMN is needed" in done.stderr
    done = invoke_evalkit("import", "table", str(table), "--map", "prompt=q", cwd=tmp_path)
    assert done.returncode == 2 and "unknown role 'prompt'" in done.stderr


def test_parquet_without_pyarrow_names_the_pip_command(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if the extra were not installed
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    table = tmp_path / "t.parquet"
    table.write_bytes(b"PAR1")
    done = invoke_evalkit("import", "table", str(table), "--map", "user=q", "--map", "expected=a", cwd=tmp_path)
    assert done.returncode == 2
    assert 'pip install "pyarrow"' in done.stderr and '".[tables]"' in done.stderr
