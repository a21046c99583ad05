"""Pure geometry: stateless functions over numpy arrays.

Nothing in this subpackage imports the world, the broadphase or the scenario
code. Every kernel is batch-first: it takes arrays describing N pairs and
returns arrays, with no Python loop over pairs.

Conventions shared by every module here
---------------------------------------
* Poses: a rotation matrix ``R`` maps local to world (``world = R @ local + p``);
  its columns are the body's axes in the world frame. 2D ``R`` is (N, 2, 2),
  3D ``R`` is (N, 3, 3).
* Boxes: ``center`` (N, D), ``rotation`` (N, D, D), ``half`` (N, D).
* Balls (circles and spheres): ``center`` (N, D), ``radius`` (N,).
* Convex polygons: ``vertices`` (N, K, 2) in world coordinates,
  counter-clockwise, padded to a common K by repeating the last vertex; a
  zero-length edge carries no axis and is ignored.
* Half-spaces (half-planes and planes): ``normal`` (N, D) unit, ``offset`` (N,):
  the solid ``normal . p <= offset``.
* Kernels named ``contact_<a>_<b>`` return :class:`~.result.ContactArrays` (hit,
  normal from a towards b, depth); ``intersects_<a>_<b>`` return booleans;
  ``classify_<a>_<b>`` return a side code. Shape pairs are in one canonical
  order (half-space, ball, box, polygon); only the dispatcher swaps and flips.
* Touching counts (closed sets): a hit is ``signed depth >= -touch_tolerance``
  (see :mod:`collideworld.geometry.tolerance`); reported depths are clamped to
  ``>= 0``.
* Kernels do not validate input: the boundary (shape constructors, ``World``
  methods, the scenario reader, the CLI) does.
"""

from .result import ContactArrays
from .tolerance import REL_TOUCH_TOL, touch_tolerance

__all__ = ["ContactArrays", "REL_TOUCH_TOL", "touch_tolerance"]
