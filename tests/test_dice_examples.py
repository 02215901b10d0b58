"""The rulebooks' worked dice examples D1-D17, each checked against `lofkit.dice` (docs/rules.md "Rolls").

Example D18 (the loser of a face-to-face roll who fired a limited-use weapon still counts that use) is left out:
lofkit models no weapons' uses or consumables, so there is nothing of it to check; its dice are any lost roll.
"""

from __future__ import annotations

import itertools

import pytest

from lofkit.dice.rolls import DIE_FACES, halve, resolve_f2f, resolve_roll, roll_odds, success_value

ANGUS_BS, ORTEGA_BS, DIAZ_BS, AKAL_BS, MORAT_BS, FUSILIER_BS, ZANSHI_BS = 12, 11, 11, 13, 11, 12, 11
FUSILIER_SV, ZANSHI_SV = 12, 11
"""The success values of the N4 examples D16 and D17 (D15 derives them)."""


def kept(result) -> tuple[tuple[int, int], tuple[int, int]]:
    """((hits, crits) of side 1, (hits, crits) of side 2) after a face-to-face roll."""
    return (result.hits1, result.crits1), (result.hits2, result.crits2)


NOBODY, ONE_HIT, ONE_CRIT = (0, 0), (1, 0), (0, 1)


# --- normal rolls -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("attribute", "mods", "die", "success"), [
    pytest.param(12, [], 8, True, id="D1-BS12-rolls-8-succeeds"),
    pytest.param(12, [], 15, False, id="D2-BS12-rolls-15-fails"),
    pytest.param(12, [-3], 8, True, id="D3-BS12-MOD-3-is-SV9-rolls-8-succeeds"),
    pytest.param(12, [-3], 12, False, id="D3-BS12-MOD-3-is-SV9-rolls-12-fails"),
])
def test_normal_roll_examples(attribute, mods, die, success):
    assert resolve_roll(success_value(attribute, mods), die).success is success


def test_d2_bs12_fails_on_every_die_of_13_or_more():
    assert [die for die in DIE_FACES if not resolve_roll(12, die).success] == list(range(13, 21))


def test_d3_bs12_with_mod_minus3_has_sv9():
    assert success_value(12, [-3]) == 9


# --- MODs: their sum is clamped, after netting ------------------------------------------------------------------


@pytest.mark.parametrize(("mods", "applied"), [
    pytest.param([-6, -6, -3], -12, id="D4-Akal-range-TO-camo-partial-cover-minus15-applies-minus12"),
    pytest.param([-6, -6, -3, -6, +3], -12, id="D5-Akal-plus-poor-visibility-targeted-nets-minus18-applies-minus12"),
])
def test_mod_sum_clamp_examples(mods, applied):
    """D5 nets before clamping: -21 + 3 = -18 gives -12, not -12 + 3 = -9."""
    assert success_value(AKAL_BS, mods) - AKAL_BS == applied


def test_d6_akal_bs13_mimetism_cover_range_has_sv1_and_still_rolls():
    sv = success_value(AKAL_BS, [-6, -3, -6])
    assert sv == 1
    assert (resolve_roll(sv, 1).success, resolve_roll(sv, 1).critical) == (True, True)
    assert resolve_roll(sv, 2).success is False


def test_d7_morat_bs11_in_cover_has_sv8_and_crits_only_on_8():
    sv = success_value(MORAT_BS, [-3])
    assert sv == 8
    assert [die for die in DIE_FACES if resolve_roll(sv, die).critical] == [8]


# --- SV above 20 ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("attribute", "first_crit"), [
    pytest.param(25, 15, id="D8-Musashi-CC25-adds-5-crits-from-15"),
    pytest.param(23, 17, id="D9-Knight-of-Justice-CC23-adds-3-crits-from-17"),
])
def test_sv_above_20_examples(attribute, first_crit):
    excess = attribute - 20
    for die in DIE_FACES:
        result = resolve_roll(success_value(attribute), die)
        assert (result.value, result.success, result.critical) == (die + excess, True, die >= first_crit)
    assert (roll_odds(attribute).successes, roll_odds(attribute).criticals) == (20, 21 - first_crit)


# --- rounding and failure category ------------------------------------------------------------------------------


def test_d10_half_of_5_rounds_up_to_3():
    assert halve(5) == 3


@pytest.mark.parametrize(("mods", "category"), [
    pytest.param([], 6, id="D11-BS12-rolls-18-failure-category-6"),
    pytest.param([+3], 3, id="D11-BS12-plus3-is-SV15-rolls-18-failure-category-3"),
])
def test_failure_category_examples(mods, category):
    assert resolve_roll(success_value(12, mods), 18).failure_category == category


# --- face to face -----------------------------------------------------------------------------------------------


def test_d12_angus_rolls_4_ortega_rolls_7_ortega_wins_and_cancels_angus():
    result = resolve_f2f(ANGUS_BS, [4], ORTEGA_BS, [7])
    assert kept(result) == (NOBODY, ONE_HIT)
    assert result.survived1 == (False,)


def test_d13_angus_9_and_4_vs_ortega_5_the_9_survives_and_hits_ortega_once():
    result = resolve_f2f(ANGUS_BS, [9, 4], ORTEGA_BS, [5])
    assert result.survived1 == (True, False) and result.survived2 == (False,)
    assert kept(result) == (ONE_HIT, NOBODY)


def test_d14_angus_11_vs_diaz_11_diaz_critical_wins():
    result = resolve_f2f(ANGUS_BS, [11], DIAZ_BS, [11])
    assert (result.rolls1[0].critical, result.rolls2[0].critical) == (False, True)
    assert kept(result) == (NOBODY, ONE_CRIT)


def test_d15_fusilier_sv12_after_range_and_cover_zanshi_rolls_7_above_every_fusilier_success_and_wins():
    """The Fusilier's dice are not given: [3, 5, 6] is one roll below 7, and every such roll ends the same."""
    assert (success_value(FUSILIER_BS, [+3, -3]), success_value(ZANSHI_BS)) == (FUSILIER_SV, ZANSHI_SV)
    assert kept(resolve_f2f(FUSILIER_SV, [3, 5, 6], ZANSHI_SV, [7])) == (NOBODY, ONE_HIT)
    for dice in itertools.product(range(1, 7), repeat=3):
        assert kept(resolve_f2f(FUSILIER_SV, list(dice), ZANSHI_SV, [7])) == (NOBODY, ONE_HIT), dice


def test_d16_fusilier_and_zanshi_a_both_crit_so_nobody_hits_and_untargeted_zanshi_b_misses_with_14():
    """A's critical cancels the Fusilier's critical and beats its other two dice, whatever they show; B is not
    targeted, so its 14 is a normal roll against SV 11."""
    for others in itertools.product(DIE_FACES, repeat=2):
        assert kept(resolve_f2f(FUSILIER_SV, [12, *others], ZANSHI_SV, [11])) == (NOBODY, NOBODY), others
    assert resolve_roll(ZANSHI_SV, 14).success is False


def test_d17_fusilier_splits_9_4_at_zanshi_a_and_11_at_zanshi_b_a_is_hit_once_b_crits_the_fusilier():
    """At A: the 9 beats A's 5, which cancels the 4. At B: B's 11 is a critical (SV 11), the Fusilier's is not."""
    at_a = resolve_f2f(FUSILIER_SV, [9, 4], ZANSHI_SV, [5])
    assert at_a.survived1 == (True, False) and at_a.survived2 == (False,)
    assert kept(at_a) == (ONE_HIT, NOBODY)
    assert kept(resolve_f2f(FUSILIER_SV, [11], ZANSHI_SV, [11])) == (NOBODY, ONE_CRIT)
