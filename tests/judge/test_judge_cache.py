"""The disk cache: reruns make no calls, `use_cache=False` bypasses it, writers coexist."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from evalkit.judge import JudgeCache, JudgeReply, JudgeRequest, JudgeService, cache_key
from evalkit.judge.cache import CACHE_FILE_NAME
from evalkit.testing import FakeGemini

MODEL = "gemini-2.5-flash"


def _requests() -> list[JudgeRequest]:
    config = {"temperature": 0.0}
    return [JudgeRequest(MODEL, f"prompt {p}", config, sample_index=s) for p in range(4) for s in range(3)]


async def _run(service: JudgeService) -> list[JudgeReply]:
    async with service:
        return list(await asyncio.gather(*(service.generate(r) for r in _requests())))


async def test_second_identical_run_makes_no_call(
    fake_gemini: FakeGemini, fast_retry, tmp_path: Path
) -> None:
    fake_gemini.responder(lambda prompt, body: f"verdict on {prompt}")
    cache_dir = tmp_path / "judge-cache"

    first_service = JudgeService(cache_dir=cache_dir, retry=fast_retry)
    first = await _run(first_service)
    assert fake_gemini.call_count == 12  # every sample is its own entry
    assert (cache_dir / CACHE_FILE_NAME).is_file()

    second_service = JudgeService(cache_dir=cache_dir, retry=fast_retry)
    second = await _run(second_service)
    assert fake_gemini.call_count == 12
    assert second_service.stats.cache_hits == 12 and second_service.stats.calls == 0
    assert [r.text for r in second] == [r.text for r in first]
    assert [(r.input_tokens, r.output_tokens) for r in second] == [
        (r.input_tokens, r.output_tokens) for r in first
    ]
    assert all(r.from_cache for r in second) and not any(r.from_cache for r in first)


async def test_cache_location_comes_from_the_environment(
    fake_gemini: FakeGemini, fast_retry, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("EVALKIT_CACHE_DIR", str(tmp_path / "from-env"))
    service = JudgeService(retry=fast_retry)
    assert service.cache_path == tmp_path / "from-env" / CACHE_FILE_NAME
    await _run(service)
    assert service.cache_path.is_file()

    monkeypatch.delenv("EVALKIT_CACHE_DIR")
    monkeypatch.chdir(tmp_path)
    assert JudgeService(retry=fast_retry).cache_path == Path(".evalkit/cache") / CACHE_FILE_NAME


async def test_use_cache_false_neither_reads_nor_writes(
    fake_gemini: FakeGemini, fast_retry, tmp_path: Path
) -> None:
    cache_dir = tmp_path / "judge-cache"
    await _run(JudgeService(cache_dir=cache_dir, retry=fast_retry))
    assert fake_gemini.call_count == 12

    await _run(JudgeService(cache_dir=cache_dir, retry=fast_retry, use_cache=False))
    assert fake_gemini.call_count == 24  # no reads

    other_dir = tmp_path / "untouched"
    await _run(JudgeService(cache_dir=other_dir, retry=fast_retry, use_cache=False))
    assert not other_dir.exists()  # no writes


async def test_failed_calls_are_not_cached(fake_gemini: FakeGemini, fast_retry, tmp_path: Path) -> None:
    fake_gemini.fail_always(503)
    request = JudgeRequest(MODEL, "down")
    async with JudgeService(cache_dir=tmp_path, retry=fast_retry) as service:
        try:
            await service.generate(request)
        except Exception:
            pass
    fake_gemini.heal()
    async with JudgeService(cache_dir=tmp_path, retry=fast_retry) as service:
        reply = await service.generate(request)
    assert reply.text == "default reply" and not reply.from_cache


def test_key_covers_model_prompt_config_and_sample() -> None:
    base = JudgeRequest(MODEL, "p", {"temperature": 0.0, "top_k": 3}, 0)
    same = JudgeRequest(MODEL, "p", {"top_k": 3, "temperature": 0.0}, 0)  # key order is irrelevant
    assert cache_key(base) == cache_key(same)
    variants = [
        JudgeRequest("gemini-2.5-pro", "p", base.config, 0),
        JudgeRequest(MODEL, "p ", base.config, 0),
        JudgeRequest(MODEL, "p", {"temperature": 0.5, "top_k": 3}, 0),
        JudgeRequest(MODEL, "p", base.config, 1),
    ]
    assert len({cache_key(base), *(cache_key(v) for v in variants)}) == 5


async def test_concurrent_tasks_share_one_cache(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    requests = [JudgeRequest(MODEL, f"task prompt {i}") for i in range(200)]
    await asyncio.gather(*(cache.put(r, JudgeReply(f"reply {i}", i, 1)) for i, r in enumerate(requests)))
    replies = await asyncio.gather(*(cache.get(r) for r in requests))
    cache.close()
    assert [r.text for r in replies] == [f"reply {i}" for i in range(200)]
    assert [r.input_tokens for r in replies] == list(range(200))


_WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from evalkit.judge import JudgeCache, JudgeReply, JudgeRequest

    async def main(directory, writer):
        cache = JudgeCache(Path(directory))
        for i in range(150):
            request = JudgeRequest("m", f"writer {writer} prompt {i}")
            await cache.put(request, JudgeReply(f"{writer}:{i}", 1, 2))
            # Read back an entry another writer may be writing right now.
            await cache.get(JudgeRequest("m", f"writer {(writer + 1) % 4} prompt {i}"))
        cache.close()

    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
    """
)


def test_concurrent_writer_processes_do_not_corrupt_the_cache(tmp_path: Path) -> None:
    import evalkit

    source_root = str(Path(evalkit.__file__).parents[1])
    env = {"PYTHONPATH": source_root, "PATH": "/usr/bin:/bin"}
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(tmp_path), str(w)], env=env, stderr=subprocess.PIPE
        )
        for w in range(4)
    ]
    for writer in writers:
        _, stderr = writer.communicate(timeout=60)
        assert writer.returncode == 0, stderr.decode()
        # Opening a new cache file together used to lose one writer's cache to a lock error.
        assert "not usable" not in stderr.decode()

    connection = sqlite3.connect(tmp_path / CACHE_FILE_NAME)
    assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    connection.close()

    async def read_all() -> list[JudgeReply | None]:
        cache = JudgeCache(tmp_path)
        try:
            return list(
                await asyncio.gather(
                    *(
                        cache.get(JudgeRequest("m", f"writer {w} prompt {i}"))
                        for w in range(4)
                        for i in range(150)
                    )
                )
            )
        finally:
            cache.close()

    replies = asyncio.run(read_all())
    assert [r.text if r else None for r in replies] == [f"{w}:{i}" for w in range(4) for i in range(150)]


async def test_unusable_cache_is_switched_off_not_fatal(
    fake_gemini: FakeGemini, fast_retry, tmp_path: Path
) -> None:
    (tmp_path / CACHE_FILE_NAME).write_bytes(b"this is not a database" * 100)
    async with JudgeService(cache_dir=tmp_path, retry=fast_retry) as service:
        first = await service.generate(JudgeRequest(MODEL, "q"))
        second = await service.generate(JudgeRequest(MODEL, "q"))
    assert first.text == second.text == "default reply"
    assert fake_gemini.call_count == 2


async def test_empty_replies_are_not_cached(tmp_path, monkeypatch):
    from evalkit.judge import JudgeRequest, JudgeService
    from evalkit.testing import FakeGemini

    monkeypatch.setenv("GOOGLE_API_KEY", "dummy")
    with FakeGemini(default_reply="") as fake:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", fake.base_url)
        for _ in range(2):
            async with JudgeService(cache_dir=tmp_path) as service:
                reply = await service.generate(JudgeRequest(model="gemini-2.5-flash", prompt="say nothing"))
                assert reply.text == "" and service.stats.cache_hits == 0
        assert fake.call_count == 2
