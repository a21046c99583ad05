"""The value every batched contact kernel returns."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

__all__ = ["ContactArrays"]


class ContactArrays(NamedTuple):
    """Contacts of N pairs, as arrays.

    Attributes
    ----------
    hit : ndarray of bool, shape (N,)
        True where the closed shapes intersect (touching counts).
    normal : ndarray of float64, shape (N, D)
        Where ``hit``: unit vector from shape a towards shape b, the direction
        along which b must move by ``depth`` to stop penetrating. Elsewhere
        finite but unspecified.
    depth : ndarray of float64, shape (N,)
        Where ``hit``: penetration depth (minimum translation distance),
        ``>= 0``. Elsewhere negative (minus a lower bound of the gap) or
        unspecified, but finite.

    Examples
    --------
    Two pairs of unit circles: centres 1.5 apart overlap by 0.5 along +x;
    centres (3, 4) apart, 5 away, do not touch.

    >>> from collideworld.geometry.contact_ball_ball import contact_ball_ball
    >>> c = contact_ball_ball([[0.0, 0.0], [0.0, 0.0]], [1.0, 1.0], [[1.5, 0.0], [3.0, 4.0]], [1.0, 1.0])
    >>> c.hit.tolist(), c.normal[0].tolist(), float(c.depth[0])
    ([True, False], [1.0, 0.0], 0.5)
    """

    hit: NDArray[np.bool_]
    normal: NDArray[np.float64]
    depth: NDArray[np.float64]
