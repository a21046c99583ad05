"""The step hands its pairs over as ints (``Contacts.int_pairs``, from the id registry's slot -> int id table)
when every id is a small int; the recorder writes those instead of converting the object id arrays.

Oracle: the World's own ``step()`` result objects (``Contacts.a`` / ``.b``, object ids as the user gave them),
and the file written with the fast path switched off (the object-array conversion of before): the same bytes.
Seeded loops of adds (auto and explicit ids), removes, moves and compactions, on both file forms.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from collideworld import Box, Circle, Compound, World
from collideworld import contacts as contacts_module
from collideworld.scenario import Recorder, read_scenario

MODES = ("auto", "explicit", "huge", "strings", "compound")


def _run(path: Path, mode: str, seed: int) -> list[tuple[frozenset, np.ndarray | None, list]]:
    """A recorded loop; per frame: the step's pairs (as sets), its int_pairs, its (a, b) rows."""
    rng = np.random.default_rng(seed)
    world = World(2, backend="numpy")
    out = []
    with Recorder(world, path) as rec:
        shapes = [Circle(0.6), Box((0.5, 0.4))]
        if mode == "compound":
            shapes.append(Compound([(Box((0.4, 0.2)), (0.0, 0.0)), (Circle(0.3), (0.5, 0.0))]))
        next_id = 7
        for frame in range(24):
            live = rec.ids()
            if frame % 6 == 0 or len(live) < 5:
                n = int(rng.integers(3, 12))
                pos = rng.uniform(0.0, 8.0, (n, 2))
                shape = shapes[int(rng.integers(len(shapes)))]
                if mode == "auto":
                    rec.add_many(shape, pos)
                else:
                    if mode == "explicit":
                        ids = [next_id + 3 * k for k in range(n)]
                    elif mode == "huge":
                        ids = [10**12 + next_id + k for k in range(n)]  # beyond the small-id table
                    elif mode == "strings":
                        ids = [f"s{next_id + k}" if k % 2 else next_id + k for k in range(n)]
                    else:
                        ids = [next_id + k for k in range(n)]
                    next_id += 3 * n
                    rec.add_many(shape, pos, ids=ids)
            elif frame % 5 == 0:
                gone = rng.choice(len(live), size=min(3, len(live) - 1), replace=False)
                rec.remove_many([live[i] for i in gone.tolist()])
            elif frame % 7 == 0:
                world.compact()  # slots change, ids stay
            live = rec.ids()
            rec.move_many(live, positions=rng.uniform(0.0, 8.0, (len(live), 2)),
                          angles=rng.uniform(-3.0, 3.0, len(live)))
            contacts = rec.step()
            out.append((frozenset(frozenset(p) for p in zip(contacts.a.tolist(), contacts.b.tolist(), strict=True)),
                        contacts.int_pairs(), list(zip(contacts.a.tolist(), contacts.b.tolist(), strict=True))))
    return out


@pytest.mark.parametrize("suffix", [".arrows", ".jsonl"])
@pytest.mark.parametrize("mode", MODES)
def test_recorded_pairs_are_the_steps_pairs(tmp_path: Path, mode: str, suffix: str) -> None:
    """Each frame's recorded pairs are the step's pairs (6 seeded loops per mode and form), int_pairs
    names the same rows as the object ids, and it is given exactly when every id is a small int."""
    fast = 0
    for seed in range(6):
        path = tmp_path / f"{mode}{seed}{suffix}"
        steps = _run(path, mode, seed)
        frames = list(read_scenario(path))
        assert len(frames) == len(steps)
        for frame, (pairs, ints, rows) in zip(frames, steps, strict=True):
            assert frame.expect == pairs
            if ints is not None:
                assert ints.dtype == np.int64 and ints.shape == (len(rows), 2)
                assert [tuple(r) for r in ints.tolist()] == rows
                assert all(type(v) is int for r in rows for v in r)
                fast += 1
            elif mode in ("auto", "explicit") and rows:
                pytest.fail(f"seed {seed}: all ids small ints but no int_pairs")
    if mode in ("auto", "explicit"):
        assert fast > 40
    elif mode in ("huge", "strings"):
        assert fast == 0


@pytest.mark.parametrize("mode", MODES)
def test_the_file_is_the_same_bytes_without_the_int_pairs(tmp_path: Path, mode: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The .arrows and .jsonl files of 3 seeded loops per mode, with and without the int pairs: byte-identical."""
    for seed in range(3):
        for suffix in (".arrows", ".jsonl"):
            _run(tmp_path / f"fast{seed}{suffix}", mode, seed)
            with monkeypatch.context() as m:
                m.setattr(contacts_module.Contacts, "int_pairs", lambda self: None)
                _run(tmp_path / f"slow{seed}{suffix}", mode, seed)
            assert (tmp_path / f"fast{seed}{suffix}").read_bytes() == (tmp_path / f"slow{seed}{suffix}").read_bytes()
