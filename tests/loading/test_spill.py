"""The plan's packed cases live in a temporary file (evalkit.loading.spill), read back by place."""

from __future__ import annotations

import os

import pytest

from evalkit.loading.spill import Spill, process_spill


def test_what_is_put_is_got_back_by_place_in_any_order():
    spill = Spill()
    pieces = [bytes([index % 251]) * (index * 7 % 300) for index in range(500)]
    places = [spill.put(piece) for piece in pieces]
    assert [spill.get(*place) for place in reversed(places)] == list(reversed(pieces))
    assert places[1] == (0, 7) and places[2] == (7, 14)  # appended, end to end


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX only")
def test_a_forked_child_reads_its_parents_cases_and_spills_its_own_elsewhere():
    # A forked `--processes` worker shares the file (and its position) with its parent:
    # both read at once, and neither disturbs the other.
    parent = process_spill()
    places = [parent.put(f"case {index}".encode() * 20) for index in range(200)]
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: read every case back, spill one of its own, report
        try:
            ok = all(parent.get(*place) == f"case {index}".encode() * 20 for index, place in enumerate(places))
            own = process_spill()
            ok = ok and own is not parent and own.get(*own.put(b"mine")) == b"mine"
            os.write(write, b"ok" if ok else b"bad")
        finally:
            os._exit(0)
    os.close(write)
    mine = [parent.get(*place) for place in places]
    answer = os.read(read, 10)
    os.waitpid(pid, 0)
    os.close(read)
    assert answer == b"ok"
    assert mine == [f"case {index}".encode() * 20 for index in range(200)]
    assert process_spill() is parent
    assert parent.get(*parent.put(b"after")) == b"after"
