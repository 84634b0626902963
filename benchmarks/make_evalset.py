"""Write an eval set for the scripted weather agent: N cases of 2 turns, some wrong on purpose.

    python benchmarks/make_evalset.py --cases 1000 --out bench.evalset.json

Every case asks for the weather in a city of its own, then for tomorrow's forecast.
The expected turns are what `scripted_adk_agent` answers, except that every tenth case
(ids ending in 3) expects the forecast for another city (the tool trajectory fails)
and every tenth case (ids ending in 7) expects an unrelated first answer (the
response match fails). So 80% of the cases pass under ADK's default criteria.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scripted_adk_agent.answers import answer  # noqa: E402  (model-free, no google-adk needed)

EVAL_SET_ID = "weather_bench"
WRONG_TRAJECTORY, WRONG_RESPONSE = 3, 7


def _text(role: str, text: str) -> dict:
    return {"role": role, "parts": [{"text": text}]}


def _turn(number: int, message: str, last_city: str | None, *, tool_args: dict | None = None, reply: str | None = None) -> tuple[dict, str]:
    tool, args, _result, text, city = answer(message, last_city)
    invocation = {
        "invocation_id": f"turn-{number}",
        "user_content": _text("user", message),
        "final_response": _text("model", reply if reply is not None else text),
        "intermediate_data": {"tool_uses": [{"name": tool, "args": tool_args if tool_args is not None else args}]},
    }
    return invocation, city


def make_case(index: int) -> dict:
    city = f"City{index}"
    kind = index % 10
    first, remembered = _turn(1, f"What is the weather in {city}?", None,
                              reply="I cannot help with that request." if kind == WRONG_RESPONSE else None)
    second, _ = _turn(2, "And tomorrow?", remembered,
                      tool_args={"city": "Atlantis", "day": "tomorrow"} if kind == WRONG_TRAJECTORY else None)
    return {"eval_id": f"case-{index:05d}", "conversation": [first, second]}


def make_evalset(cases: int) -> dict:
    return {
        "eval_set_id": EVAL_SET_ID,
        "name": f"Scripted weather agent, {cases} cases",
        "eval_cases": [make_case(i) for i in range(cases)],
    }


def expected_failures(cases: int) -> int:
    return sum(1 for i in range(cases) if i % 10 in (WRONG_TRAJECTORY, WRONG_RESPONSE))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=Path("weather_bench.evalset.json"))
    args = parser.parse_args()
    args.out.write_text(json.dumps(make_evalset(args.cases), indent=1))
    print(f"{args.out}: {args.cases} cases, {expected_failures(args.cases)} meant to fail")


if __name__ == "__main__":
    main()
