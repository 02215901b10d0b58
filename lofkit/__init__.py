"""lofkit: line-of-fire rulings for Infinity tabletop tables, in 3D.

>>> import lofkit
>>> world = lofkit.load("examples/rulebook_lof.yaml")
>>> lofkit.distance(world, "fusilier", "alguacil").to_dict()
{'a': 'fusilier', 'b': 'alguacil', 'distance_mm': 225.0, 'distance_in': 8.858268, 'range_band': '8-16in', 'base_contact': False}
>>> lofkit.check(world, "fusilier", "iguana").lof
True
"""

from lofkit.errors import LofkitError, Problem, SceneError, UnknownTrooperError
from lofkit.exchange.opening import load
from lofkit.geometry.volumes import Volumes
from lofkit.geometry.world import World
from lofkit.rules.aro import aro
from lofkit.rules.deployment import deploy_check
from lofkit.rules.dispersion import disperse, disperse_all
from lofkit.rules.lof import check, matrix, verdicts
from lofkit.rules.measure import base_contact, base_distance, in_arc, in_front_arc, in_zoc, range_band
from lofkit.rules.queries import distance, info, zoc
from lofkit.rules.results import DistanceResult, LofVerdict, MatrixResult, SceneInfo, Validation, ZocResult
from lofkit.rules.validation import validate_file
from lofkit.scene.loading import load_scene, scene_from_data
from lofkit.scene.model import Scene
from lofkit.scene.schema import scene_schema
from lofkit.units import INCH, parse_length

__all__ = [
    "INCH",
    "DistanceResult",
    "LofVerdict",
    "LofkitError",
    "MatrixResult",
    "Problem",
    "Scene",
    "SceneError",
    "SceneInfo",
    "UnknownTrooperError",
    "Validation",
    "Volumes",
    "World",
    "ZocResult",
    "aro",
    "base_contact",
    "base_distance",
    "check",
    "deploy_check",
    "disperse",
    "disperse_all",
    "distance",
    "in_arc",
    "in_front_arc",
    "in_zoc",
    "info",
    "load",
    "load_scene",
    "matrix",
    "parse_length",
    "range_band",
    "scene_from_data",
    "scene_schema",
    "validate_file",
    "verdicts",
    "zoc",
]
