"""Worlds that pickle: pickle, deepcopy and a process pool give a world that answers exactly like the original.

The oracle is the original world itself (stepped through the same random
changes as its copy, every answer compared bit for bit) and, for the pair
sets, a world over the brute-force broadphase fed the same changes from the
start.
"""

import copy
import io
import math
import pickle
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np
import pytest

from collideworld import (
    Box,
    Capsule,
    Circle,
    Compound,
    ConvexHull,
    HalfPlane,
    Plane,
    Polygon,
    Segment,
    Sphere,
    World,
)
from collideworld.errors import InvalidArgumentError
from collideworld.world import _unpickle_world

BACKENDS = ["numpy", "compiled"]


def _quat(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def _concave(rng):
    # a star: alternate long and short spokes, always simple and concave
    n = int(rng.integers(5, 9))
    # evenly spread angles, jittered less than half a gap: a star-shaped (so simple) polygon
    ang = (np.arange(2 * n) + rng.uniform(-0.4, 0.4, 2 * n)) * (math.pi / n)
    r = np.where(np.arange(2 * n) % 2 == 0, rng.uniform(0.8, 1.2, 2 * n), rng.uniform(0.25, 0.45, 2 * n))
    return Polygon(np.c_[r * np.cos(ang), r * np.sin(ang)])


def _convex_polygon(rng):
    ang = np.sort(rng.uniform(0, 2 * math.pi, int(rng.integers(3, 8))))
    if np.max(np.diff(np.r_[ang, ang[0] + 2 * math.pi])) > 3.0:  # keep it fat
        ang = np.linspace(0, 2 * math.pi, 5, endpoint=False) + ang[0]
    r = rng.uniform(0.4, 1.0)
    return Polygon(np.c_[r * np.cos(ang), r * np.sin(ang)])


def random_shape(rng, dim, compound=True):
    kinds = (["circle", "box", "polygon", "concave", "capsule", "segment"] if dim == 2
             else ["sphere", "box", "hull", "capsule", "segment"])
    if compound:
        kinds.append("compound")
    kind = kinds[int(rng.integers(len(kinds)))]
    if kind == "circle":
        return Circle(rng.uniform(0.2, 1.0))
    if kind == "sphere":
        return Sphere(rng.uniform(0.2, 1.0))
    if kind == "box":
        return Box(rng.uniform(0.2, 1.0, dim))
    if kind == "polygon":
        return _convex_polygon(rng)
    if kind == "concave":
        return _concave(rng)
    if kind == "hull":
        return ConvexHull(rng.normal(size=(int(rng.integers(5, 12)), 3)) * 0.6)
    if kind == "capsule":
        return Capsule(rng.uniform(-0.6, 0.6, dim), rng.uniform(-0.6, 0.6, dim), rng.uniform(0.1, 0.5))
    if kind == "segment":
        p = rng.uniform(-0.8, 0.8, dim)
        return Segment(p, -p + 0.01)
    parts = []
    for _ in range(int(rng.integers(2, 4))):
        part = random_shape(rng, dim, compound=False)
        rot = rng.uniform(-3, 3) if dim == 2 else _quat(rng)
        parts.append((part, rng.uniform(-1.0, 1.0, dim), rot))
    return Compound(parts)


class Script:
    """Random changes, drawn once and applied alike to every world given."""

    def __init__(self, seed, dim, extent):
        self.rng = np.random.default_rng(seed)
        self.dim = dim
        self.extent = extent
        self.ids = []      # live finite bodies, in the order the script knows them
        self.planes = []
        self.next_id = 0

    def _pose(self):
        rng = self.rng
        pos = rng.uniform(0, self.extent, self.dim)
        return (pos, float(rng.uniform(-3, 3)), None) if self.dim == 2 else (pos, None, _quat(rng))

    def initial(self, n):
        ops = [("add", random_shape(self.rng, self.dim), *self._pose(), f"b{i}") for i in range(n)]
        self.ids = [f"b{i}" for i in range(n)]
        normal = self.rng.normal(size=self.dim)
        ops.append(("add_plane", normal, float(np.dot(normal, np.full(self.dim, 0.1 * self.extent))), "floor"))
        self.planes.append("floor")
        return ops

    def frame(self):
        """The changes before one step."""
        rng = self.rng
        ops = []
        if self.ids:
            k = int(rng.integers(0, len(self.ids) + 1))
            chosen = [self.ids[i] for i in rng.choice(len(self.ids), k, replace=False)]
            pos = np.array([rng.uniform(0, self.extent, self.dim) for _ in chosen]).reshape(k, self.dim)
            if self.dim == 2:
                ops.append(("move_many", chosen, pos, rng.uniform(-3, 3, k), None))
            else:
                quats = np.array([_quat(rng) for _ in chosen]).reshape(k, 4)
                ops.append(("move_many", chosen, pos, None, quats))
        roll = rng.uniform()
        if roll < 0.2:
            ops.append(("add", random_shape(rng, self.dim), *self._pose(), None))  # the next free int id
        elif roll < 0.35 and len(self.ids) > 2:
            gone = self.ids.pop(int(rng.integers(len(self.ids))))
            ops.append(("remove", gone))
        elif roll < 0.5 and self.ids:
            ops.append(("set_shape", self.ids[int(rng.integers(len(self.ids)))], random_shape(rng, self.dim)))
        elif roll < 0.6 and self.ids:
            ops.append(("set_filter", self.ids[int(rng.integers(len(self.ids)))], int(rng.integers(1, 4)),
                        int(rng.integers(0, 8))))
        elif roll < 0.7 and self.ids:
            ops.append(("set_static", self.ids[int(rng.integers(len(self.ids)))], bool(rng.uniform() < 0.5)))
        elif roll < 0.8:
            normal = rng.normal(size=self.dim)
            ops.append(("move_plane", "floor", normal, float(rng.uniform(-1, 0.3 * self.extent))))
        return ops

    def probes(self):
        rng = self.rng
        lo = rng.uniform(0, self.extent, self.dim)
        direction = rng.normal(size=self.dim)
        return (rng.uniform(0, self.extent, self.dim), lo, lo + rng.uniform(0.5, 3, self.dim),
                rng.uniform(0, self.extent, self.dim), direction / np.linalg.norm(direction))


def apply(world, ops):
    for op in ops:
        name = op[0]
        if name == "add":
            _, shape, pos, angle, quat, body_id = op
            got = world.add(shape, pos, angle, quat, id=body_id)
            assert body_id is None or got == body_id
        elif name == "add_plane":
            _, normal, offset, body_id = op
            world.add(HalfPlane(normal, offset) if world.dim == 2 else Plane(normal, offset), id=body_id)
        elif name == "move_many":
            _, ids, pos, angles, quats = op
            world.move_many(ids, pos, angles, quats)
        elif name == "remove":
            world.remove(op[1])
        elif name == "set_shape":
            world.set_shape(op[1], op[2])
        elif name == "set_filter":
            world.set_filter(op[1], category=op[2], mask=op[3])
        elif name == "set_static":
            world.set_static(op[1], op[2])
        elif name == "move_plane":
            world.move(op[1], normal=op[2], offset=op[3])
        else:  # pragma: no cover - a typo in the script
            raise AssertionError(name)


def observe(world, contacts, probes):
    """Everything a step and the queries answer, as bytes: equal bytes are equal answers, bit for bit."""
    point, lo, hi, origin, direction = probes
    answer = [contacts.a.tolist(), contacts.b.tolist(), contacts.part_a, contacts.part_b, contacts.normal,
              contacts.depth, contacts.began.rows(), contacts.ended.rows(), contacts.points, contacts.point_count,
              contacts.separations, contacts.point_ids,
              world.query_point(point), world.query_aabb(lo, hi), world.raycast(origin, direction),
              world.query_nearest(point, k=3), world.ids(), world.poses(world.ids())]
    return canonical(answer)


def canonical(x):
    """``x`` with every float as its bits and every array as dtype, shape and bytes: equal means bit for bit."""
    if isinstance(x, np.ndarray):
        if x.dtype == object:
            return ("objects", x.shape, canonical(x.tolist()))
        return ("array", x.dtype.str, x.shape, x.tobytes())
    if isinstance(x, (float, np.floating)):
        return ("float", float(x).hex())
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(canonical(v) for v in x))
    if x is None or isinstance(x, (str, int, bool, np.integer)):
        return (type(x).__name__, x)
    raise AssertionError(f"no canonical form for {type(x)}")  # pragma: no cover


def _through_pickle(world):
    return pickle.loads(pickle.dumps(world))


def _through_deepcopy(world):
    return copy.deepcopy(world)


CONFIGS = [(dim, backend, manifolds, seed)
           for dim in (2, 3) for backend in BACKENDS for manifolds in (False, True) for seed in range(2)]


@pytest.mark.parametrize("how", [_through_pickle, _through_deepcopy], ids=["pickle", "deepcopy"])
@pytest.mark.parametrize("dim,backend,manifolds,seed", CONFIGS)
def test_copy_steps_like_the_original(dim, backend, manifolds, seed, how):
    """Pickled mid-run, the copy and the original give the same bytes for every later answer."""
    script = Script(1000 * dim + 10 * seed + manifolds, dim, extent=6.0)
    original = World(dim, backend=backend, manifolds=manifolds)
    reference = World(dim, backend=backend, manifolds=manifolds, broadphase="brute_force")
    start = script.initial(14)
    for w in (original, reference):
        apply(w, start)
    for _ in range(4):
        ops = script.frame()
        for w in (original, reference):
            apply(w, ops)
        got = original.step()
        assert got.pairs() == reference.step().pairs()
    original.query_point(np.zeros(dim))          # a built query index, which the pickle leaves behind
    twin = how(original)
    assert twin is not original and twin._store is not original._store
    compared = 0
    for _ in range(8):
        ops = script.frame()
        probes = script.probes()
        for w in (original, twin, reference):
            apply(w, ops)
        c_orig, c_twin, c_ref = original.step(), twin.step(), reference.step()
        assert observe(twin, c_twin, probes) == observe(original, c_orig, probes)
        assert c_twin.pairs() == c_ref.pairs()
        assert set(c_twin.began.rows()) == set(c_ref.began.rows())
        assert set(c_twin.ended.rows()) == set(c_ref.ended.rows())
        compared += len(c_twin)
    # the copy is independent: changing it leaves the original alone
    twin.remove(twin.ids()[0])
    assert len(twin) == len(original) - 1
    assert compared > 0


class _Recording(pickle.Unpickler):
    """An unpickler that notes every class and function the pickle names."""

    def __init__(self, data):
        super().__init__(io.BytesIO(data))
        self.names = set()

    def find_class(self, module, name):
        self.names.add((module, name))
        return super().find_class(module, name)


def _globals_named(data):
    reader = _Recording(data)
    reader.load()
    return reader.names


def test_pickle_holds_no_compiled_code_or_handles():
    """The state names only plain classes: nothing of numba, no locks, no files."""
    for backend in BACKENDS:
        script = Script(7, 2, extent=5.0)
        w = World(2, backend=backend, manifolds=True)
        apply(w, script.initial(20))
        w.step()
        w.query_point((1.0, 1.0))
        w.raycast((0.0, 0.0), (1.0, 0.0))
        outer = pickle.dumps(w)
        fn, (fmt, release, payload) = w.__reduce__()
        assert fn is _unpickle_world and fmt == World.PICKLE_FORMAT and isinstance(payload, bytes)
        names = _globals_named(payload)
        assert not [n for n in names if n[0].split(".")[0] in ("numba", "llvmlite", "_thread", "threading", "io",
                                                                "_io")], names
        assert not [n for n in names if "compiled" in n[0]], names
        assert b"numba" not in outer


def test_pickle_of_another_format_names_the_release_it_needs():
    class Future:
        def __reduce__(self):
            return (_unpickle_world, (World.PICKLE_FORMAT + 1, "9.9.0", b"not read"))

    wanted = r"collideworld 9\.9\.0 in world pickle format 2.*reads format 1 only: load it with collideworld 9\.9\.0"
    with pytest.raises(InvalidArgumentError, match=wanted):
        pickle.loads(pickle.dumps(Future()))

    class Broken:
        def __reduce__(self):
            return (_unpickle_world, ("one", "9.9.0", b""))

    with pytest.raises(InvalidArgumentError, match="not a pickled collideworld World"):
        pickle.loads(pickle.dumps(Broken()))


class Tagged(World):
    """A subclass with a field of its own."""

    def __init__(self, *args, tag="t", **kwargs):
        super().__init__(*args, **kwargs)
        self.tag = tag


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_subclass_comes_back_as_itself(backend):
    w = Tagged(2, backend=backend, tag="mine")
    w.add(Circle(1.0), position=(0, 0), id="a")
    w.add(Circle(1.0), position=(1.5, 0), id="b")
    w.step()
    for twin in (pickle.loads(pickle.dumps(w)), copy.deepcopy(w)):
        assert type(twin) is Tagged and twin.tag == "mine"
        twin.move("b", position=(5.0, 0.0))
        assert list(twin.step().ended) == [("a", "b")]


def test_a_pickle_naming_a_class_that_is_no_world_is_refused():
    class Impostor:
        def __reduce__(self):
            return (_unpickle_world, (World.PICKLE_FORMAT, "0.7.0", b"", dict))

    with pytest.raises(InvalidArgumentError, match="is not a World class"):
        pickle.loads(pickle.dumps(Impostor()))


def _continue_remote(world, frames):
    answers = []
    for ops, probes in frames:
        apply(world, ops)
        answers.append(observe(world, world.step(), probes))
    return answers


@pytest.mark.parametrize("backend", BACKENDS)
def test_world_sent_to_a_process_pool(backend):
    """A worker process (spawned: it shares no memory and no compiled code) steps the world like this one."""
    script = Script(99, 3, extent=6.0)
    w = World(3, backend=backend, manifolds=True)
    apply(w, script.initial(16))
    for _ in range(3):
        apply(w, script.frame())
        w.step()
    frames = [(script.frame(), script.probes()) for _ in range(5)]
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        remote = pool.submit(_continue_remote, w, frames).result(timeout=300)
    assert remote == _continue_remote(w, frames)
