"""Is a vectorized ``sample(data, size, rng)`` distributed as ``mechanism(data, rng)``?

An audit draws its samples through ``sample`` when the mechanism has one
(:class:`dpverify.protocols.VectorizedSampler`); a ``sample`` that disagrees
with the mechanism's own call (one that ignores its input, say) would be
audited in place of the mechanism, and pass in silence. Before any audit
uses it, :func:`check_sampler_agreement` compares the two on each input with
a two-sample test whose false-alarm rate holds for every output distribution:

For each input and each scalar feature of the outputs (the value of a real
output, the first :data:`MAX_COORDINATES` coordinates and the sum of a real
vector, the value of a discrete number, or the rank of a discrete output in
an order fixed by the values alone) it computes the
Kolmogorov distance ``D`` between the empirical distribution functions of
``n`` calls and ``n`` vectorized samples, and rejects when ``D > 2 eps_n``,
``eps_n = sqrt(ln(2/a) / (2 n))``. By the Dvoretzky-Kiefer-Wolfowitz
inequality with Massart's constant, each empirical distribution function is
within ``eps_n`` of its true one except with probability ``2 exp(-2 n
eps_n^2) = a``, for any distribution (ties and atoms included). With ``a =
ALPHA / (2 * inputs * features)`` the chance of refusing a sampler that
agrees is at most :data:`ALPHA` (1e-8: every audit runs the check, so a test
suite of hundreds of audits still refuses a correct sampler with probability
below 1e-5). The same inequality gives the power: a feature whose true
distribution functions differ by at least ``4 eps_n`` is refused with
probability at least ``1 - ALPHA`` (with ``n = 1000`` and two inputs,
``4 eps_n`` is 0.41 to 0.43 for one to nine features; a sampler that ignores
its input on Laplace noise of scale ``b`` with inputs one apart differs by
``1 - exp(-1/(2b))``, 0.39 at ``b = 1``, and is refused in practice far below
that guarantee, as the empirical distance concentrates much faster than the
worst case). The check costs ``n`` calls and one ``sample`` of
``n`` per input: 2 to 45 ms on the zoo's mechanisms.

The check draws from a stream of its own (:func:`dpverify.protocols.contract_seed`),
so the audit's samples, and so its results, are those it gave before.

References
----------
P. Massart, "The tight constant in the Dvoretzky-Kiefer-Wolfowitz inequality",
Annals of Probability 18(3), 1990 (Theorem 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import OutputTypeError, SamplerContractError
from ..protocols import contract_seed, draw_outputs, is_vectorized
from ..support import arrays
from .outputs import apply_output_key, fit_codec
from .sampling import CHECKS, children, record_draws

__all__ = ["ALPHA", "CHECK_SIZE", "MAX_COORDINATES", "SamplerAgreement", "check_sampler_agreement"]

#: False-alarm rate of the whole check (all inputs and features together).
ALPHA = 1e-8
#: Outputs drawn per input from each of ``__call__`` and ``sample``.
CHECK_SIZE = 1_000
#: Largest batch the check holds, in bytes (wider outputs are checked on fewer samples).
CHECK_BYTES = 1 << 26
#: Real vectors: coordinates compared one by one (the sum of all is compared too).
MAX_COORDINATES = 8
#: Which contract stream of the audit's seed the check draws from (the replay check uses 0).
AGREEMENT_STREAM = 1


@dataclass(frozen=True)
class SamplerAgreement:
    """What the check saw: the largest Kolmogorov distance and the threshold it stayed under."""

    largest_distance: float
    threshold: float
    n_features: int


def kolmogorov_distance(a: np.ndarray, b: np.ndarray) -> float:
    """``sup_t |F_a(t) - F_b(t)|`` of two samples' empirical distribution functions (ties and inf allowed)."""
    a, b = np.sort(a), np.sort(b)
    grid = np.concatenate([a, b])
    f_a = np.searchsorted(a, grid, side="right") / len(a)
    f_b = np.searchsorted(b, grid, side="right") / len(b)
    return float(np.max(np.abs(f_a - f_b)))


def dkw_radius(n: int, level: float) -> float:
    """``eps`` with ``P[sup |F_n - F| > eps] <= level`` for any F (Massart 1990): ``sqrt(ln(2/level)/(2n))``."""
    return math.sqrt(math.log(2.0 / level) / (2.0 * n))


def _canonical(value):
    """A sort key that is a function of the value alone (not of where it was first seen)."""
    if isinstance(value, (frozenset, set)):
        inner = tuple(sorted(_canonical(v) for v in value))
    elif isinstance(value, tuple):
        inner = tuple(_canonical(v) for v in value)
    else:
        inner = repr(value)
    return (type(value).__qualname__, inner)


def _value_ranks(codec) -> np.ndarray:
    """Rank of each code in an order fixed by the values alone.

    Hashable codes are numbered in order of first appearance, which depends on
    which sample saw a value first: a Kolmogorov distance on them would not be
    distribution-free. Integer values and rows are coded in value order already.
    """
    if codec.numeric is not None:
        return codec.numeric
    if codec.storage != "hashable":
        return np.arange(codec.n_codes, dtype=np.float64)
    order = sorted(range(codec.n_codes), key=lambda i: _canonical(codec.labels[i]))
    ranks = np.empty(codec.n_codes, dtype=np.float64)
    ranks[order] = np.arange(codec.n_codes)
    return ranks


def _features(codec, encoded: np.ndarray) -> list[np.ndarray]:
    """Scalar features of encoded outputs (see the module docstring)."""
    if codec.kind == "discrete":
        return [_value_ranks(codec)[encoded]]
    columns = [encoded[:, j] for j in range(min(encoded.shape[1], MAX_COORDINATES))]
    if encoded.shape[1] > 1:
        with np.errstate(invalid="ignore", over="ignore"):
            total = encoded.sum(axis=1)
        columns.append(np.where(np.isnan(total), np.inf, total))  # inf - inf: one atom of its own
    return columns


def _host(raw):
    return arrays.to_numpy(raw) if arrays.namespace(raw) is not None else raw


def check_size(output_bytes: int | None) -> int:
    """Outputs per input the check draws from each side: :data:`CHECK_SIZE`, fewer for outputs
    over ``CHECK_BYTES / CHECK_SIZE`` bytes (its memory stays within :data:`CHECK_BYTES` per batch)."""
    if not output_bytes:
        return CHECK_SIZE
    return int(max(2, min(CHECK_SIZE, CHECK_BYTES // output_bytes)))


def _draw_features(mechanism, label, data, rngs, n, output_key):
    """The scalar features of ``n`` calls and of ``sample(data, n)`` on one input (the outputs are dropped)."""
    call_rng, sample_rng = rngs
    try:
        called = [mechanism(data, call_rng) for _ in range(n)]
        sampled = draw_outputs(mechanism, data, n, sample_rng)
        record_draws(label, 2 * n, CHECKS)
    except SamplerContractError as exc:
        raise SamplerContractError(f"on input {label}: {exc}") from exc
    except Exception:
        return None  # the audit's own draws name the mechanism's error and the input
    called, sampled = _host(apply_output_key(called, output_key)), _host(apply_output_key(sampled, output_key))
    try:
        fit_codec(called)
        fit_codec(sampled)
    except (OutputTypeError, TypeError, ValueError):
        return None  # unusable outputs: the audit refuses them by name
    try:
        codec, (enc_called, enc_sampled) = fit_codec(called, sampled)
    except OutputTypeError as exc:
        raise SamplerContractError(
            f"on input {label}, sample(data, size, rng) returns outputs of another kind than "
            f"mechanism(data, rng): {exc}"
        ) from exc
    copies = [[np.array(f) for f in _features(codec, enc)] for enc in (enc_called, enc_sampled)]
    return label, copies[0], copies[1]


def check_sampler_agreement(
    mechanism, inputs, audit_seed: np.random.SeedSequence, *, output_key=None, output_bytes=None
):
    """Refuse a vectorized ``sample`` whose outputs are not distributed as the mechanism's calls.

    Parameters
    ----------
    mechanism : callable
        The audited mechanism; nothing is checked unless it has a vectorized ``sample``.
    inputs : sequence of (label, data)
        The inputs the audit will use (``("x", x), ("x_prime", x_prime)``).
    audit_seed : numpy.random.SeedSequence
        The audit's root sequence; the check draws from a stream of its own
        (:func:`dpverify.protocols.contract_seed`), so the audit's samples do not change.
    output_key : callable, optional
        Applied to every output first, as in the audit.
    output_bytes : int, optional
        Bytes of one output (:func:`dpverify.pipeline.memory.output_bytes`): wide outputs are checked on
        fewer samples (:func:`check_size`), with the threshold of that size, so the check keeps its
        false-alarm rate and loses power rather than memory.

    Returns
    -------
    SamplerAgreement or None
        None when the mechanism has no ``sample``, or when its outputs cannot be
        compared here (the audit then reports the outputs' problem by name).

    Raises
    ------
    SamplerContractError
        The two differ on an input (false-alarm rate :data:`ALPHA`), return
        outputs of different kinds, or ``sample`` returns the wrong number.
    """
    if not is_vectorized(mechanism):
        return None
    n = check_size(output_bytes)
    streams = iter(children(contract_seed(audit_seed, AGREEMENT_STREAM), 2 * len(inputs)))
    features = []
    for label, data in inputs:
        rngs = (np.random.default_rng(next(streams)), np.random.default_rng(next(streams)))
        drawn = _draw_features(mechanism, label, data, rngs, n, output_key)
        if drawn is None:
            return None
        features.append(drawn)
    n_tests = sum(len(f) for _, f, _ in features)
    threshold = 2 * dkw_radius(n, ALPHA / (2 * n_tests))
    largest = 0.0
    for label, called_features, sampled_features in features:
        for j, (a, b) in enumerate(zip(called_features, sampled_features)):
            distance = kolmogorov_distance(a, b)
            largest = max(largest, distance)
            if distance > threshold:
                raise SamplerContractError(
                    f"the mechanism's vectorized sample(data, size, rng) is not distributed as "
                    f"mechanism(data, rng) on input {label}: on {n} outputs of each, feature {j} "
                    f"of the outputs differs by a Kolmogorov distance of {distance:.3g} > {threshold:.3g} "
                    f"(false-alarm rate {ALPHA:g}); a sample() that ignores its input, or draws another "
                    "distribution, would be audited in place of the mechanism"
                )
    return SamplerAgreement(largest, threshold, n_tests)
