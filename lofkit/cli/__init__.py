"""The `lofkit` command: flags, messages and printing only; one module per topic, each listing its COMMANDS."""

from lofkit.cli.analysis import COMMANDS as _ANALYSIS
from lofkit.cli.army import COMMANDS as _ARMY
from lofkit.cli.dice import COMMANDS as _DICE
from lofkit.cli.generate import COMMANDS as _GENERATE
from lofkit.cli.group import cli, main
from lofkit.cli.imports import COMMANDS as _IMPORTS
from lofkit.cli.initiative import COMMANDS as _INITIATIVE
from lofkit.cli.lof import COMMANDS as _LOF
from lofkit.cli.measure import COMMANDS as _MEASURE
from lofkit.cli.orders import COMMANDS as _ORDERS
from lofkit.cli.photo import COMMANDS as _PHOTO
from lofkit.cli.pictures import COMMANDS as _PICTURES
from lofkit.cli.reactions import COMMANDS as _REACTIONS
from lofkit.cli.rules import COMMANDS as _RULES
from lofkit.cli.scene import COMMANDS as _SCENE
from lofkit.cli.serve import COMMANDS as _SERVE

for _command in (_SCENE + _MEASURE + _LOF + _DICE + _PICTURES + _RULES + _ANALYSIS + _PHOTO + _IMPORTS + _SERVE + _ARMY
                 + _INITIATIVE + _ORDERS + _REACTIONS + _GENERATE):
    cli.add_command(_command)
del _command

__all__ = ["cli", "main"]
