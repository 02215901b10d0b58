"""The scene file format (README "Scene files") as validated, immutable data.

A `Scene` is plain data: every length is in millimetres once validated (bare numbers are read in the file's
`units`, passed to validation as context). It never touches a mesh library; `World.from_scene` does that.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import shapely
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from lofkit.errors import Problem
from lofkit.scene.side_files import mesh_side_files
from lofkit.scene.silhouettes import SILHOUETTES, volume_size
from lofkit.scene.table import ON_TABLE_TOLERANCE, base_overhang
from lofkit.units import EPS, INCH, parse_angle, parse_length

_LENGTH_PATTERN = r'^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*(mm|cm|in|")?\s*$'
LENGTH_SCHEMA = {
    "anyOf": [{"type": "number"}, {"type": "string", "pattern": _LENGTH_PATTERN}],
    "description": 'a number in the scene\'s units, or a string with a unit: "25mm", "2.5cm", "8in", "8\\""',
}


def _length(value: object, info: ValidationInfo) -> float:
    return parse_length(value, (info.context or {}).get("units", "mm"))


def _z(value: object, info: ValidationInfo) -> float | str:
    return "auto" if value == "auto" else _length(value, info)


def _not_a_bool(value: object) -> object:
    """YAML's `true` and `false` are no numbers (pydantic would take them as 1 and 0)."""
    if isinstance(value, bool):
        raise ValueError(f"expected a number, got {str(value).lower()}; write a number, not true or false")
    return value


def _a_bool(value: object) -> object:
    """Only YAML's `true` and `false` are yes or no (pydantic would take 1, 0, "yes" and "off" as well)."""
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    return value


def _point3(value: object) -> object:
    """A terrain position may leave out z (it then stands on the table)."""
    return [*value, 0] if isinstance(value, (list, tuple)) and len(value) == 2 else value


NOT_A_BOOL = BeforeValidator(_not_a_bool)
"""The last mark of every plain number's type, after its constraints (before them, they would leave the JSON
Schema): `Annotated[int, Field(ge=0), NOT_A_BOOL]`. Lengths and angles refuse `true` and `false` as they parse."""
Version = Annotated[Literal[1], NOT_A_BOOL]
Flag = Annotated[bool, BeforeValidator(_a_bool)]
"""A yes or no: `true` or `false`, not a number or a word."""
Length = Annotated[float, BeforeValidator(_length), WithJsonSchema(LENGTH_SCHEMA)]
PositiveLength = Annotated[Length, Field(gt=0)]
NonNegativeLength = Annotated[Length, Field(ge=0)]
Angle = Annotated[float, BeforeValidator(parse_angle), WithJsonSchema({"type": "number", "description": "degrees"})]
Point2 = tuple[Length, Length]
Point3 = Annotated[tuple[Length, Length, Length], BeforeValidator(_point3)]
Elevation = Annotated[
    float | str,
    BeforeValidator(_z),
    WithJsonSchema({"anyOf": [LENGTH_SCHEMA, {"const": "auto"}], "description": "elevation of the base's underside"}),
]
TerrainKind = Literal["solid", "zero_visibility", "low_visibility", "poor_visibility"]
TrooperState = Literal["moving", "engaged", "prone"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


def _valid_polygon(points: tuple) -> tuple:
    polygon = shapely.Polygon(points)
    if not polygon.is_valid or polygon.area <= EPS:
        raise ValueError(f"polygon is not a simple polygon with an area ({shapely.is_valid_reason(polygon)})")
    return points


class Table(_Model):
    """The table top: the plane z = 0 over 0 <= x <= width, 0 <= y <= depth."""

    width: PositiveLength = 48 * INCH
    depth: PositiveLength = 48 * INCH
    image: Annotated[str, Field(min_length=1)] | None = Field(
        None,
        description="a PNG or JPEG picture of the table top (e.g. from `lofkit photo`), path relative to the scene "
        "file, stretched over the whole top: its first row along the far edge (y = depth), its first column at x = 0",
    )


FILE_NAME_BREAKERS = ("/", "\\", ":", "*", "?", '"', "<", ">", "|")
"""Characters a file name may not hold on some system (a folder separator, or refused by Windows)."""


class DeploymentZone(_Model):
    side: str
    polygon: Annotated[tuple[Point2, ...], Field(min_length=3)]

    _check_polygon = field_validator("polygon")(_valid_polygon)

    @field_validator("side")
    @classmethod
    def _side_fits_a_file_name(cls, side: str) -> str:
        """A zone's side names files (`lofkit analyze` writes NAME-heatmap-SIDE.png), so it must stay one name that
        every system takes (Windows refuses `: * ? " < > |` in file names)."""
        if any(c in side for c in FILE_NAME_BREAKERS) or ".." in side or not side.isprintable():
            raise ValueError(f"side {side!r} cannot be part of a file name (analyses name their heatmaps after it); "
                             f"give a name without {' '.join(FILE_NAME_BREAKERS)}, '..' or control characters")
        return side


class Box(_Model):
    size: tuple[PositiveLength, PositiveLength, PositiveLength]


class Cylinder(_Model):
    diameter: PositiveLength
    height: PositiveLength


class Wall(_Model):
    start: Point2 = Field(alias="from")
    to: Point2
    thickness: PositiveLength
    height: PositiveLength

    @model_validator(mode="after")
    def _has_length(self) -> Wall:
        if abs(self.to[0] - self.start[0]) + abs(self.to[1] - self.start[1]) <= EPS:
            raise ValueError("a wall needs `from` and `to` at different points")
        return self


class Prism(_Model):
    polygon: Annotated[tuple[Point2, ...], Field(min_length=3)]
    height: PositiveLength

    _check_polygon = field_validator("polygon")(_valid_polygon)


SHAPES = ("box", "cylinder", "wall", "prism", "mesh")


class Orientation(_Model):
    """A piece's turn about the table's fixed axes: x, then y, then z (degrees, counter-clockwise looking down
    each axis; a key left out is 0)."""

    x: Angle = 0.0
    y: Angle = 0.0
    z: Angle = 0.0


def _orientation(value: object) -> object:
    """`rotation: N` turns a piece about z; `rotation: {x, y, z}` about the table's fixed x, then y, then z. A bad
    N is said at `rotation`, where it is written."""
    if isinstance(value, (dict, Orientation)):
        return value
    if isinstance(value, (list, tuple)):
        raise ValueError(f"a rotation is one angle about z or a mapping {{x, y, z}}, not a list (got {value!r}); "
                         "write e.g. `rotation: 90` or `rotation: {x: 0, y: 0, z: 90}`")
    return {"z": parse_angle(value)}


_ANGLE_SCHEMA = {"type": "number", "description": "degrees"}
Rotation = Annotated[
    Orientation,
    BeforeValidator(_orientation),
    WithJsonSchema({
        "anyOf": [{**_ANGLE_SCHEMA, "description": "degrees about z, counter-clockwise"},
                  {"type": "object", "properties": {axis: _ANGLE_SCHEMA for axis in "xyz"}, "additionalProperties": False,
                   "description": "degrees about the table's fixed x, then y, then z"}],
    }),
]


class Terrain(_Model):
    """One terrain piece: exactly one shape (`box`, `cylinder`, `wall`, `prism` or `mesh`), placed on the table."""

    id: Annotated[str, Field(min_length=1)]
    box: Box | None = None
    cylinder: Cylinder | None = None
    wall: Wall | None = None
    prism: Prism | None = None
    mesh: str | None = None
    mesh_units: Literal["mm", "cm", "in", "m"] | None = None
    up_axis: Literal["z", "y"] | None = None
    position: Point3 = (0.0, 0.0, 0.0)
    rotation: Rotation = Field(default=Orientation(), json_schema_extra={"default": 0.0})
    scale: Annotated[float, Field(gt=0, allow_inf_nan=False), NOT_A_BOOL] | tuple[
        Annotated[float, Field(gt=0, allow_inf_nan=False), NOT_A_BOOL], ...
    ] = 1.0
    kind: TerrainKind = "solid"
    blocks_lof: Flag | None = None

    @model_validator(mode="after")
    def _one_shape(self) -> Terrain:
        given = [name for name in SHAPES if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one shape of {', '.join(SHAPES)} (found {', '.join(given) or 'none'})")
        if self.mesh is None and (self.mesh_units or self.up_axis):
            raise ValueError("`mesh_units` and `up_axis` only apply to a `mesh` piece")
        if isinstance(self.scale, tuple) and len(self.scale) != 3:
            raise ValueError("`scale` is one number or three (x, y, z)")
        return self

    @property
    def shape(self) -> str:
        return next(name for name in SHAPES if getattr(self, name) is not None)

    @property
    def blocks(self) -> bool:
        """Whether the piece obstructs LoF: by default solid scenery and Zero Visibility zones do."""
        return self.blocks_lof if self.blocks_lof is not None else self.kind in ("solid", "zero_visibility")


class Trooper(_Model):
    """A trooper or a marker standing on the table (its volume comes from `silhouette`, `base`, `height`)."""

    id: Annotated[str, Field(min_length=1)]
    side: str | None = None
    neutral: Flag = False
    marker: Flag = False
    silhouette: Annotated[int, NOT_A_BOOL] | None = None
    base: PositiveLength | None = None
    height: PositiveLength | None = None
    position: Point2
    z: Elevation = 0.0
    facing: Angle | None = None
    facing_towards: str | Point2 | None = None
    state: tuple[TrooperState, ...] = ()
    proposed: Flag = False
    """Found in a scan or photo and not yet confirmed: it rules as placed, with a notice."""

    @field_validator("silhouette")
    @classmethod
    def _known_silhouette(cls, value: int | None) -> int | None:
        if value is not None and value not in SILHOUETTES:
            raise ValueError(f"unknown silhouette {value}; use 1..8 (S0 is `state: [prone]`)")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Trooper:
        if self.facing is not None and self.facing_towards is not None:
            raise ValueError("give `facing` or `facing_towards`, not both")
        if self.side is None and not self.neutral:
            raise ValueError("give the trooper a `side`, or mark it `neutral: true`")
        volume_size(self.silhouette, self.base, self.height, marker=self.marker)
        return self

    @property
    def size(self) -> tuple[float, float]:
        """(base diameter, height) in mm, prone troopers as S0."""
        return volume_size(self.silhouette, self.base, self.height, prone=self.prone, marker=self.marker)

    @property
    def prone(self) -> bool:
        return "prone" in self.state


SCENE_DESCRIPTION = "A whole table: terrain, troopers and deployment zones, lengths in mm."
"""The scene's description in its JSON Schema (pydantic would take the class docstring, Python examples and all)."""


class Scene(_Model):
    """A whole table as the scene file describes it: terrain, troopers and deployment zones, lengths in mm.

    Validated, immutable pydantic data with no meshes: get one with `load_scene` or `scene_from_data` (or as
    ``world.scene``), change it with ``model_copy(update=...)``; `World.from_scene` compiles it for questions. Its
    fields are the scene file's keys (docs/scene-format.md; `scene_schema`).

    Examples
    --------
    >>> import lofkit
    >>> scene = lofkit.load_scene("examples/rulebook_lof.yaml")
    >>> scene.source.name, len(scene.terrain), [t.id for t in scene.troopers][:3]
    ('rulebook_lof.yaml', 1, ['fusilier', 'grenzer', 'alguacil'])
    >>> fewer = scene.model_copy(update={"troopers": scene.troopers[1:]})  # model_copy does not validate the update
    >>> lofkit.World.from_scene(fewer).troopers.ids[:2]
    ('grenzer', 'alguacil')
    """

    model_config = ConfigDict(json_schema_extra={"description": SCENE_DESCRIPTION})  # not the docstring's examples

    lofkit: Version
    units: Literal["mm", "cm", "in"] = "mm"
    table: Table = Table()
    base_contact_tolerance: NonNegativeLength = 0.5
    deployment_zones: tuple[DeploymentZone, ...] = ()
    terrain: tuple[Terrain, ...] = ()
    troopers: tuple[Trooper, ...] = ()
    _source: Path | None = PrivateAttr(default=None)

    @property
    def source(self) -> Path | None:
        """The file the scene was read from (mesh paths are relative to its folder)."""
        return self._source

    def resolve(self, relative: str) -> Path:
        """A path written in the scene, relative to the scene file's folder."""
        base = self._source.parent if self._source is not None else Path.cwd()
        return (base / relative).resolve()

    def input_files(self) -> list[Path]:
        """Every file the scene reads: its scene file, its table image, its mesh files and theirs (an OBJ's
        materials, a glTF's buffers; a run that reads the scene never writes over one of them)."""
        meshes = [self.resolve(piece.mesh) for piece in self.terrain if piece.mesh is not None]
        image = [self.resolve(self.table.image)] if self.table.image is not None else []
        files = [*image, *meshes, *(side for mesh in meshes for side in mesh_side_files(mesh))]
        return files if self._source is None else [self._source, *files]

    def trooper_index(self, trooper_id: str) -> int | None:
        return next((i for i, t in enumerate(self.troopers) if t.id == trooper_id), None)


def duplicate_ids(groups: dict[str, tuple]) -> list[Problem]:
    """An id used a second time, across the groups of items (name -> items with an `id`), at its place."""
    problems, seen = [], {}
    for group, items in groups.items():
        for i, item in enumerate(items):
            where = f"{group}[{i}].id"
            if item.id in seen:
                problems.append(Problem(where, f"duplicate id '{item.id}' (first used at {seen[item.id]})"))
            seen.setdefault(item.id, where)
    return problems


def scene_problems(scene: Scene) -> list[Problem]:
    """Errors that span several fields (README "Scene files" (errors))."""
    problems = duplicate_ids({"terrain": scene.terrain, "troopers": scene.troopers})
    if scene.table.image is not None:
        problems.extend(_table_image_problems(scene))
    trooper_ids = {t.id for t in scene.troopers}
    width, depth = scene.table.width, scene.table.depth
    table = shapely.box(0, 0, width, depth)
    for k, zone in enumerate(scene.deployment_zones):
        if shapely.Polygon(zone.polygon).intersection(table).area <= EPS:
            problems.append(Problem(f"deployment_zones[{k}].polygon", f"{zone.side}'s zone lies wholly off the table "
                                    f"(table is {width:g} x {depth:g} mm); give corners on the table"))
    radii = [t.size[0] / 2 for t in scene.troopers]
    overhangs = base_overhang([t.position for t in scene.troopers], radii, width, depth)
    for i, (trooper, radius, overhang) in enumerate(zip(scene.troopers, radii, overhangs.tolist())):
        target = trooper.facing_towards
        if isinstance(target, str) and (target not in trooper_ids or target == trooper.id):
            problems.append(Problem(f"troopers[{i}].facing_towards", f"'{target}' is not another trooper's id"))
        if overhang > ON_TABLE_TOLERANCE:
            problems.append(
                Problem(
                    f"troopers[{i}].position",
                    f"the base reaches {overhang:.2f} mm past the table edge (table is {width:g} x {depth:g} mm, "
                    f"base diameter {2 * radius:g} mm); move it onto the table",
                )
            )
    return problems


IMAGE_SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")
"""The first bytes of a PNG and of a JPEG file."""
PNG_END = b"IEND"
"""The last chunk of a PNG file, which a file cut short lacks (JPEGs are not checked: phones append whole videos
after a JPEG's end marker)."""
IMAGE_TAIL = 4096
"""Bytes at a PNG's end searched for its end chunk."""


def _table_image_problems(scene: Scene) -> list[Problem]:
    """`table.image` must name a PNG or JPEG file (relative to the scene file's folder)."""
    path = scene.resolve(scene.table.image)
    if not path.is_file():
        return [Problem("table.image",
                        f"image file '{path}' not found (paths are relative to the scene file's folder)")]
    try:
        with path.open("rb") as file:
            head = file.read(8)
            file.seek(max(0, path.stat().st_size - IMAGE_TAIL))
            tail = file.read()
    except OSError as exc:
        return [Problem("table.image", f"cannot read '{path}': {exc.strerror}")]
    if not head.startswith(IMAGE_SIGNATURES):
        return [Problem("table.image", f"'{path}' is not a PNG or JPEG image")]
    if head.startswith(IMAGE_SIGNATURES[0]) and PNG_END not in tail:
        return [Problem("table.image", f"'{path}' is cut short (it lacks the image's end marker); copy or save it "
                                       "again")]
    return []
