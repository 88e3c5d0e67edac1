"""Validity where leaks show: every driver at the exact claim on a large output space, and certification on
fresh streams only.

The drivers' false-alarm tests elsewhere (``test_audit.py``, ``test_search.py``, ``test_sequential.py``)
use two-output randomized response or smooth real outputs, where reusing selection samples to certify
barely biases the estimate: a search that certified on its winner's screening samples, and a
sequential audit whose certification samples came from its selection seeds, both passed them. Here:

- **False alarms at the exact claim on a large output space.** k-ary randomized response over 10^4
  string labels at eps = 1 (Warner 1965; exact loss eps between inputs 0 and 1), where an event
  chosen on a few hundred labels seen a handful of times each is wildly over-estimated on the samples
  that chose it; and grid Laplace at eps = 1 on (0, 1) (Dwork and Roth 2014, Theorem 3.6; exact
  loss eps), a real output. Each driver (:func:`dpverify.audit`, :func:`dpverify.search_audit`,
  :func:`dpverify.sequential_audit`, :func:`dpverify.audit_samples`,
  :func:`dpverify.delta_lower_bound_curve`) runs ``N`` audits at alpha = 0.05 from spawned seeds; the
  count of violations must not exceed the ``1 - suite_alpha`` quantile of Bin(N, 0.05), so correct
  code fails each assertion with probability <= 1e-6 (10 assertions: <= 1e-5 for this file).
  Default: N = 15 on the k-ary case (limit 7) and N = 20 on the real one (limit 8); thorough: N = 200
  (limit 33).
- **Certification counts are a function of fresh streams only** (deterministic). A recording
  mechanism logs the seed stream (entropy and spawn key of the SeedSequence behind each generator)
  of every draw, and while the driver counts its frozen events (``dpverify.pipeline.sampling``'s
  chunk counter) it returns one sentinel label whatever the input. Then (i) certification draws
  exactly ``n_certification`` distinct outputs per input (a sequential audit redraws a batch from its
  stream to count a new event on it: the same sample), (ii) from streams that are neither equal to nor
  ancestors/descendants of any stream that fed selection or screening, and (iii) every certified
  event has equal counts under x and x' (the sentinel is the same for both: counts that differ come
  from samples other than the certification draws). For :func:`dpverify.audit_samples` the analogue:
  identical certification blocks for both inputs must give equal counts.

Bugs tried (each implemented in a scratch copy, never committed, and seen to fail the tests named):

(a) :func:`dpverify.search_audit` certifying on the winner's screening samples: the k-ary search
    false-alarm test (15 of 15 flagged; limit 7) and the structural search test (no certification
    draws; unequal counts).
(b) :func:`dpverify.sequential_audit` whose certification batches come from the selection seeds: the
    k-ary sequential false-alarm test (15 of 15 flagged) and the structural sequential test
    (certification streams equal to selection streams).
(c) the same reuse in :func:`dpverify.audit` (certification streams = selection streams) and in
    :func:`dpverify.delta_lower_bound_curve` (15 of 15 each, and their structural tests: shared
    streams), and :func:`dpverify.audit_samples` counting its events on all its samples, selection ones
    included (8 of 15, limit 7: the reused tenth dilutes the bias; its structural test fails outright).

On grid Laplace (a real output) the reuse bugs raise the false-alarm rate only modestly (bug (a): 1 to
3 of 10 at 2e4 to 1e5 samples), below what the default pooled count can see: the real-output tests
guard the drivers' level on real outputs, and the structural tests catch reuse for every output type.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest
from scipy import stats

import dpverify
from dpverify.mechanisms import GridLaplace
from dpverify.mechanisms.output_types import KaryResponse
from dpverify.pipeline import sampling

pytestmark = pytest.mark.privacy_audit

ALPHA = 0.05
EPS = 1.0
N_SAMPLES = 20_000
LABELS = 10_000

#: name -> (mechanism, x, x_prime, audits in the default profile); thorough: 200 each.
CASES = {
    "k-ary-1e4": (KaryResponse(EPS, LABELS), 0, 1, 15),
    "grid-laplace": (GridLaplace(EPS), 0.0, 1.0, 20),
}


@contextlib.contextmanager
def _quiet():
    """Silences the UserWarning that most selection outputs are distinct: expected on 10^4 labels."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def _seeds(driver: str, case: str, n: int):
    return np.random.SeedSequence([29, len(driver), len(case), sum(map(ord, driver + case))]).spawn(n)


def _audit(mechanism, x, x_prime, seed) -> bool:
    return dpverify.audit(mechanism, x, x_prime, epsilon=EPS, n_samples=N_SAMPLES, alpha=ALPHA, seed=seed).violation


def _search(mechanism, x, x_prime, seed) -> bool:
    pairs = [(x, x_prime), (x_prime, x)]
    result = dpverify.search_audit(mechanism, pairs, epsilon=EPS, n_samples=N_SAMPLES, alpha=ALPHA, seed=seed)
    return result.violation


def _sequential(mechanism, x, x_prime, seed) -> bool:
    with _quiet():
        result = dpverify.sequential_audit(
            mechanism, x, x_prime, epsilon=EPS, n_samples=N_SAMPLES, alpha=ALPHA, seed=seed
        )
    return result.violation


def _given(mechanism, x, x_prime, seed) -> bool:
    rng_x, rng_xp = (np.random.default_rng(s) for s in seed.spawn(2))
    a, b = mechanism.sample(x, N_SAMPLES, rng_x), mechanism.sample(x_prime, N_SAMPLES, rng_xp)
    return dpverify.audit_samples(a, b, epsilon=EPS, alpha=ALPHA, inputs=(x, x_prime)).violation


def _curve(mechanism, x, x_prime, seed) -> bool:
    curve = dpverify.delta_lower_bound_curve(
        mechanism, x, x_prime, epsilons=[0.5, EPS, 2.0], n_samples=N_SAMPLES, alpha=ALPHA, seed=seed
    )
    return curve.violates(EPS, 0.0)


DRIVERS = {
    "audit": _audit,
    "search_audit": _search,
    "sequential_audit": _sequential,
    "audit_samples": _given,
    "delta_lower_bound_curve": _curve,
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("driver", sorted(DRIVERS))
def test_no_false_alarms_at_the_exact_claim_on_a_large_output_space(driver, case, thorough, suite_alpha):
    """At most the ``1 - suite_alpha`` quantile of Bin(N, 0.05) violations in N audits at the exact claim.

    Detects (k-ary case): any driver certifying on samples that chose its event -- (a) the search
    certifying on the winner's screening samples, (b) the sequential audit certifying on its
    selection seeds, the same reuse in the plain audit and the delta curve (each flags 15 of 15 audits
    here, limit 7), the given-samples audit certifying on all samples (8 of 15). False failure <= 1e-6.
    """
    mechanism, x, x_prime, n_default = CASES[case]
    n = 200 if thorough else n_default
    run = DRIVERS[driver]
    with _quiet():
        violations = sum(run(mechanism, x, x_prime, s) for s in _seeds(driver, case, n))
    limit = stats.binom.isf(suite_alpha, n, ALPHA)
    assert violations <= limit, (
        f"{driver} on {case}: {violations} of {n} audits flagged an exact claim (limit {limit:g})"
    )


# --------------------------------------------------------------------------
# structural: certification counts come from fresh streams only
# --------------------------------------------------------------------------

SENTINEL = "sentinel"


class RecordingKary:
    """k-ary randomized response that records the stream of each draw and answers a sentinel while certifying.

    ``phase`` is ``"certification"`` while the driver's chunk counter runs (set by the
    ``certification_phase`` fixture), else ``"choice"``. Each draw appends
    ``(phase, data, stream, size)``, ``stream`` being ``(entropy, spawn_key)`` of the generator's
    SeedSequence.
    """

    def __init__(self, k: int = LABELS):
        self.inner = KaryResponse(EPS, k)
        self.epsilon = EPS
        self.phase = "choice"
        self.calls: list = []

    def sample(self, data, size, rng):
        seq = rng.bit_generator.seed_seq
        self.calls.append((self.phase, data, (str(seq.entropy), tuple(seq.spawn_key)), int(size)))
        out = self.inner.sample(data, size, rng)  # the generator is drawn from either way
        return [SENTINEL] * size if self.phase == "certification" else out

    def __call__(self, data, rng):
        return self.sample(data, 1, rng)[0]

    def streams(self, phase: str) -> set:
        return {stream for p, _, stream, _ in self.calls if p == phase}

    def drawn(self, phase: str, data) -> int:
        """Outputs of ``data`` drawn in ``phase``, each stream once (a redrawn batch is the same sample)."""
        return sum(dict(((d, stream), size) for p, d, stream, size in self.calls if p == phase and d == data).values())


@pytest.fixture
def certification_phase(monkeypatch):
    """Marks the mechanism's ``phase`` as certification while a counting chunk of the pipeline runs."""
    original = sampling._count_chunk

    def counting(task):
        task.mechanism.phase = "certification"
        try:
            return original(task)
        finally:
            task.mechanism.phase = "choice"

    monkeypatch.setattr(sampling, "_count_chunk", counting)


def _related(a, b) -> bool:
    """Whether two streams are the same or one descends from the other (same entropy, key prefix)."""
    (ea, ka), (eb, kb) = a, b
    n = min(len(ka), len(kb))
    return ea == eb and ka[:n] == kb[:n]


def _check_fresh(mechanism: RecordingKary, n_certification: int, counts) -> None:
    """The three structural checks of the module docstring."""
    for data in (0, 1):
        drawn = mechanism.drawn("certification", data)
        assert drawn == n_certification, f"certification drew {drawn} outputs of input {data}, not {n_certification}"
    certifying, choosing = mechanism.streams("certification"), mechanism.streams("choice")
    shared = [(c, s) for c in certifying for s in choosing if _related(c, s)]
    assert not shared, f"certification streams that also fed the choice of the event: {shared[:3]}"
    for count_x, count_xp in counts:
        assert count_x == count_xp, f"certified counts {count_x} vs {count_xp} on sentinel outputs: not fresh samples"


def test_audit_certifies_on_fresh_streams_only(certification_phase):
    """Detects: the plain audit counting its events on the selection streams or samples."""
    mechanism = RecordingKary()
    result = dpverify.audit(mechanism, 0, 1, epsilon=EPS, n_samples=N_SAMPLES, alpha=ALPHA, seed=3)
    _check_fresh(mechanism, result.n_samples - result.n_selection, [(result.event.count_x, result.event.count_x_prime)])


def test_search_certifies_on_fresh_streams_only(certification_phase):
    """Detects bug (a): the search certifying on the winner's screening samples (no fresh draws, counts unequal)."""
    mechanism = RecordingKary()
    result = dpverify.search_audit(mechanism, [(0, 1), (1, 0)], epsilon=EPS, n_samples=N_SAMPLES, alpha=ALPHA, seed=3)
    n_certification = result.event.n_certification  # what the budget left after screening (n_samples in all)
    assert n_certification == result.draws["certification"]
    counts = [(result.event.count_x, result.event.count_x_prime)]
    # the chosen pair may be (1, 0): the recorder's per-input totals do not depend on the order
    _check_fresh(mechanism, n_certification, counts)


def test_sequential_certifies_on_fresh_streams_only(certification_phase):
    """Detects bug (b): the sequential audit's certification batches drawn from its selection seeds."""
    mechanism = RecordingKary()
    with _quiet():
        result = dpverify.sequential_audit(mechanism, 0, 1, epsilon=EPS, n_samples=N_SAMPLES, alpha=ALPHA, seed=3)
    assert not result.stopped_early  # sentinel certification cannot flag: every look ran
    n_certification = result.n_samples - result.n_selection
    _check_fresh(mechanism, n_certification, [(result.event.count_x, result.event.count_x_prime)])


def test_delta_curve_certifies_on_fresh_streams_only(certification_phase):
    """Detects: the delta curve counting its events on the selection streams."""
    mechanism = RecordingKary()
    curve = dpverify.delta_lower_bound_curve(
        mechanism, 0, 1, epsilons=[0.5, EPS, 2.0], n_samples=N_SAMPLES, alpha=ALPHA, seed=3
    )
    _check_fresh(mechanism, curve.n_samples - curve.n_selection, [(e.count_p, e.count_q) for e in curve.events])


def test_audit_samples_certifies_on_the_rest_only():
    """Identical certification blocks for both inputs give equal counts; different selection blocks do not matter.

    Detects: the given-samples audit counting its events on samples that include the selection ones.
    """
    mechanism = KaryResponse(EPS, LABELS)
    rng_x, rng_xp, rng_rest = (np.random.default_rng(s) for s in np.random.SeedSequence(29).spawn(3))
    n_selection = 2_000
    rest = mechanism.sample(0, N_SAMPLES - n_selection, rng_rest)
    a = mechanism.sample(0, n_selection, rng_x) + rest
    b = mechanism.sample(1, n_selection, rng_xp) + rest
    result = dpverify.audit_samples(a, b, epsilon=EPS, alpha=ALPHA, n_selection=n_selection)
    assert result.n_selection == n_selection
    assert result.event.count_x == result.event.count_x_prime
    assert not result.violation


def _kary_exact(kind: str) -> dpverify.PrivacyClaim:
    """The exact rho or mu of k-ary randomized response between inputs 0 and 1 (the other k - 2 labels have
    likelihood ratio 1 and are summed into one output, which changes no divergence or level set)."""
    mechanism = CASES["k-ary-1e4"][0]
    rest = (1 - mechanism.keep) / (mechanism.k - 1)
    pmf_x = {0: mechanism.keep, 1: rest, "rest": rest * (mechanism.k - 2)}
    pmf_x_prime = {0: rest, 1: mechanism.keep, "rest": rest * (mechanism.k - 2)}
    loss = dpverify.exact_privacy_loss(pmf_x, pmf_x_prime)
    return dpverify.PrivacyClaim.zcdp(loss.rho) if kind == "zcdp" else dpverify.PrivacyClaim.gdp(loss.mu)


@pytest.mark.parametrize("kind", ["zcdp", "gdp"])
@pytest.mark.parametrize("driver", ["audit", "search_audit"])
def test_no_false_alarms_at_an_exact_claim_of_another_kind_on_a_large_output_space(driver, kind, thorough, suite_alpha):
    """The claim kinds at their exact value on k-ary randomized response over 10^4 labels (10 audits; 200 under
    the thorough profile), held to the ``1 - suite_alpha`` quantile of Bin(N, 0.05).

    Detects: the plain audit certifying a zCDP claim on its selection samples (the cells are fitted to the
    selection's log likelihood ratios of 10^4 labels, so on those samples they look far apart: 10 of 10 flagged,
    limit 6; seen failing), and the same reuse for a Gaussian DP claim's events. False failure <= 1e-6.
    """
    mechanism = CASES["k-ary-1e4"][0]
    claim = _kary_exact(kind)
    n = 200 if thorough else 10
    pairs = [(0, 1), (1, 0)]

    def run(seed) -> bool:
        if driver == "audit":
            return dpverify.audit(mechanism, 0, 1, claim=claim, n_samples=N_SAMPLES, alpha=ALPHA, seed=seed).violation
        return dpverify.search_audit(
            mechanism, pairs, claim=claim, n_samples=N_SAMPLES, alpha=ALPHA, seed=seed
        ).violation

    with _quiet():
        violations = sum(run(s) for s in _seeds(driver, kind, n))
    limit = stats.binom.isf(suite_alpha, n, ALPHA)
    assert violations <= limit, (
        f"{driver} ({kind}): {violations} of {n} audits flagged an exact claim (limit {limit:g})"
    )
