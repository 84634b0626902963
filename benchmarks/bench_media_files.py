"""A 5 MB image that 100 cases show: read once, hashed once, and memory flat in the number of cases.

    python benchmarks/bench_media_files.py

Runs `evalkit.run_evals` in a fresh process for 1 case and for 100 cases, every case naming
the same `file_data` image (a PNG signature followed by 5 MiB of random bytes: the type check
reads the first bytes, the rest must not compress). The agent is a Python callable that hashes
the bytes it receives (so every case really gets them). Prints, for each: the run's time, the
files read and hashed by evalkit.media (its counters), and the process's peak RSS.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

SIZE = 5 * 1024 * 1024
SEEN: set[str] = set()


def agent(turn) -> str:  # the agent under test: the sha256 of each media part it received
    for part in turn.user_content["parts"]:
        if "inline_data" in part:
            SEEN.add(hashlib.sha256(part["inline_data"]["data"]).hexdigest())
    return "a receipt"


def child(cases: int, folder: Path) -> dict:
    from evalkit.api import run_evals
    from evalkit.media.reading import media_files

    image = folder / "receipt.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(SIZE))
    evalset = folder / "receipts.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "receipts", "eval_cases": [
        {"eval_id": f"c{index}", "conversation": [{
            "user_content": {"role": "user", "parts": [
                {"text": "What is this?"}, {"file_data": {"mime_type": "image/png", "file_uri": "receipt.png"}}]},
            "final_response": {"role": "model", "parts": [{"text": "a receipt"}]}}]}
        for index in range(cases)]}))
    start = time.perf_counter()
    result = run_evals(str(evalset), agent=agent, jobs=4)
    elapsed = time.perf_counter() - start
    files = media_files()
    return {"cases": cases, "passed": sum(case.status == "passed" for case in result.cases),
            "seconds": round(elapsed, 2), "reads": files.reads, "hashes": files.hashes,
            "agent_saw": sorted(SEEN) == [hashlib.sha256(image.read_bytes()).hexdigest()],
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        with tempfile.TemporaryDirectory() as scratch:
            os.chdir(scratch)
            os.environ["EVALKIT_RUNS_DIR"] = str(Path(scratch) / "runs")
            print(json.dumps(child(int(sys.argv[2]), Path(scratch))))
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    print("cases  passed  seconds  reads  hashes  agent got the bytes  peak RSS (MiB)")
    for cases in (1, 100):
        out = subprocess.run([sys.executable, "-c", "import sys; sys.argv[1:]=['--child', sys.argv[1]]; "
                              "import bench_media_files as b; b.main()", str(cases)],
                             capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parent)
        row = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{row['cases']:>5}  {row['passed']:>6}  {row['seconds']:>7}  {row['reads']:>5}  {row['hashes']:>6}  "
              f"{row['agent_saw']!s:>19}  {row['peak_rss_mib']:>14}")


if __name__ == "__main__":
    main()
