"""Large JSON eval sets are read one case at a time: the same cases, without holding them all."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from evalkit.loading.evalsets import load_evalset, load_packed_evalset
from evalkit.loading.json_cases import NotStreamable, stream_cases


def streamed(text: str) -> tuple[dict, list]:
    cases: list = []
    header = stream_cases(text, cases.append)
    return header, cases


@pytest.mark.parametrize("document", [
    {"eval_set_id": "s", "eval_cases": [{"eval_id": "a"}, {"eval_id": "b", "x": [1, {"y": "]},"}]}]},
    {"eval_cases": [], "name": "cases first", "description": None},
    {"eval_set_id": "s", "eval_cases": [{"eval_id": 'ü \u00e9 " quoted ]}'}], "creation_timestamp": 1.5},
])
@pytest.mark.parametrize("indent", [None, 2])
def test_streaming_gives_what_json_gives(document, indent):
    text = json.dumps(document, indent=indent)
    header, cases = streamed("\n " + text + " \n")
    assert {**header, "eval_cases": cases} == json.loads(text)


@pytest.mark.parametrize("text", [
    '[{"eval_id": "a"}]',  # a legacy list
    '{"eval_set_id": "s"}',  # no case list
    '{"eval_cases": [], "eval_cases": [{"eval_id": "a"}]}',  # JSON keeps the last list
    '{"evalCases": []}',  # the camelCase spelling is reported by the whole-file reader
    '{"eval_cases": [{"eval_id": "a"},]}',  # a syntax error
    '{"eval_cases": []} trailing',
])
def test_anything_else_is_left_to_the_whole_file_reader(text):
    with pytest.raises(NotStreamable):
        streamed(text)


def write_set(tmp_path, count: int):
    cases = [{"eval_id": f"case{n:05d}", "conversation": [
        {"user_content": {"role": "user", "parts": [{"text": f"What is the weather in City{n}?"}]},
         "final_response": {"role": "model", "parts": [{"text": f"It is sunny in City{n}."}]}}]}
        for n in range(count)]
    path = tmp_path / "big.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "big", "eval_cases": cases}))
    return path


def test_packed_loading_keeps_the_cases_and_never_holds_them_all(tmp_path):
    path = write_set(tmp_path, 3000)
    size = path.stat().st_size
    tracemalloc.start()
    try:
        header, packed = load_packed_evalset(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert header.eval_set_id == "big" and [p.eval_id for p in packed][:2] == ["case00000", "case00001"]
    assert [p.unpack() for p in packed[-2:]] == load_evalset(path).eval_cases[-2:]
    # The file's text and the packed cases (about 3× the text), not every case's decoded
    # data at once as well (8.6× the text when the file was read whole).
    assert peak < 4.5 * size


def test_a_bad_case_in_a_streamed_file_is_reported_at_its_place(tmp_path):
    path = tmp_path / "bad.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "s", "eval_cases": [{"eval_id": "a"}, {"eval_id": 3}]}))
    from evalkit.errors import InputError

    with pytest.raises(InputError) as raised:
        load_packed_evalset(path)
    assert "eval_cases[1]" in str(raised.value)
