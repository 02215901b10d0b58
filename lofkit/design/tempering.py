"""The search of `lofkit generate`: parallel tempering over layouts, chains spread over an executor.

K chains walk at temperatures spaced geometrically from `T_COLD` to `T_HOT` (the hot ones roam, the cold ones
settle), each with its own seeded generator (`SeedSequence(seed).spawn`). A step proposes one change to a chain's
layout (`moves.propose`: add, move, attach, shield, rotate, replace or remove a primary piece; with symmetry its
image follows), drops it at once if it breaks a placement rule, else evaluates it incrementally
(`incremental.Evaluator.update`) and takes it by the Metropolis rule at the chain's temperature. Every `ROUND_STEPS` steps the parent proposes swaps between
neighbouring temperatures (even pairs on even rounds, odd on odd ones), with the usual acceptance
min(1, exp((E_i - E_j)(1/T_i - 1/T_j))), drawn from its own generator.

A round runs each chain in a task (`run_chain`): the chain travels as plain data (layout, generator, sight
matrices), the task rebuilds nothing but what its process lacks (`context`, once per process), and its result
depends only on its input, so the layout found depends on the seed and the number of steps, never on the
executor or its scheduling.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field

import numpy as np

from lofkit.design.brief import Brief
from lofkit.design.incremental import Evaluator, Sight
from lofkit.design.moves import first_layout, propose, shield, walled_layout
from lofkit.design.placing import (
    Layout,
    Rules,
    allowed,
    changed_pieces,
    placed,
    zone_spots,
)
from lofkit.design.targets import met, search_energy

T_COLD, T_HOT = 0.002, 0.05
"""Temperatures of the coldest and hottest chains, in score units (a share of 0.01 short is 0.01)."""
ROUND_STEPS = 20
"""Steps each chain takes between two rounds of swaps."""
WALLED_STARTS = 4
"""Layouts of walls each chain tries for its first layout (how the rows come out varies a lot with the kinds)."""
ELITE = 8
"""Best distinct layouts a chain reports after each round."""
FOUND = 64
"""Best distinct layouts the search keeps of all those the chains report."""


_CONTEXTS: dict[Brief, tuple[Evaluator, list]] = {}


def context(brief: Brief) -> tuple[Evaluator, list]:
    """The brief's evaluator and zone spots in this process, built on first use."""
    if brief not in _CONTEXTS:
        _CONTEXTS.clear()
        evaluator = Evaluator.build(brief.rules, brief.kinds, brief.options, brief.final_spacing)
        _CONTEXTS[brief] = (evaluator, zone_spots(brief.rules))
    return _CONTEXTS[brief]


@dataclass
class Chain:
    """One chain's state (picklable): its temperature, generator, layout with its sight, card and energy, the step
    counts, and the best distinct layouts it met since it was last collected (`elite`)."""

    temperature: float
    rng: np.random.Generator
    layout: Layout = Layout(())
    sight: Sight | None = None
    card: dict = field(default_factory=dict)
    energy: float = math.inf
    proposed: int = 0
    evaluated: int = 0
    accepted: int = 0
    elite: list = field(default_factory=list)

    def remember(self, rules: Rules, kinds) -> None:
        key = canonical(self.layout, rules, kinds)
        if any(key == k for _, k, _, _ in self.elite):
            return
        self.elite.append((self.energy, key, self.layout, self.card))
        self.elite.sort(key=lambda e: (e[0], e[1]))
        del self.elite[ELITE:]


def canonical(layout: Layout, rules: Rules, kinds) -> tuple:
    """The table a layout stands for, whatever the order of its pieces."""
    return tuple(sorted(placed(layout, rules, kinds)))


def start_chain(task: tuple[Brief, Chain, tuple]) -> Chain:
    """A chain's first layout, fully evaluated (a task for the executor): the best by the search's energy of a
    scattered one (`moves.first_layout`) and `WALLED_STARTS` of walls (`moves.walled_layout`)."""
    brief, chain, margins = task
    evaluator, spots = context(brief)
    starts = [first_layout(brief, chain.rng, spots)] + [walled_layout(brief, chain.rng, spots)
                                                        for _ in range(WALLED_STARTS)]
    for layout in (s for s in starts if s is not None):
        sight = evaluator.full(layout)
        card = evaluator.card(layout, sight)
        energy = search_energy(brief.targets, card, margins)
        if energy < chain.energy:
            chain.layout, chain.sight, chain.card, chain.energy = layout, sight, card, energy
    chain.elite = []
    chain.remember(brief.rules, brief.kinds)
    return chain


def run_chain(task: tuple[Brief, Chain, int, tuple]) -> Chain:
    """`steps` steps of one chain (a task for the executor): propose, check the rules, evaluate incrementally,
    take or leave by the Metropolis rule (energies with the search's current `margins`)."""
    brief, chain, steps, margins = task
    evaluator, spots = context(brief)
    rules, kinds = brief.rules, brief.kinds
    chain.elite = []
    chain.remember(rules, kinds)
    for _ in range(steps):
        chain.proposed += 1
        after = propose(brief, chain.layout, chain.rng,
                        lambda pieces, i, rng: shield(brief, evaluator, chain.sight, chain.card, margins, pieces, i, rng))
        change = changed_pieces(chain.layout, after, rules, kinds)
        if not change or not allowed(after, rules, kinds, list(change.fresh), spots):
            continue
        chain.evaluated += 1
        sight = evaluator.update(chain.sight, after, change)
        card = evaluator.card(after, sight)
        energy = search_energy(brief.targets, card, margins)
        delta = energy - chain.energy
        if delta <= 0 or chain.rng.random() < math.exp(-delta / chain.temperature):
            chain.layout, chain.sight, chain.energy, chain.card = after, sight, energy, card
            chain.accepted += 1
            chain.remember(rules, kinds)
    return chain


Progress = Callable[[int, int, float, bool], None]
"""progress(steps done, steps in all, best score so far, whether it meets the targets with the margins)."""


def temperatures(count: int) -> list[float]:
    if count == 1:
        return [T_COLD]
    return [T_COLD * (T_HOT / T_COLD) ** (k / (count - 1)) for k in range(count)]


@dataclass
class Search:
    """A search in progress, or done (picklable but for nothing it needs): the chains, the parent's generator
    (swaps), the margins the targets are tightened by, the distinct layouts met so far (canonical key -> (layout,
    coarse card)), the steps taken (proposals), rounds, swaps, seconds, and why it last stopped: "steps" (all taken),
    "met" (the targets met with the margins), "time" or "interrupted"."""

    brief: Brief
    chains: list[Chain]
    parent: np.random.Generator
    margins: tuple[float, ...]
    found: dict = field(default_factory=dict)
    steps: int = 0
    rounds: int = 0
    swaps: int = 0
    seconds: float = 0.0
    stopped: str = ""

    @property
    def evaluated(self) -> int:
        return sum(c.evaluated for c in self.chains)

    @property
    def accepted(self) -> int:
        return sum(c.accepted for c in self.chains)

    def energy(self, card: dict) -> float:
        return search_energy(self.brief.targets, card, self.margins)

    def elite(self, keep: int) -> list[tuple[float, Layout, dict]]:
        """The best `keep` distinct layouts met so far: (energy with the current margins, layout, coarse card)."""
        ranked = sorted((self.energy(card), key, layout, card) for key, (layout, card) in self.found.items())
        return [(energy, layout, card) for energy, _, layout, card in ranked[:keep]]

    def best_met(self) -> bool:
        best = self.elite(1)
        return bool(best) and met(self.brief.targets, best[0][2], self.margins)

    def retarget(self, margins: tuple[float, ...]) -> None:
        """New margins: every chain's energy follows."""
        self.margins = tuple(margins)
        for chain in self.chains:
            chain.energy = self.energy(chain.card)

    def collect(self) -> None:
        """Take the chains' best layouts of the last round into `found`, keeping the best `FOUND` of all."""
        for chain in self.chains:
            for _, key, layout, card in chain.elite:
                self.found.setdefault(key, (layout, card))
            chain.elite = []
        if len(self.found) > FOUND:
            ranked = sorted((self.energy(card), key) for key, (_, card) in self.found.items())
            self.found = {key: self.found[key] for _, key in ranked[:FOUND]}


def begin(brief: Brief, seed: int, chains: int, executor: Executor | None = None) -> Search:
    """K chains at their temperatures, each with its generator from `SeedSequence(seed)` and its first layout (their
    time counts in the search's `seconds`)."""
    seeds = np.random.SeedSequence(seed).spawn(chains + 1)
    margins = (brief.margin,) * len(brief.targets)
    states = [Chain(t, np.random.default_rng(s)) for t, s in zip(temperatures(chains), seeds)]
    run = executor.map if executor is not None else map
    start = time.perf_counter()
    search = Search(brief, list(run(start_chain, [(brief, c, margins) for c in states])),
                    np.random.default_rng(seeds[-1]), margins)
    search.seconds = time.perf_counter() - start
    search.collect()
    return search


def advance(search: Search, steps: int, executor: Executor | None = None, progress: Progress | None = None,
            stop_when_met: bool = True, time_limit: float | None = None) -> Search:
    """Rounds of `ROUND_STEPS` steps a chain, then swaps, until `steps` steps in all (counting those taken before),
    or the best layout meets the targets with the margins (`stop_when_met`), or `time_limit` seconds in all (the
    result then depends on the machine's speed), or Ctrl-C, which keeps the best found."""
    run = executor.map if executor is not None else map
    start, chains = time.perf_counter() - search.seconds, len(search.chains)
    search.stopped = "steps"
    try:
        if progress:
            progress(search.steps, steps, search.elite(1)[0][0], search.best_met())
        while search.steps < steps:
            if stop_when_met and search.best_met():
                search.stopped = "met"
                break
            if time_limit is not None and time.perf_counter() - start > time_limit:
                search.stopped = "time"
                break
            left = steps - search.steps
            per = min(ROUND_STEPS, -(-left // chains))
            share = [max(0, min(per, left - k * per)) for k in range(chains)]
            tasks = [(search.brief, c, n, search.margins) for c, n in zip(search.chains, share)]
            search.chains = list(run(run_chain, tasks))
            search.steps += sum(share)
            search.collect()
            search.swaps += _swap(search.chains, search.rounds, search.parent)
            search.rounds += 1
            if progress:
                progress(search.steps, steps, search.elite(1)[0][0], search.best_met())
        else:
            if stop_when_met and search.best_met():
                search.stopped = "met"
    except KeyboardInterrupt:
        search.stopped = "interrupted"
    search.seconds = time.perf_counter() - start
    return search


def _swap(states: list[Chain], round_number: int, rng: np.random.Generator) -> int:
    """Swap proposals between neighbouring temperatures: the layouts trade chains, generators stay."""
    taken = 0
    for k in range(round_number % 2, len(states) - 1, 2):
        a, b = states[k], states[k + 1]
        exponent = (a.energy - b.energy) * (1 / a.temperature - 1 / b.temperature)
        if rng.random() < math.exp(min(0.0, exponent)):
            for name in ("layout", "sight", "card", "energy"):
                value = getattr(a, name)
                setattr(a, name, getattr(b, name))
                setattr(b, name, value)
            taken += 1
    return taken
