"""Contact between two oriented boxes in 3D, by the separating axis theorem.

Two convex polyhedra are disjoint exactly when some face normal of either, or
some cross product of an edge of one with an edge of the other, separates
their projections. For boxes that is 3 + 3 + 9 = 15 axes (Gottschalk, Lin and
Manocha 1996, "OBBTree"; Ericson, *Real-Time Collision Detection*, §4.4.1).
The same 15 axes contain every face normal of the Minkowski difference, so the
smallest overlap over them is the penetration depth, and its axis the
direction of the minimum translation vector.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .kernel_support import finish
from .result import ContactArrays

__all__ = ["contact_box_box_3d"]

#: Added to every ``|R_ij|`` in the edge-pair radii (Ericson's parallel-edge
#: guard). ``R = R_a^T R_b`` is a product of rotation matrices, so each entry
#: carries a rounding error of a few ulps of 1; the guard must exceed that, so
#: that a rounded radius is never smaller than the exact one. That matters on
#: the edge-pair axes only, where normalising divides the error by the sine
#: between the edges; on a face axis the error stays a few ulps of the box
#: size, far below ``touch_tolerance``, so face radii use the bare ``|R|`` and
#: two exactly aligned boxes that touch get depth exactly 0. The guard is a
#: cosine, not a length: radii grow by ``eps * h``, in proportion to the
#: boxes, so it neither swallows a 1e-3 box (as an absolute 1e-6 would) nor
#: vanishes beside a 1e6 one.
_COS_EPS = 16.0 * np.finfo(np.float64).eps

#: Cross products ``|e_i x f_j|`` (the sine of the angle between two edges)
#: at or below this are skipped. For exactly parallel edges the computed
#: cross product is rounding noise, and normalising it would produce an
#: arbitrary direction. Nothing is lost: with parallel edges the problem
#: reduces to the 2D cross-section, whose separating axes are face normals,
#: already tested. For merely nearly parallel edges the guard above inflates
#: the normalised radii by ``eps * H / sin`` (``H`` the four cross-section
#: half extents) while the axis can separate at most
#: ``2 * (h_edge_a + h_edge_b) * sin`` more than the face axes; below this
#: threshold the guard outweighs that unless the edges are over ~1e9 times
#: longer than the cross-sections, so skipping loses nothing.
_PARALLEL_SIN = 1e-12

# Index tables for the 9 edge-edge axes e_i x f_j (pair k = 3 * i + j): the
# two other indices of i and of j, in cyclic order, as in Ericson's listing.
_I = np.repeat(np.arange(3), 3)
_J = np.tile(np.arange(3), 3)
_I1, _I2 = (_I + 1) % 3, (_I + 2) % 3
_J1, _J2 = (_J + 1) % 3, (_J + 2) % 3
# The same entries of R as positions in R flattened to 9 (row-major).
_K_I1J, _K_I2J = 3 * _I1 + _J, 3 * _I2 + _J
_K_IJ1, _K_IJ2 = 3 * _I + _J1, 3 * _I + _J2


def contact_box_box_3d(
    center_a: ArrayLike,
    rotation_a: ArrayLike,
    half_a: ArrayLike,
    center_b: ArrayLike,
    rotation_b: ArrayLike,
    half_b: ArrayLike,
) -> ContactArrays:
    """Contact (hit, normal, depth) between pairs of oriented boxes in 3D.

    Outline::

        express b in a's frame once: R = R_a^T R_b, t = R_a^T (c_b - c_a)
        for each of the 15 axes L (a's 3 faces, b's 3 faces, 9 edge pairs):
            skip L = e_i x f_j if the edges are parallel (|L| ~ 0), else normalise
            separation(L) = |t . L| - r_a(L) - r_b(L)  (edge pairs: |R| + eps)
        s = max separation; hit where s <= touch tolerance
        normal = the maximising L, signed to point from a to b; depth = max(-s, 0)

    Parameters
    ----------
    center_a, center_b : array_like, shape (..., 3)
        Box centres in world coordinates.
    rotation_a, rotation_b : array_like, shape (..., 3, 3)
        Rotations, local to world; columns are the box axes.
    half_a, half_b : array_like, shape (..., 3)
        Half extents along the box's own axes, ``>= 0``.

    The leading shapes broadcast together; with N pairs they are ``(N,)``,
    and a single pair may be given without a leading axis.

    Returns
    -------
    ContactArrays
        ``hit`` (...,) bool; ``normal`` (..., 3), unit, from a towards b:
        translating b by ``normal * depth`` brings it to touching; ``depth``
        (...,), ``>= 0`` where ``hit``, elsewhere minus the largest axis
        separation (a lower bound of the gap).

    Notes
    -----
    Touching counts: a pair is a hit when its largest separation is at most
    ``touch_tolerance(scale)``, with ``scale`` the largest absolute centre
    coordinate or half extent of the pair.

    Ties between axes go to the first in the order a's faces, b's faces,
    edge pairs, so face contacts are preferred over edge contacts of equal
    depth. Where the centres coincide along the chosen axis the normal is
    the axis itself (not its negation).

    NOTE: for edges within about 1e-7 of parallel, float64 cannot resolve
    the edge-edge axis much better than ``1e-7 * h``; the guard resolves that
    ambiguity towards "touching", never towards a false separation.

    Runs in O(N) time and memory, with no Python loop over pairs.

    Examples
    --------
    >>> import numpy as np
    >>> eye = np.eye(3)
    >>> c = contact_box_box_3d([0, 0, 0], eye, [1, 1, 1], [1.5, 0, 0], eye, [1, 1, 1])
    >>> bool(c.hit), c.normal.tolist(), float(c.depth)
    (True, [1.0, 0.0, 0.0], 0.5)
    """
    ca = np.asarray(center_a, dtype=np.float64)
    ra_ = np.asarray(rotation_a, dtype=np.float64)
    ha = np.asarray(half_a, dtype=np.float64)
    cb = np.asarray(center_b, dtype=np.float64)
    rb_ = np.asarray(rotation_b, dtype=np.float64)
    hb = np.asarray(half_b, dtype=np.float64)
    lead = np.broadcast_shapes(
        ca.shape[:-1], ra_.shape[:-2], ha.shape[:-1],
        cb.shape[:-1], rb_.shape[:-2], hb.shape[:-1],
    )

    def flat(x: NDArray[np.float64], tail: tuple[int, ...]) -> NDArray[np.float64]:
        return np.broadcast_to(x, lead + tail).reshape((-1,) + tail)

    ca, cb, ha, hb = (flat(x, (3,)) for x in (ca, cb, ha, hb))
    ra_, rb_ = flat(ra_, (3, 3)), flat(rb_, (3, 3))
    hit, normal, depth = _contact_box_box_3d(ca, ra_, ha, cb, rb_, hb)
    return ContactArrays(hit.reshape(lead), normal.reshape(lead + (3,)), depth.reshape(lead))


def _contact_box_box_3d(
    ca: NDArray[np.float64],
    rot_a: NDArray[np.float64],
    ha: NDArray[np.float64],
    cb: NDArray[np.float64],
    rot_b: NDArray[np.float64],
    hb: NDArray[np.float64],
) -> ContactArrays:
    """The kernel on flat arrays: (N, 3), (N, 3, 3), (N, 3) for each box."""
    n = ca.shape[0]
    rows = np.arange(n)
    # Working in a's frame turns a's axes into e_0, e_1, e_2 and b's axes into
    # the columns of R, so every projection below is a few products of entries
    # (parry computes the relative pose of B in A once, up front, likewise).
    # The difference of centres is taken before rotating: it is exact or
    # correctly rounded, so a pair far from the origin loses nothing here.
    r = np.matmul(np.swapaxes(rot_a, 1, 2), rot_b)
    t = np.einsum("nki,nk->ni", rot_a, cb - ca)
    abs_r = np.abs(r)
    r_flat = r.reshape(n, 9)
    guarded = (abs_r + _COS_EPS).reshape(n, 9)

    # Separations |t . L| - r_a(L) - r_b(L), one column per axis: 0-2 a's
    # faces, 3-5 b's faces, 6-14 the edge pairs e_i x f_j (k = 3 i + j).
    t_b = np.einsum("nij,ni->nj", r, t)
    sep_a = np.abs(t) - (ha + np.einsum("nij,nj->ni", abs_r, hb))
    sep_b = np.abs(t_b) - (np.einsum("nij,ni->nj", abs_r, ha) + hb)

    # e_i x f_j has components -R[i2, j] at i1 and R[i1, j] at i2 (0 at i);
    # its dot products with b's axes f_j1, f_j2 are R[i, j2] and -R[i, j1].
    r_i1j = r_flat[:, _K_I1J]
    r_i2j = r_flat[:, _K_I2J]
    cross_proj = t[:, _I2] * r_i1j - t[:, _I1] * r_i2j
    cross_ra = ha[:, _I1] * guarded[:, _K_I2J] + ha[:, _I2] * guarded[:, _K_I1J]
    cross_rb = hb[:, _J1] * guarded[:, _K_IJ2] + hb[:, _J2] * guarded[:, _K_IJ1]
    # The sine is taken from the cross product's own components rather than
    # sqrt(1 - R_ij^2), which cancels catastrophically for parallel edges.
    sine = np.sqrt(r_i1j * r_i1j + r_i2j * r_i2j)
    usable = sine > _PARALLEL_SIN
    safe = np.where(usable, sine, 1.0)
    # Dividing by the sine is what normalises the axis; a skipped axis gets
    # -inf so that it never wins the maximum below.
    sep_x = np.where(usable, (np.abs(cross_proj) - cross_ra - cross_rb) / safe, -np.inf)

    sep = np.concatenate([sep_a, sep_b, sep_x], axis=1)
    best = np.argmax(sep, axis=1)
    max_sep = sep[rows, best]

    # Build the winning axis only, in a's frame, from whichever group won.
    k = np.clip(best - 6, 0, 8)
    face_b = np.clip(best - 3, 0, 2)
    cross_axis = np.zeros((n, 3))
    cross_axis[rows, _I1[k]] = -r_i2j[rows, k]
    cross_axis[rows, _I2[k]] = r_i1j[rows, k]
    local = np.where(
        (best < 3)[:, None], np.eye(3)[np.minimum(best, 2)],
        np.where((best < 6)[:, None], r[rows, :, face_b], cross_axis / safe[rows, k, None]),
    )
    along = np.where(best < 3, t[rows, np.minimum(best, 2)],
                     np.where(best < 6, t_b[rows, face_b], cross_proj[rows, k]))
    # Signed so that it points from a to b; centres level along it give +axis.
    local *= np.where(along < 0.0, -1.0, 1.0)[:, None]
    normal = np.einsum("nij,nj->ni", rot_a, local)

    # Elementwise maxima of (N,) columns rather than a reduction over a short
    # trailing axis: the same result, faster, and fine for N = 0.
    scale = np.maximum.reduce([np.abs(x[:, i]) for x in (ca, cb, ha, hb) for i in range(3)])
    return finish(-max_sep, normal, scale)
