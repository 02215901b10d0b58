"""The voxel kernels of inner parts: `surface_voxels` marks every voxel a triangle meets (each voxel holding a point
of the triangle, sampled densely, and voxel for voxel those the separating-axis test passes when every voxel of the
triangle's bounding box is tried, which its narrowing to the voxels near the triangle's plane must not change);
`summed_volume` counts the voxels of any box; `chessboard_depth` is the distance its definition gives, and
`deepest_first` orders voxels as a stable sort does."""

import numpy as np
import pytest

from lofkit.geometry.voxels import _meets, chessboard_depth, deepest_first, summed_volume, surface_voxels

PITCH = 1.0
SHAPE = (14, 14, 14)
ORIGIN = np.zeros(3)


def _triangles() -> list[np.ndarray]:
    """Triangles of every lean, from flat to upright, some along the grid's lines, some thin, inside the grid."""
    rng = np.random.default_rng(7)
    made = [np.array([[2.0, 2.0, 5.0], [11.0, 3.0, 5.0], [4.0, 12.0, 5.0]]),  # flat, on no voxel face
            np.array([[2.0, 2.0, 6.0], [11.0, 2.0, 6.0], [2.0, 12.0, 6.0]]),  # flat, on voxel faces
            np.array([[3.0, 5.0, 1.5], [3.0, 9.0, 12.0], [3.0, 12.0, 2.0]]),  # upright, on a voxel face
            np.array([[2.5, 2.5, 1.0], [11.5, 11.5, 1.3], [6.0, 6.1, 12.5]]),  # upright and thin
            np.array([[1.0, 1.0, 1.0], [12.0, 12.0, 12.5], [12.0, 1.5, 2.0]])]  # steep
    made += [rng.uniform(1.0, 13.0, (3, 3)) for _ in range(20)]
    made += [np.column_stack([rng.uniform(1.0, 13.0, (3, 2)), 6.0 + rng.uniform(-0.01, 0.01, 3)]) for _ in range(5)]
    return made


def _marked(triangle: np.ndarray) -> np.ndarray:
    surface = np.zeros(SHAPE, dtype=bool)
    surface_voxels(np.ascontiguousarray(triangle[None]), ORIGIN, PITCH, surface)
    return surface


@pytest.mark.parametrize("triangle", _triangles(), ids=lambda t: ",".join(f"{v:.1f}" for v in t.ravel()[:3]))
def test_every_voxel_a_triangle_meets_is_marked(triangle):
    surface = _marked(triangle)
    weights = np.array([(i, j) for i in range(201) for j in range(201 - i)], dtype=float) / 200
    points = triangle[0] + weights[:, :1] * (triangle[1] - triangle[0]) + weights[:, 1:] * (triangle[2] - triangle[0])
    cells = np.floor((points - ORIGIN) / PITCH).astype(int)
    assert surface[tuple(cells.T)].all()


@pytest.mark.parametrize("triangle", _triangles(), ids=lambda t: ",".join(f"{v:.1f}" for v in t.ravel()[:3]))
def test_the_marks_are_those_of_every_voxel_of_the_bounding_box_tried(triangle):
    expected = np.zeros(SHAPE, dtype=bool)
    half = np.full(3, 0.5 * PITCH * (1 + 1e-6))
    low = np.maximum(np.floor(triangle.min(axis=0) / PITCH - 0.01).astype(int), 0)
    high = np.minimum(np.floor(triangle.max(axis=0) / PITCH + 0.01).astype(int), np.array(SHAPE) - 1)
    for i in range(low[0], high[0] + 1):
        for j in range(low[1], high[1] + 1):
            for k in range(low[2], high[2] + 1):
                centre = ORIGIN + (np.array([i, j, k]) + 0.5) * PITCH
                a, b, c = (triangle - centre).copy()
                expected[i, j, k] = _meets(a, b, c, half)
    assert np.array_equal(_marked(triangle), expected)


def _solid(seed: int) -> np.ndarray:
    """A blobby voxel set with an empty rim, as inner parts' grids have."""
    from scipy import ndimage

    rng = np.random.default_rng(seed)
    inside = ndimage.binary_closing(ndimage.gaussian_filter(rng.random((40, 36, 30)), 3) > 0.5, iterations=2)
    inside[[0, -1]] = inside[:, [0, -1]] = inside[:, :, [0, -1]] = False
    return inside


@pytest.mark.parametrize("seed", range(4))
def test_the_summed_volume_table_counts_every_box(seed):
    inside = _solid(seed)
    table = np.zeros(tuple(n + 1 for n in inside.shape), dtype=np.int32)
    summed_volume(inside, table)
    rng = np.random.default_rng(seed)
    for _ in range(50):
        lo = rng.integers(0, inside.shape)
        hi = lo + rng.integers(1, np.array(inside.shape) - lo + 1)
        count = (table[hi[0], hi[1], hi[2]] - table[lo[0], hi[1], hi[2]] - table[hi[0], lo[1], hi[2]]
                 - table[hi[0], hi[1], lo[2]] + table[lo[0], lo[1], hi[2]] + table[lo[0], hi[1], lo[2]]
                 + table[hi[0], lo[1], lo[2]] - table[lo[0], lo[1], lo[2]])
        assert count == inside[lo[0]:hi[0], lo[1]:hi[1], lo[2]:hi[2]].sum()


def _depth_by_definition(inside: np.ndarray) -> np.ndarray:
    """The most of |di|, |dj|, |dk| to the nearest voxel not inside, the cells around the grid counting as such:
    for each voxel, the growing cubes around it, until one holds a voxel that is not inside."""
    padded = np.pad(inside, 1)
    depth = np.zeros(inside.shape, dtype=int)
    for i, j, k in np.argwhere(inside):
        r = 1
        while padded[i + 1 - r:i + 2 + r, j + 1 - r:j + 2 + r, k + 1 - r:k + 2 + r].all():
            r += 1
        depth[i, j, k] = r
    return depth


@pytest.mark.parametrize("seed", range(4))
def test_the_chessboard_depth_is_the_distance_to_the_nearest_voxel_outside(seed):
    inside = _solid(seed)[:24, :20, :18].copy()  # cut: some voxels inside touch the grid's faces
    depth = np.empty(inside.shape, dtype=np.int16)
    chessboard_depth(inside, depth)
    assert np.array_equal(depth, _depth_by_definition(inside)) and depth.max() >= 3


@pytest.mark.parametrize("seed", range(4))
def test_deepest_first_is_a_stable_sort_by_depth(seed):
    depth = np.random.default_rng(seed).integers(0, 7, (9, 8, 7)).astype(np.int16)
    where = np.flatnonzero(depth)
    assert np.array_equal(deepest_first(depth), where[np.argsort(-depth.ravel()[where], kind="stable")])
