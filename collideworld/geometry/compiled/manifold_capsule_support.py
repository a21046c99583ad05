"""Compiled twin of ``geometry/manifold_capsule_support.py``: a segment's feature and the radius shift, per row.

NOTE: like ``kernel_support.py``, numba's cache of a kernel does not notice
edits here; delete the ``.nbi``/``.nbc`` files after editing.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..manifold_capsule_support import SEGMENT_CODE
from ..manifold_support import FEATURE_SLOP

__all__ = ["round_row", "segment_feature_row"]


@njit(cache=True)
def segment_feature_row(p0: NDArray[np.float64], p1: NDArray[np.float64], d0: float, d1: float, d2: float,
                        corners: NDArray[np.float64], cids: NDArray[np.int64]) -> tuple[int, int]:
    """``segment_feature_3d`` for one segment: fills corners (4, 3) and cids (4,); returns (free, code)."""
    e0, e1, e2 = p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]
    along = e0 * d0 + e1 * d1 + e2 * d2
    length = math.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
    whole = length > 0.0 and abs(along) <= FEATURE_SLOP * length
    end = 1 if along > 0.0 else 0
    for k in range(4):
        cid = (1 if (k == 1 or k == 2) else 0) if whole else end
        cids[k] = cid
        for a in range(3):
            corners[k, a] = p1[a] if cid == 1 else p0[a]
    if whole:
        return 1, SEGMENT_CODE
    return 0, end


@njit(cache=True)
def round_row(i: int, normal: NDArray[np.float64], ra: float, rb: float, points: NDArray[np.float64],
              seps: NDArray[np.float64], count: NDArray[np.int64]) -> None:
    """Row i of ``round_manifold``: the used points move ``(ra - rb) / 2`` along n, separations shrink by ra + rb."""
    shift = 0.5 * (ra - rb)
    for k in range(count[i]):
        for d in range(normal.shape[1]):
            points[i, k, d] = points[i, k, d] + shift * normal[i, d]
        seps[i, k] = seps[i, k] - (ra + rb)
