"""The kernel of a closed solid: the points that see all of its surface from inside, a convex part of it.

A low-poly rock or boulder is seldom convex (one face turned in a little is enough), so it used to get a thousand
inner boxes. Its kernel, the intersection of the inner half-spaces of all its faces, is convex and lies inside the
solid (the point of the solid nearest a point outside lies on a face whose plane has the outside point beyond it), and
for a rock it is nearly all of it: one convex part, crossed by a segment wherever the rock stands in the way.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog
from scipy.spatial import ConvexHull, HalfspaceIntersection, QhullError

DEPTH = 1e-6
"""mm the kernel must hold a ball of, to count as a solid at all."""


def kernel_volume(triangles: np.ndarray) -> float:
    """The volume of the kernel of the closed surface `triangles` (t, 3, 3), faces turned out: the intersection of
    {x: n . x <= n . a} over its faces (normal n, corner a); 0 when it holds no ball `DEPTH` wide.

    >>> import trimesh
    >>> dent = trimesh.creation.box([10, 10, 10])
    >>> dent.vertices[dent.vertices[:, 2] > 0] *= [0.9, 0.9, 1]  # a box whose top is a little smaller: convex
    >>> round(kernel_volume(dent.triangles), 3), round(float(dent.volume), 3)
    (903.333, 903.333)
    >>> round(kernel_volume(trimesh.creation.annulus(2, 5, 4).triangles), 3)  # a ring sees none of itself whole
    0.0
    """
    normals = np.cross(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0])
    lengths = np.linalg.norm(normals, axis=1)
    keep = lengths > 0
    normals = normals[keep] / lengths[keep, None]
    offsets = np.einsum("ij,ij->i", normals, triangles[keep, 0])
    # the centre of the largest ball inside every half-space (Chebyshev's centre), as a linear programme
    found = linprog([0, 0, 0, -1], A_ub=np.column_stack([normals, np.ones(len(normals))]), b_ub=offsets,
                    bounds=[(None, None)] * 3 + [(0, None)], method="highs")
    if found.status != 0 or found.x[3] <= DEPTH:
        return 0.0
    try:
        corners = HalfspaceIntersection(np.column_stack([normals, -offsets]), found.x[:3]).intersections
        return float(ConvexHull(corners).volume)
    except QhullError:
        return 0.0
