"""DP-SGD canary traces: the worst-case one-dimensional trace of a training run, one class per batch sampler.

The standard worst case of DP-SGD auditing (Nasr et al. 2021; Chua et al. 2024): a dataset of
``n`` records whose clipped gradients are one-dimensional, the canary's equal to the clipping
norm ``C`` and every other record's fixed at ``others`` (0 by default). Each of ``T`` steps sums
the clipped gradients of the records in its batch, adds Gaussian noise ``N(0, (sigma C)^2)``
(``sigma`` the noise multiplier) and releases the noisy sum, normalised one of three ways:

- ``"sum"``: the noisy sum itself;
- ``"expected"``: divided by the expected batch size ``b`` (Opacus's default);
- ``"realised"``: divided by the number of records in the batch (at least 1), which makes the
  batch size part of the output.

The mechanism's output is the vector of the ``T`` released values; the model update is a
post-processing of it. The input is the canary's clipped gradient, a real in ``[-C, C]``, or
``None`` when the canary is not in the dataset (``n - 1`` records, all with gradient 0). Two
neighbouring relations, each stated in the claim:

- add/remove one record: ``(C, None)``, the canary in the dataset of ``n`` records or absent;
- replace one record: ``(C, replacement)``, the canary's gradient ``C`` replaced by
  ``replacement`` (``-C`` by default, the worst case: the sum moves by ``2C``; ``0`` gives a
  shift of ``C``), the dataset size ``n`` in both. With ``replacement=0.0`` this is the
  zero-out relation (a record replaced by one whose gradient is 0; Kairouz et al. 2021), under
  which Chua et al. (2024) compare shuffling with Poisson subsampling: for the Poisson trace it is
  the add/remove relation itself (a record of gradient 0 adds nothing to any batch, and the others'
  inclusions do not depend on it), so the accountants' add/remove figure is the zero-out figure.

The other records' gradient ``c = others`` (in ``[-C, C]``; replace-one only) adds ``c`` per
other record in a batch. Under Poisson subsampling (and balls-in-bins) their number is random and
independent of the canary, so ``c != 0`` only adds noise and 0 is the worst case. In fixed-size
batches (shuffling, without replacement per step) the canary takes another record's place, so the
batch holding it moves by ``g - c`` and everything else is fixed: with ``c = -C`` under zero-out,
the canary's batch moves by ``2C`` on ``x`` and by ``C`` on ``x'``, both in one uniformly random
batch of the epoch, and at small noise multipliers the tail of the largest batch sum separates the
two inputs almost as a single Gaussian mechanism of shift ``C`` does, with little amplification by
the choice of batch. This
is the worst-case input of Chua et al. (2024) for one epoch of shuffling (the other records'
gradient ``-1``, the differing record ``+1`` or zeroed), which their multi-epoch lower bounds
(Chua et al., NeurIPS 2024) extend; Annamalai et al. (2024) measure the same gap by auditing
training runs.

The batch samplers (each a class; ``b`` is ``batch_size``, ``k = n // b`` steps per epoch):

- :class:`PoissonCanaryTrace`: every record in each batch independently with probability
  ``q = b / n`` (what the usual accountants analyse);
- :class:`ShuffledCanaryTrace`: each epoch a uniformly random permutation of the records cut
  into ``k`` batches of ``b`` consecutive records (records past ``k b`` are left out of that
  epoch); ``T`` steps run ``ceil(T / k)`` epochs, the last possibly cut short;
- :class:`WithoutReplacementCanaryTrace`: each step a fresh uniformly random batch of ``b``
  distinct records;
- :class:`BallsInBinsCanaryTrace`: each epoch every record is put in one of ``k`` batches
  uniformly at random, independently (Chua et al. 2025).

Each trace states the claim known for it without amplification by sampling (``claim``): the
canary's gradient moves the released sums by at most ``D`` (``C`` under add/remove, ``|C -
replacement|`` under replace-one) in at most ``m`` steps (``T`` for Poisson and per-step sampling,
the number of epochs for shuffling and balls-in-bins), and which steps it moves is chosen
independently of the canary's value, so by joint convexity the trace is ``mu``-Gaussian DP with
``mu = D sqrt(m) / (sigma C)`` (Dong, Roth and Su 2022, Corollary 3.3 for the composition). This
needs the batch sizes to have the same distribution on both inputs, as they do under replace-one,
and under add/remove when they are not released (``"sum"`` and ``"expected"``); a realised-size
trace under add/remove releases batch sizes whose law depends on the canary's presence, and
states no claim. The accountant's claim, with amplification (the claim under audit in practice),
is given as ``claim=``: for Poisson sampling :func:`dpverify.extras.accountants.dp_accounting_pld_claim`
reads it from Google's dp_accounting. A given claim whose neighbouring text names the other
relation (it starts with "add/remove" or "replace-one" / "replace one") is refused: the audit
samples the trace's own pair, and its verdict would be read as refuting a claim about other
neighbours (an add/remove claim implies a replace-one claim only by group privacy, at about twice
its epsilon). To test an accountant's add/remove figure as a replace-one claim, as code with
fixed-size batches reports it, restate it: ``claim.with_meta(neighbouring="replace-one ...")``.

The noise is float64 ``numpy`` Gaussian noise, as in training; no grid rounding.

Every trace declares a score for the audit (:class:`dpverify.protocols.DeclaresScore`, the
``"declared-score"`` event family of :mod:`dpverify.events.declared`): ``audit_score(outputs, x,
x_prime)``, the log likelihood ratio of the whole trace under the model the accountants analyse,
Poisson subsampling at ``q = b / n`` (``audit_score`` of every trace class). It is exact for the
Poisson trace with sum or expected-size normalisation, and a hint elsewhere: the audit chooses
events on it from the selection samples and certifies them on fresh ones, so a score that is wrong
for a trace costs power, never validity.

References
----------
M. Nasr, S. Song, A. Thakurta, N. Papernot and N. Carlini, "Adversary Instantiation: Lower Bounds
for Differentially Private Machine Learning", IEEE S&P 2021.
L. Chua, B. Ghazi, P. Kamath, R. Kumar, P. Manurangsi, A. Sinha and C. Zhang, "How Private are
DP-SGD Implementations?", ICML 2024.
L. Chua, B. Ghazi, P. Kamath, R. Kumar, P. Manurangsi, A. Sinha and C. Zhang, "Scalable DP-SGD:
Shuffling vs. Poisson Subsampling", NeurIPS 2024 (arXiv:2411.04205).
M. S. M. S. Annamalai, B. Balle, E. De Cristofaro and J. Hayes, "To Shuffle or not to Shuffle:
Auditing DP-SGD with Shuffling", arXiv:2411.10614, 2024.
P. Kairouz, B. McMahan, S. Song, O. Thakkar, A. Thakurta and Z. Xu, "Practical and Private (Deep)
Learning without Sampling or Shuffling", ICML 2021 (the zero-out neighbouring relation).
L. Chua, B. Ghazi, C. Harrison, E. Leeman, P. Kamath, R. Kumar, P. Manurangsi, A. Sinha and
C. Zhang, "Balls-and-Bins Sampling for DP-SGD", AISTATS 2025.
J. Dong, A. Roth and W. J. Su, "Gaussian Differential Privacy", JRSS B 2022.
I. Mironov, K. Talwar and L. Zhang, "Rényi Differential Privacy of the Sampled Gaussian
Mechanism", arXiv:1908.10530, 2019.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_choice, check_instance, check_positive_int, check_positive_real
from ..claims import PrivacyClaim
from ..errors import InvalidClaimError, InvalidParameterError

__all__ = [
    "NORMALISATIONS",
    "NEIGHBOURINGS",
    "PoissonCanaryTrace",
    "ShuffledCanaryTrace",
    "WithoutReplacementCanaryTrace",
    "BallsInBinsCanaryTrace",
    "CANARY_TRACES",
]

#: How a step's noisy sum is released.
NORMALISATIONS = ("sum", "expected", "realised")
#: The neighbouring relations a trace states its claim for.
NEIGHBOURINGS = ("add/remove", "replace-one")


def check_training(noise_multiplier, steps, dataset_size, batch_size) -> tuple:
    """``(sigma, T, n, b)`` checked: ``sigma > 0``, ``T >= 1``, ``1 <= b < n`` (sampling needs a choice)."""
    sigma = check_positive_real(noise_multiplier, "noise_multiplier")
    steps = check_positive_int(steps, "steps")
    n = check_positive_int(dataset_size, "dataset_size", minimum=2)
    b = check_positive_int(batch_size, "batch_size")
    if b >= n:
        raise InvalidParameterError(
            f"batch_size must be below dataset_size (sampling needs a choice), got "
            f"batch_size={batch_size!r}, dataset_size={dataset_size!r}"
        )
    return sigma, steps, n, b


class _CanaryTrace:
    """What every sampler's trace shares: parameters, noise, normalisation, the claim.

    A subclass sets :attr:`sampler` (its name) and implements :meth:`_batches`, which returns the
    canary's inclusion mask and, where asked, the realised batch sizes, both of shape
    ``(size, steps)``, and :meth:`_participations`, the most steps the canary can be in.
    """

    sampler: str = ""
    #: Whether the canary, in a batch, takes the place of another record (fixed-size batches).
    displaces: bool = False

    def __init__(
        self,
        noise_multiplier,
        steps,
        dataset_size,
        batch_size,
        *,
        clip=1.0,
        normalisation="sum",
        neighbouring="add/remove",
        replacement=None,
        others=0.0,
        claim=None,
    ):
        self.noise_multiplier, self.steps, self.dataset_size, self.batch_size = check_training(
            noise_multiplier, steps, dataset_size, batch_size
        )
        self.clip = check_positive_real(clip, "clip")
        self.normalisation = check_choice(normalisation, "normalisation", NORMALISATIONS)
        self.neighbouring = check_choice(neighbouring, "neighbouring", NEIGHBOURINGS)
        self.replacement = -self.clip if replacement is None else self._gradient(replacement)
        self.others = self._others(others)
        check_instance(claim, (PrivacyClaim, type(None)), f"claim must be a PrivacyClaim or None, got {claim!r}")
        self._check_claimed_relation(claim)
        self._given_claim = claim

    def _check_claimed_relation(self, claim) -> None:
        """Refuse a claim whose neighbouring text names the relation other than :attr:`neighbouring`."""
        text = "" if claim is None else claim.neighbouring.strip().lower().replace("replace one", "replace-one")
        stated = next((relation for relation in NEIGHBOURINGS if text.startswith(relation)), self.neighbouring)
        if stated != self.neighbouring:
            raise InvalidClaimError(
                f"the claim is stated for {stated} neighbours ({claim.neighbouring!r}) and the trace's pair is "
                f"{self.neighbouring}: a verdict would refute a claim about other neighbours (an add/remove claim "
                "implies a replace-one claim only by group privacy, at about twice its epsilon). Audit the trace "
                f"with neighbouring={stated!r}, or restate the claim for its relation: "
                f"claim.with_meta(neighbouring={self.neighbouring!r} + ' ...')"
            )

    def _others(self, others) -> float:
        """The other records' common clipped gradient, checked: in ``[-C, C]``, and 0 under add/remove."""
        if isinstance(others, bool) or not isinstance(others, (int, float, np.integer, np.floating)):
            raise InvalidParameterError(f"others must be the other records' clipped gradient (a real), got {others!r}")
        if not abs(float(others)) <= self.clip:
            raise InvalidParameterError(
                f"others, the other records' clipped gradient, must lie in [-clip, clip] = "
                f"[-{self.clip:g}, {self.clip:g}], got {others!r}"
            )
        value = float(others)
        if value != 0.0 and self.neighbouring == "add/remove":
            raise InvalidParameterError(
                f"others={others!r} needs neighbouring='replace-one': under add/remove the canary's absence "
                "shifts the other records between batches differently for each sampler, and the stated claim "
                "would not cover it (the worst case for shuffling is stated for the zero-out relation: "
                "neighbouring='replace-one', replacement=0.0)"
            )
        return value

    # -- the parts a sampler fills in ----------------------------------------------------------

    def batches(self, present: bool, size: int, rng, sizes: bool = True):
        """The canary's inclusion mask (bool) and, where ``sizes``, the realised batch sizes (int;
        else None), both of shape ``(size, steps)``, with the canary in the dataset or not."""
        raise NotImplementedError

    def _participations(self) -> int:
        raise NotImplementedError

    def _others_per_batch(self) -> float:
        """The expected number of other records in a batch the canary is not in."""
        raise NotImplementedError

    # -- sampling ------------------------------------------------------------------------------

    @property
    def steps_per_epoch(self) -> int:
        """``k = n // b``: the batches of one epoch (shuffling, balls-in-bins)."""
        return self.dataset_size // self.batch_size

    @property
    def epochs(self) -> int:
        """``ceil(T / k)``: the epochs ``T`` steps start (the last possibly cut short)."""
        return -(-self.steps // self.steps_per_epoch)

    def _gradient(self, data) -> float:
        value = data if not isinstance(data, np.ndarray) else data.item() if data.size == 1 else data
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise InvalidParameterError(
                f"the data must be the canary's clipped gradient (a real) or None, got {data!r}"
            )
        if not abs(float(value)) <= self.clip:
            raise InvalidParameterError(
                f"the canary's gradient must lie in [-clip, clip] = [-{self.clip:g}, {self.clip:g}], got {data!r}"
            )
        return float(value)

    def sample(self, data, size, rng):
        """``size`` traces (an array of shape ``(size, steps)``; ``(steps,)`` for ``size=None``).

        The noise is drawn first, then :meth:`batches`, from ``rng``.
        """
        present = data is not None
        gradient = self._gradient(data) if present else 0.0
        count = 1 if size is None else check_positive_int(size, "size")
        realised = self.normalisation == "realised"
        out = rng.normal(scale=self.noise_multiplier * self.clip, size=(count, self.steps))
        included, batch_sizes = self.batches(present, count, rng, realised or self.others != 0.0)
        out += gradient * included
        if self.others != 0.0:
            out += self.others * (batch_sizes - included)
        if realised:
            out /= np.maximum(batch_sizes, 1)
        elif self.normalisation == "expected":
            out /= self.batch_size
        return out[0] if size is None else out

    def __call__(self, data, rng):
        return self.sample(data, None, rng)

    # -- the score the audit may threshold ----------------------------------------------------

    def _model_log_ratio(self, sums: np.ndarray, gradient: float) -> np.ndarray:
        """Per trace, ``sum_t log((1 - q) + q exp((2 y_t g - g^2) / (2 s^2)))``: the log density ratio of
        the sums ``y`` under the sampled Gaussian with the canary's gradient ``g`` against the sums with no
        canary (0 where ``g = 0``)."""
        if gradient == 0.0:
            return np.zeros(len(sums))
        q, s = self.batch_size / self.dataset_size, self.noise_multiplier * self.clip
        exponent = (2.0 * sums * gradient - gradient * gradient) / (2.0 * s * s)
        with np.errstate(over="ignore", invalid="ignore"):
            terms = np.logaddexp(math.log1p(-q), math.log(q) + exponent)
        return terms.sum(axis=1)

    def audit_score(self, outputs, x, x_prime) -> np.ndarray:
        """The log likelihood ratio of ``x`` against ``x_prime`` of each trace under Poisson subsampling.

        The sampled Gaussian mechanism at rate ``q = b / n`` (Mironov, Talwar and Zhang 2019, Section
        3): a step's sum ``y_t`` is ``N(g B_t, s^2)`` with ``B_t ~ Bernoulli(q)`` independent across
        steps, ``g`` the canary's gradient (0 when absent) and ``s = sigma C``, so the density ratio of
        the trace against the trace with no canary is ``prod_t ((1 - q) + q exp((2 y_t g - g^2) / (2
        s^2)))``. The score is the log of that ratio for ``x``'s gradient less the same for
        ``x_prime``'s: the exact log likelihood ratio of the Poisson trace with sum normalisation (and
        with expected-size normalisation, its outputs multiplied back by ``b``, as here), under either
        relation, when the other records' gradient ``c`` (``others``) is 0. Otherwise the sums are
        first centred on ``c`` times the expected number of other records in a batch without the
        canary, and where the canary takes another record's place in a fixed-size batch (shuffling,
        without replacement per step: :attr:`displaces`) its gradient counts as ``g - c``. For the
        other samplers, and for realised-size normalisation (multiplied by ``b`` too, the batch size
        treated as the expected one), it is the likelihood ratio of the model the
        accountants analyse, not of the trace: a hint that costs power where it is wrong, never
        validity (:mod:`dpverify.events.declared`).

        Parameters
        ----------
        outputs : numpy.ndarray
            Traces, shape ``(n, steps)``.
        x, x_prime
            The pair: canaries' clipped gradients, or None for "absent".

        Returns
        -------
        numpy.ndarray
            Shape ``(n,)``; ``+inf`` or NaN where a trace holds an infinite or NaN value.

        References
        ----------
        I. Mironov, K. Talwar and L. Zhang, "Rényi Differential Privacy of the Sampled Gaussian
        Mechanism", arXiv:1908.10530, 2019 (Section 3, the sampled Gaussian mechanism's densities).
        """
        sums = np.asarray(outputs, dtype=np.float64).reshape(len(outputs), -1)
        if self.normalisation != "sum":
            sums = sums * self.batch_size
        sums = sums - self.others * self._others_per_batch()
        gradients = [
            0.0 if data is None else self._gradient(data) - self.others * self.displaces for data in (x, x_prime)
        ]
        with np.errstate(invalid="ignore"):
            return self._model_log_ratio(sums, gradients[0]) - self._model_log_ratio(sums, gradients[1])

    # -- the claim -----------------------------------------------------------------------------

    @property
    def pair(self) -> tuple:
        """The worst-case neighbouring pair of the stated relation: ``(C, None)`` or ``(C, replacement)``."""
        return (self.clip, None) if self.neighbouring == "add/remove" else (self.clip, self.replacement)

    @property
    def shift(self) -> float:
        """``D``: how far the canary moves a step's sum between the two inputs of :attr:`pair`."""
        return self.clip if self.neighbouring == "add/remove" else abs(self.clip - self.replacement)

    @property
    def neighbouring_text(self) -> str:
        """The relation in words, with the dataset it is on."""
        others = (
            f"the other records' gradients fixed at {self.others:g}; n = {self.dataset_size}, "
            f"batch size {self.batch_size}"
        )
        if self.neighbouring == "add/remove":
            return (
                f"add/remove one record: the canary (gradient {self.clip:g}) in the dataset of n records "
                f"or absent ({others})"
            )
        return f"replace one record: the canary's gradient {self.clip:g} replaced by {self.replacement:g} ({others})"

    @property
    def claim(self) -> PrivacyClaim | None:
        """The claim given as ``claim=``, else the Gaussian DP without amplification (module
        docstring), else None (a realised-size trace under add/remove)."""
        if self._given_claim is not None:
            return self._given_claim
        if self.neighbouring == "add/remove" and self.normalisation == "realised":
            return None
        mu = self.shift * math.sqrt(self._participations()) / (self.noise_multiplier * self.clip)
        return PrivacyClaim.gdp(
            mu,
            neighbouring=self.neighbouring_text,
            source=(
                f"Gaussian mechanism composed over at most {self._participations()} participations, no "
                "amplification by sampling (Dong, Roth and Su 2022, Corollary 3.3; joint convexity over the batches)"
            ),
        )

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(noise_multiplier={self.noise_multiplier:g}, steps={self.steps}, "
            f"dataset_size={self.dataset_size}, batch_size={self.batch_size}, clip={self.clip:g}, "
            f"normalisation={self.normalisation!r}, neighbouring={self.neighbouring!r}, others={self.others:g})"
        )


def _epoch_mask(batch_index, batches_per_epoch: int, steps: int) -> np.ndarray:
    """The inclusion mask of a canary in batch ``batch_index[:, e]`` of epoch ``e`` (an index
    ``>= batches_per_epoch`` leaves it out of that epoch), cut to ``steps`` steps."""
    count, epochs = batch_index.shape
    mask = np.zeros((count, epochs * batches_per_epoch + 1), dtype=bool)
    column = np.where(
        batch_index < batches_per_epoch, batch_index + batches_per_epoch * np.arange(epochs), epochs * batches_per_epoch
    )
    mask[np.arange(count)[:, None], column] = True
    return mask[:, :steps]


class PoissonCanaryTrace(_CanaryTrace):
    """The canary trace of DP-SGD with Poisson subsampling at rate ``q = batch_size / dataset_size``.

    Each record, the canary included, is in each step's batch independently with probability
    ``q``; the realised batch size is ``Binomial(n - 1, q)`` plus the canary's inclusion.
    Parameters and input as in :mod:`dpverify.mechanisms.dpsgd`; the accountants' usual claim
    (add/remove, sum or expected-size normalisation) is
    :func:`dpverify.extras.accountants.dp_accounting_pld_claim` at ``q``.

    References
    ----------
    M. Abadi, A. Chu, I. Goodfellow, H. B. McMahan, I. Mironov, K. Talwar and L. Zhang, "Deep
    Learning with Differential Privacy", ACM CCS 2016 (Algorithm 1, lot sampling).
    """

    sampler = "poisson"

    @property
    def sample_rate(self) -> float:
        """``q = b / n``."""
        return self.batch_size / self.dataset_size

    def batches(self, present, size, rng, sizes=True):
        shape = (size, self.steps)
        included = (rng.random(shape) < self.sample_rate) if present else np.zeros(shape, dtype=bool)
        others = rng.binomial(self.dataset_size - 1, self.sample_rate, size=shape) if sizes else None
        return included, (others + included if sizes else None)

    def _participations(self):
        return self.steps

    def _others_per_batch(self):
        return (self.dataset_size - 1) * self.sample_rate


class WithoutReplacementCanaryTrace(_CanaryTrace):
    """The canary trace with a fresh uniformly random batch of ``batch_size`` distinct records each step.

    The canary is in each batch with probability ``b / n`` independently across steps; every
    batch has ``b`` records (``b`` of the ``n - 1`` others when the canary is absent). Under the
    zero-out relation with the other records at ``-C`` (``neighbouring="replace-one",
    replacement=0.0, others=-clip``) the canary's batches move by ``2C`` on one input and by ``C``
    on the other, as for shuffling (:class:`ShuffledCanaryTrace`), in each step independently.

    References
    ----------
    C. J. Lebeda, M. Regehr, G. Kamath and T. Steinke, "Avoiding Pitfalls for Privacy Accounting of
    Subsampled Mechanisms under Composition", arXiv:2405.20769, 2024 (sampling without replacement
    against Poisson subsampling).
    """

    sampler = "without replacement per step"
    displaces = True

    def batches(self, present, size, rng, sizes=True):
        shape = (size, self.steps)
        p = self.batch_size / self.dataset_size
        included = (rng.random(shape) < p) if present else np.zeros(shape, dtype=bool)
        return included, (np.full(shape, self.batch_size) if sizes else None)

    def _participations(self):
        return self.steps

    def _others_per_batch(self):
        return float(self.batch_size)


class ShuffledCanaryTrace(_CanaryTrace):
    """The canary trace of shuffled fixed-size batches: each epoch a random permutation cut into batches.

    Each epoch the canary's position in a uniformly random permutation of the dataset is
    uniform on ``0..n-1``; it is in batch ``position // b`` when that is below ``k = n // b``, and
    in no batch of that epoch otherwise. Batch sizes are fixed: ``b`` with the canary present;
    absent, the ``n - 1`` others fill the batches in order, so the last of an epoch holds
    ``min(b, n - 1 - (k - 1) b)`` records.

    The worst case of Chua et al. (2024) for shuffling is ``neighbouring="replace-one",
    replacement=0.0, others=-clip``: under the zero-out relation (a record replaced by one of
    gradient 0, the dataset size kept) the canary's batch moves by ``2C`` on one input and by ``C``
    on the other. The Poisson figure it is compared with is the accountants' add/remove epsilon at
    ``q = b / n`` and the same ``sigma`` and ``T`` (``dp_accounting_pld_claim``), which is the
    zero-out epsilon of :class:`PoissonCanaryTrace` (its worst case has ``others=0``); restate it
    for the trace's relation with ``claim.with_meta(neighbouring="replace-one ...")``.

    References
    ----------
    L. Chua, B. Ghazi, P. Kamath, R. Kumar, P. Manurangsi, A. Sinha and C. Zhang, "How Private are
    DP-SGD Implementations?", ICML 2024 (the shuffled batch sampler against Poisson subsampling; the
    lower bound for one epoch). L. Chua et al., "Scalable DP-SGD: Shuffling vs. Poisson Subsampling",
    NeurIPS 2024 (several epochs).
    """

    sampler = "shuffle"
    displaces = True

    def batches(self, present, size, rng, sizes=True):
        k = self.steps_per_epoch
        if present:
            position = rng.integers(0, self.dataset_size, size=(size, self.epochs))
            included = _epoch_mask(position // self.batch_size, k, self.steps)
        else:
            included = np.zeros((size, self.steps), dtype=bool)
        if not sizes:
            return included, None
        records = self.dataset_size - (0 if present else 1)
        per_batch = np.clip(records - self.batch_size * np.arange(k), 0, self.batch_size)
        return included, np.broadcast_to(np.tile(per_batch, self.epochs)[: self.steps], (size, self.steps))

    def _participations(self):
        return self.epochs

    def _others_per_batch(self):
        return float(self.batch_size)


class BallsInBinsCanaryTrace(_CanaryTrace):
    """The canary trace of balls-in-bins batches: each epoch every record goes to one of ``k`` batches at random.

    ``k = n // b``; the canary's batch each epoch is uniform on ``0..k-1``, and the others' batch
    sizes are ``Multinomial(n - 1, (1/k, ..., 1/k))`` per epoch (Chua et al., "Balls-and-Bins
    Sampling for DP-SGD", AISTATS 2025).
    """

    sampler = "balls-in-bins"

    def batches(self, present, size, rng, sizes=True):
        k = self.steps_per_epoch
        if present:
            included = _epoch_mask(rng.integers(0, k, size=(size, self.epochs)), k, self.steps)
        else:
            included = np.zeros((size, self.steps), dtype=bool)
        if not sizes:
            return included, None
        others = rng.multinomial(self.dataset_size - 1, np.full(k, 1.0 / k), size=(size, self.epochs))
        return included, others.reshape(size, -1)[:, : self.steps] + included

    def _participations(self):
        return self.epochs

    def _others_per_batch(self):
        return (self.dataset_size - 1) / self.steps_per_epoch


#: The trace classes by sampler name.
CANARY_TRACES = {
    cls.sampler: cls
    for cls in (PoissonCanaryTrace, ShuffledCanaryTrace, WithoutReplacementCanaryTrace, BallsInBinsCanaryTrace)
}
