"""The one touching rule, as a number.

Shapes are closed sets: two shapes that touch are in contact with depth 0.
Exact touching is decided in floating point, where rotating a box by a
multiple of 90 degrees or placing it at 1e6 leaves rounding noise of a few
ulps of the coordinates involved. A kernel therefore reports a hit when its
signed depth is at least ``-touch_tolerance(scale)``, where ``scale`` is the
magnitude of the coordinates of that pair, and clamps the reported depth to
``>= 0``. The AABBs handed to the broadphase are widened by the same amount so
the broadphase can never drop a pair the kernels would call touching.

A gap smaller than this tolerance (1e-14 of the pair's scale, about 45 ulps:
1e-8 for coordinates of 1e6, 1e-14 for coordinates of 1, 1e-30 for two
specks of size 1e-16 at the origin) is indistinguishable from touching; that
is the price of deciding exact touching in floating point. The rule is
relative all the way down, with no absolute floor, so scaling a whole scene
by any power of ten (within the coordinate limits) changes no contact
decision. Squared lengths and products of coordinates under- or overflow
far inside those limits (below ~1e-154, above ~1e77 for a product of two
squares), so the kernels measure such pairs again with their coordinates
scaled by a power of two, which is exact (see ``SQUARES_UNDERFLOW``,
``TINY_SCALE``); tests check every power of ten from 1e-300 to 1e149, below
which coordinates themselves start to lose bits as subnormal numbers. It is
kept as small as the
kernels' rounding allows (exactly touching rotated boxes 1e6 from the origin
must still touch), so that a file recorded elsewhere, whose bodies are
separated by more than a few dozen ulps, replays as apart here.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["MAX_COORDINATE", "NEAR_MISS", "REL_TOUCH_TOL", "SQUARES_OVERFLOW", "SQUARES_RESCALE", "SQUARES_UNDERFLOW",
           "TINY_SCALE", "touch_tolerance"]

#: Largest magnitude accepted for a coordinate or a size (positions, radii,
#: half extents, polygon vertices, plane offsets). Kernels square differences
#: of coordinates and sum a few of them; below 1e150 that stays far from
#: float64 overflow (~1.8e308), so no input can turn a result into inf or NaN.
MAX_COORDINATE = 1e150

#: Relative tolerance under which a gap counts as touching.
REL_TOUCH_TOL = 1e-14

#: Time of impact: a gap below this fraction of the motion's extent counts as a touch
#: (here, not in ``time_of_impact``, so that the world reads it without importing numba).
NEAR_MISS = 1e-12

#: A sum of squares below this may have lost bits to underflow: a square
#: under the smallest normal double (2**-1022, reached by components under
#: ~1.5e-154, i.e. in any scene scaled down that far) is rounded to a
#: subnormal or to 0, so two tiny balls apart would measure 0 apart. Kernels
#: measure such a vector again multiplied by :data:`SQUARES_RESCALE`, which
#: is exact (a power of two), and divide the length back. Above it, every
#: square that matters is normal (smaller ones are below half an ulp of the sum).
SQUARES_UNDERFLOW = 2.0 ** -960

#: The power of two a vector whose squares underflowed is scaled up by.
SQUARES_RESCALE = 2.0 ** 600

#: A sum of squares above this may have overflowed (squares of cross
#: products of coordinates over ~1e77); measured again scaled down.
SQUARES_OVERFLOW = 2.0 ** 960

#: A pair whose coordinates and sizes are all under this (~4e-121) is
#: measured by kernels that multiply coordinates in pairs (cross products,
#: squared lengths) with its offsets scaled up by :data:`SQUARES_RESCALE`
#: (exact), and the lengths scaled back: the products would underflow.
TINY_SCALE = 2.0 ** -400


def touch_tolerance(scale: ArrayLike) -> NDArray[np.float64]:
    """Absolute touching tolerance for coordinates of magnitude ``scale``.

    Parameters
    ----------
    scale : array_like, shape (...)
        Largest absolute coordinate or size involved in each pair.

    Returns
    -------
    ndarray, shape (...)
        ``REL_TOUCH_TOL * |scale|``: relative, with no absolute floor.

    Examples
    --------
    For unit coordinates the tolerance is 1e-14; a million units out, 1e-8;
    for a speck of 2**-50 (about 9e-16), 2**-50 times as much:

    >>> touch_tolerance([1.0, 1e6, 2.0**-50]).tolist() == [1e-14, 1e-08, 1e-14 * 2.0**-50]
    True
    """
    return REL_TOUCH_TOL * np.abs(np.asarray(scale, dtype=np.float64))
