"""The array types the grid (:mod:`.grid`) and its compiled twin (:mod:`.compiled`) share.

A module below both, so that neither imports the other for a type: the
grid calls its compiled twin's kernels, and the twin only needs the types.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["Floats32"]

#: the entry boxes' type (see GridIndex.entry_boxes)
Floats32 = NDArray[np.float32]
