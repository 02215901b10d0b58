"""What one search of `lofkit generate` is asked (`Brief`): plain data every process of the search can receive.

`generate` makes it from the user's settings, `moves` reads it for each step and `tempering` sends it with each
chain; kept apart from both so that neither imports the other for it.
"""

from __future__ import annotations

from dataclasses import dataclass

from lofkit.design.exposure import SightOptions
from lofkit.design.placing import Kind, Rules, catalogue_kinds
from lofkit.design.targets import Target


@dataclass(frozen=True)
class Brief:
    """One search, as plain data every process can receive: the catalogue, the kinds in use (indices), the rules,
    the targets, the coarse grid, the final grid's viewer spacing (the lanes are counted on it) and the search's margin."""

    catalog: str
    usable: tuple[int, ...]
    rules: Rules
    targets: tuple[Target, ...]
    options: SightOptions
    final_spacing: float
    margin: float

    @property
    def kinds(self) -> tuple[Kind, ...]:
        return catalogue_kinds(self.catalog)
