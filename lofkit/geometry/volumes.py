"""Trooper volumes as arrays: every trooper's and marker's cylinder (docs/rules.md, Volumes and silhouettes), and the
volumes of bases that are not troopers of the scene (spots a base may take).

docs/rules.md: "A trooper's volume is a closed vertical cylinder: diameter = base size, height = silhouette height,
bottom face at the trooper's elevation `z`". Plain data: no mesh, no ray scene.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lofkit.errors import UnknownTrooperError


@dataclass(frozen=True, eq=False)
class Volumes:
    """Every trooper's and marker's volume: "a closed vertical cylinder: diameter = base size, height = silhouette
    height, bottom face at the trooper's elevation `z`", as arrays indexed like `scene.troopers`.

    ``world.troopers`` holds them; the measuring functions (`base_distance`, `in_zoc`, ...) take them with trooper
    indices (`index`). Lengths in mm.

    Attributes
    ----------
    ids, sides : tuple
        Trooper ids, and sides (None for a neutral trooper without one).
    centre : numpy.ndarray
        (n, 2) base centres x, y.
    z, radius, height : numpy.ndarray
        (n,) underside of the base, base radius, and volume height (3 mm, S0, for prone troopers).
    facing : numpy.ndarray
        (n,) degrees counter-clockwise from +x.
    neutral, marker, moving, engaged, prone : numpy.ndarray of bool
        (n,) each trooper's flags and states (`moving` and `engaged` have a 360° arc).
    blocks_lof : numpy.ndarray of bool
        (n,) whether its volume obstructs LoF: never a marker's, nor a `moving` trooper's.

    Examples
    --------
    >>> import lofkit
    >>> volumes = lofkit.load("examples/rulebook_lof.yaml").troopers
    >>> i = volumes.index("iguana")
    >>> float(volumes.radius[i]), float(volumes.height[i]), volumes.centre[i].tolist()
    (27.5, 67.0, [600.0, 650.0])
    """

    ids: tuple[str, ...]
    sides: tuple[str | None, ...]
    centre: np.ndarray  # (n, 2) base centre x, y
    z: np.ndarray  # (n,) underside of the base
    radius: np.ndarray  # (n,)
    height: np.ndarray  # (n,) S0 height for prone troopers
    facing: np.ndarray  # (n,) degrees counter-clockwise from +x
    neutral: np.ndarray
    marker: np.ndarray
    moving: np.ndarray  # declared a movement: a 360 degree arc (docs/rules.md LoF 1)
    engaged: np.ndarray
    prone: np.ndarray
    blocks_lof: np.ndarray  # obstructs LoF; docs/rules.md LoF 3: never markers, nor troopers that declared a movement
    _lookup: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_lookup", {trooper_id: i for i, trooper_id in enumerate(self.ids)})

    def __len__(self) -> int:
        return len(self.ids)

    def index(self, trooper_id: str) -> int:
        """The index of trooper `trooper_id`; raises `UnknownTrooperError` for an id the scene does not have."""
        if trooper_id not in self._lookup:
            raise UnknownTrooperError(trooper_id, list(self.ids))
        return self._lookup[trooper_id]

    def allied(self, a, b) -> np.ndarray:
        """Whether troopers a and b are on one side: the same `side`, or both neutral."""
        a, b = np.asarray(a), np.asarray(b)
        sides = np.array([s if s is not None else "" for s in self.sides], dtype=object)
        both_neutral = self.neutral[a] & self.neutral[b]
        return both_neutral | (~self.neutral[a] & ~self.neutral[b] & (sides[a] == sides[b]))

    def enemies(self, a, b) -> np.ndarray:
        """Whether a and b are enemies: on different sides, neither neutral."""
        a, b = np.asarray(a), np.asarray(b)
        return ~self.allied(a, b) & ~self.neutral[a] & ~self.neutral[b]

    def with_copies(self, index: int, centres: np.ndarray, z: np.ndarray) -> Volumes:
        """These volumes plus copies of trooper `index` standing at `centres` (n, 2) and elevations `z` (n,), ids
        `<id>@<k>`; the trooper and its copies are `moving` (the stations of a declared move): a 360 degree arc, and
        they block no LoF."""
        n = len(centres)

        def extend(values: np.ndarray, value) -> np.ndarray:
            return np.concatenate([values, np.full(n, value, dtype=values.dtype)])

        moving, blocks_lof = self.moving.copy(), self.blocks_lof.copy()
        moving[index], blocks_lof[index] = True, False
        return Volumes(
            ids=self.ids + tuple(f"{self.ids[index]}@{k}" for k in range(n)),
            sides=self.sides + (self.sides[index],) * n,
            centre=np.vstack([self.centre, np.reshape(centres, (n, 2))]),
            z=np.concatenate([self.z, z]),
            radius=extend(self.radius, self.radius[index]),
            height=extend(self.height, self.height[index]),
            facing=extend(self.facing, self.facing[index]),
            neutral=extend(self.neutral, self.neutral[index]),
            marker=extend(self.marker, self.marker[index]),
            moving=np.concatenate([moving, np.ones(n, dtype=bool)]),
            engaged=extend(self.engaged, False),
            prone=extend(self.prone, self.prone[index]),
            blocks_lof=np.concatenate([blocks_lof, np.zeros(n, dtype=bool)]),
        )

    @property
    def top(self) -> np.ndarray:
        return self.z + self.height

    @property
    def facing_vector(self) -> np.ndarray:
        angle = np.radians(self.facing)
        return np.stack([np.cos(angle), np.sin(angle)], axis=-1)

    @property
    def boxes(self) -> np.ndarray:
        """Axis-aligned bounds (n, 6): min x, y, z, max x, y, z."""
        r = self.radius[:, None]
        return np.hstack([self.centre - r, self.z[:, None], self.centre + r, self.top[:, None]])


def base_volumes(centres, z, radii, heights) -> Volumes:
    """Volumes for bases that are not (or not yet) troopers of the scene, e.g. spots a dispersing trooper may take or
    an analysis's probes. They are spots, not troopers: they block no LoF."""
    centres = np.reshape(np.asarray(centres, dtype=float), (-1, 2))
    n = len(centres)

    def column(values) -> np.ndarray:
        return np.broadcast_to(np.asarray(values, dtype=float), (n,)).copy()

    false = np.zeros(n, dtype=bool)
    return Volumes(
        ids=tuple(f"probe-{k}" for k in range(n)),
        sides=(None,) * n,
        centre=centres,
        z=column(z),
        radius=column(radii),
        height=column(heights),
        facing=np.zeros(n),
        neutral=false,
        marker=false,
        moving=false,
        engaged=false,
        prone=false,
        blocks_lof=false,
    )
