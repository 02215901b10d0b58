"""docs/rules.md "Rolls": success values, normal rolls, face-to-face rolls and their exact distributions."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lofkit.dice.distribution import CRIT_RANK, f2f_distribution, rank_counts
from lofkit.dice.parsing import RollSpec, parse_mods, parse_roll_spec
from lofkit.dice.rolls import RollError, halve, resolve_f2f, resolve_roll, roll_odds, success_value
from lofkit.errors import LofkitError
from lofkit.testing import f2f_counts_by_resolving as brute_force_with_resolve_f2f
from lofkit.testing import f2f_distribution_enumerated

MANY_EXAMPLES = settings(deadline=None, max_examples=150)  # derandomized or not as the profile says


def kept(result, side):
    return (result.hits1, result.crits1) if side == 1 else (result.hits2, result.crits2)


def as_counts(dist):
    """{('p1'|'p2', hits, crits): count} plus ('none',): count."""
    out = {("p1", o.hits, o.crits): o.count for o in dist.p1}
    out.update({("p2", o.hits, o.crits): o.count for o in dist.p2})
    out[("none",)] = dist.none
    return out


# --- "SV = attribute + sum of MODs, with the sum of MODs clamped to [-12, +12]" -------------------------------


def test_sv_is_attribute_plus_mods_bs12_minus3_is_9():
    assert success_value(12, [-3]) == 9


def test_sv_without_mods_is_the_attribute():
    assert success_value(13) == 13


def test_sv_mod_sum_minus15_clamps_to_minus12():
    assert success_value(13, [-15]) == 1
    assert success_value(13, [-6, -6, -3]) == 1  # the sum is clamped, not each MOD


def test_sv_mod_sum_plus15_clamps_to_plus12():
    assert success_value(11, [+6, +6, +3]) == 23


# --- "Normal roll: success if roll <= SV; critical if roll == SV" ---------------------------------------------


def test_normal_roll_below_sv_is_a_plain_success():
    r = resolve_roll(9, 8)
    assert (r.success, r.critical, r.value, r.failure_category) == (True, False, 8, None)


def test_normal_roll_equal_to_sv_is_a_critical():
    r = resolve_roll(9, 9)
    assert (r.success, r.critical) == (True, True)


def test_normal_roll_above_sv_fails():
    assert not resolve_roll(9, 10).success


def test_normal_roll_odds_sv12_succeeds_on_12_faces_and_crits_on_one():
    odds = roll_odds(12)
    assert (odds.successes, odds.criticals) == (12, 1)
    assert odds.to_dict() == {"sv": 12, "p_success": 0.6, "p_critical": 0.05, "successes": 12, "criticals": 1}


# --- "SV < 1: automatic failure, no roll" ---------------------------------------------------------------------


@pytest.mark.parametrize("sv", [0, -4])
def test_sv_below_1_fails_automatically_without_a_die(sv):
    r = resolve_roll(sv, None)
    assert (r.success, r.critical, r.die, r.failure_category) == (False, False, None, None)
    assert roll_odds(sv).successes == 0


def test_sv_below_1_fails_even_on_a_1():
    assert not resolve_roll(0, 1).success


def test_a_roll_against_sv_1_or_more_needs_a_die():
    with pytest.raises(RollError, match="needs a die"):
        resolve_roll(5, None)


@pytest.mark.parametrize("die", [0, 21, 2.5, True])
def test_a_d20_shows_1_to_20(die):
    with pytest.raises(RollError, match="1..20"):
        resolve_roll(12, die)


# --- "SV > 20: add SV - 20 to each die; a result of 20 or more is a critical (every roll succeeds)" -----------


def test_sv_above_20_cc23_crits_on_17_and_up():
    assert [d for d in range(1, 21) if resolve_roll(23, d).critical] == [17, 18, 19, 20]
    r = resolve_roll(23, 16)
    assert (r.value, r.success, r.critical) == (19, True, False)
    odds = roll_odds(23)
    assert (odds.p_success, odds.p_critical) == (1.0, 0.2)


@pytest.mark.parametrize("sv", range(21, 31))
def test_sv_above_20_every_roll_succeeds(sv):
    assert all(resolve_roll(sv, d).success for d in range(1, 21))
    assert roll_odds(sv).criticals == sv - 19


def test_sv_20_crits_only_on_a_20():
    assert [d for d in range(1, 21) if resolve_roll(20, d).critical] == [20]


# --- "Failure category FC = roll - SV on a failure. Halving always rounds up." --------------------------------


def test_failure_category_is_roll_minus_sv():
    assert resolve_roll(9, 13).failure_category == 4
    assert resolve_roll(9, 9).failure_category is None


@pytest.mark.parametrize(("x", "half"), [(0, 0), (1, 1), (4, 2), (7, 4), (13, 7)])
def test_halving_rounds_up(x, half):
    assert halve(x) == half


# --- "Face to face: each side's failures are discarded; each success cancels every opposing success with a
#      lower result (even if it is itself cancelled); a critical beats any non-critical success; critical vs
#      critical cancels; ties cancel. Dodge and Reset cancel only the attacks aimed at the trooper who made them."


def test_f2f_fusilier_9_and_4_vs_alguacil_5():
    """Fusilier BS 12 x2 rolls 9, 4; Alguacil BS 11 x1 rolls 5: the 5 cancels the 4, the 9 cancels the 5."""
    r = resolve_f2f(12, [9, 4], 11, [5])
    assert r.survived1 == (True, False) and r.survived2 == (False,)
    assert (kept(r, 1), kept(r, 2)) == ((1, 0), (0, 0))
    assert r.to_dict()["p1"] == {"hits": 1, "crits": 0}


def test_f2f_ortega_bs11_rolls_11_crit_beats_angus():
    """Ortega BS 11 vs Angus BS 11: Ortega's 11 is a critical and beats Angus's higher-looking 10 and 3."""
    r = resolve_f2f(11, [11], 11, [10, 3])
    assert (kept(r, 1), kept(r, 2)) == ((0, 1), (0, 0))


def test_f2f_ortega_vs_angus_both_crit_on_11_cancel():
    r = resolve_f2f(11, [11], 11, [11])
    assert (kept(r, 1), kept(r, 2)) == ((0, 0), (0, 0))


def test_f2f_failures_are_discarded():
    """Side 1's 15 against SV 12 fails: it cancels nothing, so side 2's 3 survives."""
    r = resolve_f2f(12, [15], 10, [3])
    assert (kept(r, 1), kept(r, 2)) == ((0, 0), (1, 0))


def test_f2f_a_cancelled_success_still_cancels_lower_ones():
    """Side 2's 12 cancels side 1's 10, and that cancelled 10 still cancels side 2's 8."""
    r = resolve_f2f(12, [10], 15, [8, 12])
    assert r.survived2 == (False, True)
    assert (kept(r, 1), kept(r, 2)) == ((0, 0), (1, 0))


def test_f2f_critical_beats_any_non_critical():
    r = resolve_f2f(9, [9], 19, [18, 17])
    assert (kept(r, 1), kept(r, 2)) == ((0, 1), (0, 0))


def test_f2f_critical_vs_critical_cancels_whatever_the_values():
    """SV 23's 18 is a 21, a critical; SV 12's 12 is a critical: they cancel, and side 1's 5 falls to the 12."""
    r = resolve_f2f(23, [18], 12, [12, 5])
    assert (kept(r, 1), kept(r, 2)) == ((0, 0), (0, 0))


def test_f2f_ties_cancel():
    r = resolve_f2f(12, [7], 10, [7])
    assert (kept(r, 1), kept(r, 2)) == ((0, 0), (0, 0))


def test_f2f_sv_above_20_compares_the_raised_result():
    """SV 23's 10 counts as 13 and beats SV 15's 12."""
    r = resolve_f2f(23, [10], 15, [12])
    assert (kept(r, 1), kept(r, 2)) == ((1, 0), (0, 0))


def test_f2f_dodge_cancels_only_attacks_aimed_at_the_dodger():
    """Three shots, two at the dodger; its dodge of 14 cancels the 9 and 12 aimed at it, not the 6 aimed elsewhere."""
    r = resolve_f2f(13, [9, 6, 12], 15, [14], aimed_at_2=[True, False, True])
    assert r.survived1 == (False, True, False)
    assert r.survived2 == (True,)


def test_f2f_dodge_is_not_cancelled_by_attacks_aimed_elsewhere():
    r = resolve_f2f(13, [13], 15, [14], aimed_at_2=[False])
    assert r.survived1 == (True,) and r.survived2 == (True,)


def test_f2f_aimed_at_2_needs_one_entry_per_die():
    with pytest.raises(RollError, match="one per die"):
        resolve_f2f(13, [9, 6], 15, [14], aimed_at_2=[True])


@MANY_EXAMPLES
@given(
    st.integers(0, 30),
    st.lists(st.integers(1, 20), max_size=6),
    st.integers(0, 30),
    st.lists(st.integers(1, 20), max_size=6),
)
def test_f2f_only_one_side_keeps_successes_and_swapping_sides_swaps_results(sv1, dice1, sv2, dice2):
    r = resolve_f2f(sv1, dice1, sv2, dice2)
    assert not (any(r.survived1) and any(r.survived2))
    s = resolve_f2f(sv2, dice2, sv1, dice1)
    assert (s.survived1, s.survived2) == (r.survived2, r.survived1)


# --- exact distributions --------------------------------------------------------------------------------------


SV_PAIRS = [(0, 0), (0, 12), (1, 20), (12, 11), (20, 21), (21, 25), (25, 25), (30, 1), (11, 23)]
SMALL_BURSTS = [(1, 1), (2, 1), (1, 2), (2, 2), (2, 0), (0, 2), (0, 0)]


@pytest.mark.parametrize(("sv1", "sv2"), [(12, 11), (0, 1), (20, 21), (25, 11)])
@pytest.mark.parametrize(("b1", "b2"), [(1, 1), (2, 1), (0, 1)])
def test_distribution_f2f_rule_brute_force_matches_count_for_count(sv1, b1, sv2, b2):
    expected = brute_force_with_resolve_f2f(sv1, b1, sv2, b2)
    expected.setdefault(("none",), 0)
    assert as_counts(f2f_distribution(sv1, b1, sv2, b2)) == expected


@pytest.mark.parametrize(("sv1", "sv2"), SV_PAIRS)
@pytest.mark.parametrize(("b1", "b2"), SMALL_BURSTS)
def test_distribution_f2f_rule_enumerated_matches_fast_method_up_to_2_vs_2(sv1, b1, sv2, b2):
    fast = f2f_distribution(sv1, b1, sv2, b2)
    assert fast == f2f_distribution_enumerated(sv1, b1, sv2, b2)


def test_distribution_ties_and_double_failures_12x1_vs_12x1():
    """8 x 8 double failures + 11 tied hits + 1 tied crit = 76 of 400 with no survivor; the rest split evenly."""
    d = f2f_distribution(12, 1, 12, 1)
    assert (d.total, d.none) == (400, 76)
    assert as_counts(d) == {
        ("p1", 0, 1): 19,  # side 1's crit against side 2's 8 failures and 11 hits
        ("p1", 1, 0): 143,  # sum over side 1's hit h = 1..11 of (8 failures + h - 1 lower hits)
        ("p2", 0, 1): 19,
        ("p2", 1, 0): 143,
        ("none",): 76,
    }


@pytest.mark.parametrize("sv", [0, 1, 9, 12, 20, 23, 30])
@pytest.mark.parametrize("burst", [1, 3, 6])
def test_distribution_normal_roll_b2_0_is_multinomial_of_one_die(sv, burst):
    """B2 = 0: a normal roll; each die independently a hit, a crit or a failure."""
    odds = roll_odds(sv)
    hit, crit = odds.successes - odds.criticals, odds.criticals
    fail = 20 - odds.successes
    expected = {}
    for h in range(burst + 1):
        for c in range(burst + 1 - h):
            n = math.comb(burst, h) * math.comb(burst - h, c) * hit**h * crit**c * fail ** (burst - h - c)
            if n and h + c:
                expected["p1", h, c] = n
    expected["none",] = fail**burst
    assert as_counts(f2f_distribution(sv, burst, 17, 0)) == expected


@MANY_EXAMPLES
@given(st.integers(0, 30), st.integers(0, 6), st.integers(0, 30), st.integers(0, 6))
def test_distribution_counts_sum_to_20_power_b1_plus_b2(sv1, b1, sv2, b2):
    d = f2f_distribution(sv1, b1, sv2, b2)
    assert d.total == 20 ** (b1 + b2)
    assert sum(o.count for o in d.p1) + sum(o.count for o in d.p2) + d.none == d.total
    assert all(type(o.count) is int and o.count > 0 for o in d.p1 + d.p2) and type(d.none) is int
    assert all(1 <= o.hits + o.crits <= b1 for o in d.p1) and all(1 <= o.hits + o.crits <= b2 for o in d.p2)


@MANY_EXAMPLES
@given(st.integers(0, 30), st.integers(0, 6), st.integers(0, 30), st.integers(0, 6))
def test_distribution_swapping_sides_swaps_p1_and_p2(sv1, b1, sv2, b2):
    d, e = f2f_distribution(sv1, b1, sv2, b2), f2f_distribution(sv2, b2, sv1, b1)
    assert (d.p1, d.p2, d.none) == (e.p2, e.p1, e.none)


def test_distribution_6_vs_6_is_exact_over_20_power_12():
    d = f2f_distribution(15, 6, 13, 6)
    assert d.total == 20**12 == 4_096_000_000_000_000
    assert sum(o.count for o in d.p1 + d.p2) + d.none == d.total


def test_distribution_to_dict_has_the_cli_keys():
    """README `f2f`: total, p1/p2 [{hits, crits, count, probability}], none {count, probability}."""
    out = f2f_distribution(12, 3, 11, 1).to_dict()
    assert out["total"] == 20**4
    for side in ("p1", "p2"):
        assert out[side] and all({"hits", "crits", "count", "probability"} <= set(o) for o in out[side])
    assert set(out["none"]) == {"count", "probability"}
    probabilities = [o["probability"] for o in out["p1"] + out["p2"]] + [out["none"]["probability"]]
    assert math.isclose(sum(probabilities), 1.0)
    assert out["p1"][0]["probability"] == out["p1"][0]["count"] / out["total"]


def test_rank_counts_cover_the_20_faces():
    assert rank_counts(12) == (8,) + (1,) * 11 + (0,) * 8 + (1,)
    assert rank_counts(0)[0] == 20 and rank_counts(30)[CRIT_RANK] == 11


def test_distribution_rejects_a_negative_burst():
    with pytest.raises(RollError, match="burst"):
        f2f_distribution(12, -1, 11, 1)


# --- parsing `SVxB` and MOD lists (README `f2f`, `roll`) ------------------------------------------------------


@pytest.mark.parametrize(("text", "spec"), [("12x3", (12, 3)), (" 23X1 ", (23, 1)), ("0x6", (0, 6)), ("30x0", (30, 0))])
def test_parse_sv_x_burst(text, spec):
    assert parse_roll_spec(text) == RollSpec(*spec)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("12x0x", "write SVxB"),
        ("12", "write SVxB"),
        ("x3", "write SVxB"),
        ("-1x2", "write SVxB"),
        ("12x2.5", "write SVxB"),
        ("", "write SVxB"),
        ("12x7", "burst 7 is above 6"),
        ("31x1", "success value 31 is above 30"),
    ],
)
def test_parse_sv_x_burst_rejects_bad_input_with_a_fix(text, message):
    with pytest.raises(RollError, match=message) as info:
        parse_roll_spec(text)
    assert isinstance(info.value, LofkitError)


def test_parse_mods():
    assert parse_mods("+3,-6") == (3, -6)
    assert parse_mods(" -3 ") == (-3,)
    assert parse_mods("") == ()
    assert success_value(12, parse_mods("+3,-6")) == 9


@pytest.mark.parametrize("text", ["+3,,-6", "3x", "+"])
def test_parse_mods_rejects_bad_input(text):
    with pytest.raises(RollError, match="signed whole numbers"):
        parse_mods(text)
