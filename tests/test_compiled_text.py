"""The compiled float formatter (scenario/compiled_text.py) against Python's ``repr(float)``.

The oracle is CPython's repr (David Gay's shortest round-trip digits): each
finite double must come out as exactly repr's text, less the ``.0`` of an
integral value (the file format writes ``3``, not ``3.0``; ``-0.0`` keeps
it), and read back (by ``float`` and by ``json.loads``) as the same bits.
"""

from __future__ import annotations

import json
import math
import re
import struct

import numba
import numpy as np

from collideworld.scenario.compiled_text import MAX_DOUBLE_TEXT, SLACK, write_doubles

JSON_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?\Z")


def expected_text(x: float) -> str:
    text = repr(x)
    return text[:-2] if text.endswith(".0") and text != "-0.0" else text


def formatted(values: np.ndarray) -> list[str]:
    values = np.ascontiguousarray(values, dtype=np.float64)
    out = np.zeros(len(values) * (MAX_DOUBLE_TEXT + 1) + SLACK, dtype=np.uint8)
    used = write_doubles(values.view(np.uint64), out)
    return out[:used].tobytes().decode("ascii").split(",") if len(values) else []


def check(values: np.ndarray) -> None:
    values = np.asarray(values, dtype=np.float64)
    texts = formatted(values)
    assert len(texts) == len(values)
    wrong = [(repr(x), t) for x, t in zip(values.tolist(), texts, strict=True) if t != expected_text(x)]
    assert not wrong, f"{len(wrong)} differ from repr, e.g. {wrong[:5]}"
    back = np.array([float(t) for t in texts], dtype=np.float64)
    assert np.array_equal(back.view(np.uint64), values.view(np.uint64))  # bits: -0.0 too


def from_bits(bits) -> np.ndarray:
    return np.asarray(bits, dtype=np.uint64).view(np.float64)


def test_random_bit_patterns_match_repr():
    # every exponent and sign, about 1.5 million finite doubles
    rng = np.random.default_rng(2026)
    values = from_bits(rng.integers(0, 2**64, size=1_500_000, dtype=np.uint64))
    check(values[np.isfinite(values)])


def test_game_like_values_match_repr():
    # what a recorder writes most: positions and angles of ordinary size
    rng = np.random.default_rng(7)
    check(np.concatenate([rng.uniform(-1000, 1000, 300_000), rng.uniform(-np.pi, np.pi, 300_000),
                          rng.normal(0, 1e-3, 100_000), np.round(rng.uniform(-1e4, 1e4, 100_000), 3)]))


def test_subnormals_match_repr():
    small = np.arange(1, 200_001, dtype=np.uint64)  # the 200,000 smallest, one digit to many
    top = np.uint64(2**52) - np.arange(1, 100_001, dtype=np.uint64)  # the largest, next to the normals
    rng = np.random.default_rng(1)
    some = rng.integers(1, 2**52, size=200_000, dtype=np.uint64)
    check(from_bits(np.concatenate([small, top, some])))


def test_powers_of_two_and_their_neighbours_match_repr():
    # a power of two's lower neighbour is half as far: the asymmetric interval
    powers = np.array([math.ldexp(1.0, e) for e in range(-1074, 1024)])
    bits = powers.view(np.uint64)
    neighbours = np.concatenate([bits, bits + np.uint64(1), bits[1:] - np.uint64(1)])
    values = from_bits(neighbours)
    check(np.concatenate([values, -values]))


def test_integers_and_powers_of_ten_match_repr():
    ints = np.concatenate([np.arange(0, 100_001), 2.0**53 - np.arange(0, 1000), 2.0**53 + 2 * np.arange(0, 1000),
                           [1e15, 1e16, 1e17, 1e22, 1e23, 2.0**63, 2.0**64, 123456789012345680.0]])
    tens = np.array([float(f"1e{e}") for e in range(-323, 309)])
    tens_bits = tens.view(np.uint64)
    around = from_bits(np.concatenate([tens_bits - np.uint64(1), tens_bits + np.uint64(1)]))
    check(np.concatenate([ints, -ints, tens, around, -tens]))


def test_edge_cases_match_repr():
    check(np.array([0.0, -0.0, 0.1, 0.2, 0.3, 1 / 3, 2 / 3, 5e-324, -5e-324, 1e-323, 2.2250738585072014e-308,
                    2.225073858507201e-308, 1.7976931348623157e308, -1.7976931348623157e308, 1e-5, 1e-4, 9.999e-5,
                    0.0001, 1e-7, 1.5, 100.0, 1e16 - 2, 9999999999999998.0, 1e300 * 1.1, 4.35, 0.3e-10,
                    123.456, 5e-310, 1.2345678901234567e-300, 9007199254740993.0]))


def test_text_is_a_json_number_that_reads_back():
    rng = np.random.default_rng(11)
    values = from_bits(rng.integers(0, 2**64, size=50_000, dtype=np.uint64))
    values = np.concatenate([values[np.isfinite(values)], [0.0, -0.0, 5e-324, 3.0, 1e16]])
    texts = formatted(values)
    assert all(JSON_NUMBER.match(t) for t in texts), [t for t in texts if not JSON_NUMBER.match(t)][:5]
    back = np.array(json.loads("[" + ",".join(texts) + "]"), dtype=np.float64)
    assert np.array_equal(back.view(np.uint64), values.view(np.uint64))


def test_no_text_is_longer_than_the_bound():
    rng = np.random.default_rng(3)
    values = from_bits(rng.integers(0, 2**64, size=200_000, dtype=np.uint64))
    values = np.concatenate([values[np.isfinite(values)], [-2.2250738585072014e-308, -1.2345678901234567e-300]])
    assert max(map(len, formatted(values))) == MAX_DOUBLE_TEXT


def test_eight_digit_packing_is_exact_for_every_value_below_10_to_8():
    """The SIMD-within-a-register split into 8 ASCII digits, against a plain digit loop, for all
    10**8 inputs (the lane arithmetic's exactness is a claim about every value, so every value)."""
    from collideworld.scenario.compiled_text import _eight_digits

    @numba.njit
    def first_wrong(limit):  # pragma: no cover - compiled
        for x in range(limit):
            want = np.uint64(0)
            rest = x
            for place in range(8):  # the last digit goes in the highest byte
                want |= np.uint64(48 + rest % 10) << np.uint64(8 * (7 - place))
                rest //= 10
            if _eight_digits(np.uint64(x)) != want:
                return x
        return -1

    assert first_wrong(10**8) == -1
    assert struct.pack("<Q", int(_eight_digits(np.uint64(12345678)))) == b"12345678"
