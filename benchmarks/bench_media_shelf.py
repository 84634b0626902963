"""The cost of keeping a run's media by hash: 100 cases showing the same 5 MB image.

    python benchmarks/bench_media_shelf.py

Each case's record holds the image twice (its expected and its actual user message), as a
run's records do before `results/media_folder.py` shelves them: base64 text, a new string
object per case. Prints the time to shelve the first case and each later one, the files
written, the size of a shelved case's JSON, the HTML report's size with the image in all
100 cases, and the peak of Python allocations (tracemalloc) while shelving.
"""

from __future__ import annotations

import base64
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from evalkit.report.html_media import media_island  # noqa: E402
from evalkit.results.media_folder import MediaFolder  # noqa: E402
from evalkit.schema.results import CaseResult, InvocationRecord, Status  # noqa: E402

CASES, SIZE = 100, 5 * 1024 * 1024


def main() -> None:
    text = base64.b64encode(os.urandom(SIZE)).decode("ascii")

    def message() -> dict:  # a fresh string per message, as each case's record dump makes one
        return {"role": "user", "parts": [{"text": "what is this?"},
                                          {"inline_data": {"mime_type": "image/png", "data": (text + " ")[:-1]}}]}

    with tempfile.TemporaryDirectory() as scratch:
        folder = MediaFolder(Path(scratch) / "media")
        times, shelved = [], []
        tracemalloc.start()
        for index in range(CASES):
            case = CaseResult(eval_set_id="s", eval_id=f"c{index}", status=Status.PASSED, invocations=[
                InvocationRecord(actual={"user_content": message()}, expected={"user_content": message()})])
            start = time.perf_counter()
            shelved.append(folder.shelve(case))
            times.append(time.perf_counter() - start)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        files = [f.stat().st_size for f in (Path(scratch) / "media").iterdir()]
        start = time.perf_counter()
        island = media_island(shelved, Path(scratch) / "media")
        island_s = time.perf_counter() - start
    later = sorted(times[1:])
    print(f"{CASES} cases, each showing the same {SIZE // 1024 // 1024} MB image twice (expected and actual)")
    print(f"shelve: first case {times[0] * 1000:.1f} ms, later cases median {later[len(later) // 2] * 1000:.1f} ms, "
          f"total {sum(times):.2f} s")
    print(f"media folder: {len(files)} file(s), {sum(files) / 1e6:.1f} MB")
    print(f"a shelved case's JSON: {len(shelved[-1].model_dump_json())} bytes")
    print(f"HTML report media island: {len(island)} medium, {sum(map(len, island.values())) / 1e6:.1f} MB, "
          f"{island_s * 1000:.0f} ms")
    print(f"peak Python allocations while shelving: {peak / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
