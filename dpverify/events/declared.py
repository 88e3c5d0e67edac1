"""Events on a score the mechanism declares: thresholds on ``mechanism.audit_score(outputs, x, x_prime)``.

By Neyman and Pearson the most telling events are the level sets of the
likelihood ratio ``P[M(x) = o] / P[M(x') = o]``. A mechanism that knows its own
model can say what that ratio is, or what it would be under the model a claim
analyses (a DP-SGD trace under Poisson subsampling, the model of the usual
accountants: :mod:`dpverify.mechanisms.dpsgd`): it declares
``audit_score(outputs, x, x_prime)`` (:class:`dpverify.protocols.DeclaresScore`),
one real per output of an ``(n, d)`` float64 array of real outputs, larger
where an output looks more like one of ``M(x)``. The family ``"declared-score"``
proposes the threshold events ``{score >= t}`` and ``{score < t}`` at pooled
quantiles of the score on the selection samples, with extra thresholds deep in
its tails (:data:`DEEP_TAIL_QUANTILES`), where the most lopsided events of a
likelihood ratio lie: at a small delta the best event of a subsampled Gaussian
trace holds well under a thousandth of the outputs.

A declared score is a hint, never trusted. The events are chosen on the
selection samples alone, as every family's are, and certified on fresh samples
that played no part in the choice; a score is a fixed function of the outputs
and the pair (it may not read the samples), so each candidate is an event fixed
before certification, and the Clopper-Pearson bounds on it hold with
probability ``1 - alpha`` whatever the score computes. A wrong score (the wrong
sign, scale, model, or noise) proposes poor events and costs power; it cannot
raise a false alarm beyond ``alpha``.

The family runs on real outputs of an audit that knows its mechanism (not on
given samples) and proposes nothing, silently, where the mechanism declares no
score: the seeded results of every other audit are those before it was added.
Claims that read cells (zCDP, Rényi DP) try the score as one more cell score
(:mod:`dpverify.pipeline.partition`).

References
----------
J. Neyman and E. S. Pearson, "On the Problem of the Most Efficient Tests of Statistical
Hypotheses", Phil. Trans. R. Soc. A 231, 1933.
B. Bichsel, S. Steffen, I. Bogunovic and M. Vechev, "DP-Sniper: Black-Box Discovery of
Differential Privacy Violations using Classifiers", IEEE S&P 2021 (threshold events on a score).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ..errors import InvalidParameterError
from ..protocols import declared_score
from .candidates import Candidates
from .thresholds import TAIL_QUANTILES, threshold_candidates

__all__ = ["DeclaredScore", "declared_score_events", "DEEP_TAIL_QUANTILES"]

#: The name the family's events carry.
FAMILY = "declared-score"
#: Pooled quantiles (and their complements) of the tail thresholds on a declared score: the threshold
#: families' :data:`~.thresholds.TAIL_QUANTILES` and four deeper ones (the pooled 1e-4 quantile of
#: 1e4 selection outputs per input is the second largest of them, so the deepest rest on few values,
#: and selection's shrinkage judges them at that precision).
DEEP_TAIL_QUANTILES = (1e-4, 2e-4, 4e-4, 7e-4, *TAIL_QUANTILES)


@dataclass(frozen=True, eq=False)
class DeclaredScore:
    """``score(group, x, x_prime)`` as a projection of ``(n, d)`` real outputs (picklable where ``score``
    is, e.g. a picklable mechanism's bound method), checked to give one finite-or-NaN real per row."""

    score: Callable
    x: object
    x_prime: object

    def __call__(self, group) -> np.ndarray:
        values = np.asarray(self.score(group, self.x, self.x_prime), dtype=np.float64)
        if values.shape != (len(group),):
            raise InvalidParameterError(
                f"the declared audit_score returned shape {values.shape} for {len(group)} outputs; it must return "
                "one real per output (a 1-d array of that length)"
            )
        return values


def declared_score_events(sel_x, sel_x_prime, outputs, *, inputs=None, mechanism=None) -> Candidates:
    """Thresholds on the score the mechanism declares (``"declared-score"``; module docstring).

    Nothing, silently, where the mechanism or the pair is unknown or the mechanism declares no score.
    """
    score = declared_score(mechanism)
    if score is None or inputs is None or outputs.kind != "real" or sel_x.ndim != 2:
        return Candidates.empty()
    project = DeclaredScore(score, *inputs)
    px, pxp = project(sel_x), project(sel_x_prime)
    found = threshold_candidates(px, pxp, project, "declared score", tails=True, tail_quantiles=DEEP_TAIL_QUANTILES)
    found.events = [replace(e, family=FAMILY) for e in found.events]
    return found
