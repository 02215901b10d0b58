"""docs/rules.md (Deployment): "The whole base must fit: it rests flat on a supporting surface at least as large as the
base, and the volume intersects no scenery". One test, `geometry.support.base_fit`, used by deployment, dispersion
and the analyses' `place`."""

from __future__ import annotations

import numpy as np

from lofkit import World, scene_from_data
from lofkit.geometry.support import base_fit
from lofkit.rules.deployment import deploy_check
from tests.helpers import scene_data, trooper

CRATE = {"id": "crate", "box": {"size": [100, 100, 30]}, "position": [150, 150, 0]}  # x, y in [100, 200], 30 tall
R, H = 12.5, 40.0  # an S2


def _world(troopers=()) -> World:
    return World.from_scene(scene_from_data(scene_data(list(troopers), [CRATE], table={"width": 300, "depth": 300})))


SPOTS = np.array([[150, 150], [112.5, 150], [100, 150], [90, 150], [87.5, 150], [12.4, 50]])
Z = np.array([30, 30, 30, 0, 0, 0])


def test_rule_by_rule():
    fit = base_fit(_world(), SPOTS, Z, R, H)
    # on the roof; flush inside its edge; centre on its edge (hangs over); cutting 2.5 mm into its side; touching
    # it from outside; 0.1 mm past the table's left edge
    assert fit.supported.tolist() == [True, True, False, True, True, True]
    assert fit.scenery == ((), (), (), ("crate",), (), ())
    assert fit.on_table.tolist() == [True, True, True, True, True, False]
    assert fit.fits.tolist() == [True, True, False, False, True, False]
    assert np.allclose(fit.drop[[0, 2]], [0, 30], atol=1e-3)


def test_deployment_reports_what_base_fit_finds():
    troopers = [trooper("roof", 150, 150, z=30), trooper("edge", 100, 150, z=30), trooper("inside", 90, 150)]
    problems = {(p.trooper, p.rule) for p in deploy_check(_world(troopers)).problems}
    assert {("edge", "supported"), ("inside", "scenery")} <= problems
    assert not {rule for who, rule in problems if who == "roof"} & {"supported", "scenery"}
