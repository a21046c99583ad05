"""Compiled twin of ``geometry/contact_halfspace_halfspace.py``: two half-spaces."""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..result import ContactArrays
from .kernel_support import as_rows, contact_outputs, einsum_sum, touch_rule

__all__ = ["contact_halfspace_halfspace", "row"]


@njit(cache=True)
def row(na: NDArray[np.float64], oa: NDArray[np.float64], a: int,
         nb: NDArray[np.float64], ob: NDArray[np.float64], b: int, rule: tuple[float, float], i: int,
         hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    """Row ``i`` of the output: half-space ``a`` (rows of ``na``, ``oa``) against half-space ``b``."""
    dim = na.shape[1]
    cos = einsum_sum(na[a, 0] * nb[b, 0], na[a, 1] * nb[b, 1], na[a, dim - 1] * nb[b, dim - 1], dim)
    for k in range(dim):
        normal[i, k] = na[a, k]
    oa_, ob_ = oa[a], ob[b]
    scale = abs(oa_) if abs(oa_) >= abs(ob_) else abs(ob_)
    rel, floor = rule
    big = floor if floor >= scale else scale
    slab = oa_ + ob_
    if cos <= -1.0 + 1e-12:  # opposite normals: a slab, apart or not
        touching = slab >= -(rel * big)
        hit[i] = touching
        depth[i] = (slab if slab >= 0.0 else 0.0) if touching else slab
    else:  # no translation separates them
        hit[i] = True
        depth[i] = np.inf


@njit(cache=True)
def _rows(na: NDArray[np.float64], oa: NDArray[np.float64], nb: NDArray[np.float64], ob: NDArray[np.float64],
          rule: tuple[float, float],
          hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    for i in range(na.shape[0]):
        row(na, oa, i, nb, ob, i, rule, i, hit, normal, depth)


def contact_halfspace_halfspace(normal_a: NDArray[np.float64], offset_a: NDArray[np.float64],
                                normal_b: NDArray[np.float64], offset_b: NDArray[np.float64]) -> ContactArrays:
    """Two half-spaces; the twin of the numpy ``contact_halfspace_halfspace``.

    Parameters
    ----------
    normal_a, normal_b : ndarray, shape (N, D)
    offset_a, offset_b : ndarray, shape (N,)

    Returns
    -------
    ContactArrays
        ``normal`` (N, D) is ``normal_a``; ``depth`` (N,) may be ``inf``.

    Examples
    --------
    The floor ``y <= 0`` against ``y >= -0.5`` (a slab 0.5 thick), and
    against the wall ``x <= 0``, which no translation separates from it:

    >>> import numpy as np
    >>> c = contact_halfspace_halfspace(np.array([[0.0, 1.0]] * 2), np.array([0.0, 0.0]),
    ...                                 np.array([[0.0, -1.0], [1.0, 0.0]]), np.array([0.5, 0.0]))
    >>> c.hit.tolist(), c.normal[0].tolist(), c.depth.tolist()
    ([True, True], [0.0, 1.0], [0.5, inf])
    """
    na, nb = as_rows(normal_a), as_rows(normal_b)
    out = contact_outputs(na.shape[0], na.shape[1])
    _rows(na, as_rows(offset_a), nb, as_rows(offset_b), touch_rule(), *out)
    return out
