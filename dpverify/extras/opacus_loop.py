"""Opacus's own DP-SGD loop as a dpverify mechanism: a one-parameter model and a crafted canary.

Needs opacus and PyTorch (``pip install 'dpverify[training]'``), imported when a loop is built.

The canary traces of :mod:`dpverify.mechanisms.dpsgd` model a training run; this mechanism *is*
one, run by Opacus's own code: its :class:`opacus.PrivacyEngine` ``make_private`` with Poisson
sampling turns a :class:`torch.utils.data.DataLoader` into its DPDataLoader (its uniform sampler:
each record in each batch independently at rate ``q = 1 / len(loader)``, ``b / n`` when ``n`` is
a multiple of ``b``), wraps the model for per-sample gradients, and its DPOptimizer clips each
per-sample gradient to ``max_grad_norm = C``, adds ``N(0, (sigma C)^2)`` noise from its noise
generator and divides by its expected batch size ``int(N q)`` (``N`` the records in the dataset).

The run: ``dataset_size = n`` one-dimensional records, every input 0 but the canary's, which is
``canary_scale * C`` (default ``10 C``); the model ``torch.nn.Linear(1, 1, bias=False)``, its
weight set to 0 before each run; a batch's loss the sum of the model's outputs, so each record's
gradient is its input and the canary's is clipped by Opacus to (just under) ``C``; plain SGD at
learning rate 1 for ``steps`` steps (a new epoch of the loader where one ends).

The input is ``True`` (the canary in the dataset of ``n`` records) or ``False`` (not), and the
relation is stated:

- ``absent="removed"`` (default): the canary's record left out, ``n - 1`` records. Add/remove
  neighbours, the relation Opacus's accountants analyse. Opacus divides by ``int(N q)``: ``b``
  with the canary and ``b - 1`` without it (for ``n = k b``), so the two inputs' released noise
  differs in scale by ``b / (b - 1)``: the code's behaviour, audited as it is.
- ``absent="zeroed"``: the canary's input set to 0 (``n`` records, its gradient 0), the same
  normalisation on both inputs; the Poisson add/remove privacy profile is exact for it.

The output (``release``): ``"steps"``, the ``T`` noisy gradients the optimizer applied (the
parameter's ``grad`` after each step, as a float64 array), or ``"final"``, the final weight
(``-`` their sum at learning rate 1). Each output is one training run: the randomness of Opacus's
sampler and of its noise comes from two :class:`torch.Generator` seeded from the audit's ``rng``,
so an audit's seed replays it.

References
----------
A. Yousefpour et al., "Opacus: User-Friendly Differential Privacy Library in PyTorch", 2021.
M. Abadi et al., "Deep Learning with Differential Privacy", ACM CCS 2016 (Algorithm 1).
M. Nasr, S. Song, A. Thakurta, N. Papernot and N. Carlini, "Adversary Instantiation: Lower Bounds
for Differentially Private Machine Learning", IEEE S&P 2021 (the crafted gradient canary).
"""

from __future__ import annotations

import importlib
import warnings

import numpy as np

from .._validation import check_choice, check_instance, check_positive_int, check_positive_real
from ..claims import PrivacyClaim
from ..errors import InvalidParameterError, MissingExtraError
from ..mechanisms.dpsgd import check_training

__all__ = ["OpacusCanaryLoop", "RELEASES", "ABSENCES"]

#: What a run releases.
RELEASES = ("steps", "final")
#: How the canary is absent from the other input.
ABSENCES = ("removed", "zeroed")


def _torch_and_opacus():
    try:
        return importlib.import_module("torch"), importlib.import_module("opacus")
    except ImportError as exc:
        raise MissingExtraError(
            "running Opacus's training loop needs opacus and PyTorch: pip install 'dpverify[training]'"
        ) from exc


class OpacusCanaryLoop:
    """``steps`` steps of Opacus's DP-SGD on a one-parameter model, with or without a crafted canary.

    Parameters
    ----------
    noise_multiplier : float
        ``sigma``, Opacus's ``noise_multiplier``.
    steps : int
        ``T``, optimizer steps per run.
    dataset_size : int
        ``n``, the records with the canary (a multiple of ``batch_size``, so that both inputs have
        the sampling rate ``b / n``).
    batch_size : int
        ``b``, the DataLoader's batch size (Opacus's expected batch size).
    clip : float, default 1.0
        ``C``, Opacus's ``max_grad_norm``.
    canary_scale : float, default 10.0
        The canary's input (and gradient) in units of ``C``; more than 1, so that Opacus clips it.
    release : {"steps", "final"}, default "steps"
        What a run outputs (module docstring).
    absent : {"removed", "zeroed"}, default "removed"
        The other input of the pair (module docstring).
    claim : PrivacyClaim, optional
        The claim to audit, e.g. :func:`dpverify.extras.accountants.opacus_rdp_claim` at
        ``(noise_multiplier, batch_size / dataset_size, steps)``.

    Raises
    ------
    InvalidParameterError
        Parameters out of range, ``dataset_size`` not a multiple of ``batch_size``.
    MissingExtraError
        opacus or PyTorch not installed (when a run is first built).
    """

    def __init__(
        self,
        noise_multiplier,
        steps,
        dataset_size,
        batch_size,
        *,
        clip=1.0,
        canary_scale=10.0,
        release="steps",
        absent="removed",
        claim=None,
    ):
        self.noise_multiplier, self.steps, self.dataset_size, self.batch_size = check_training(
            noise_multiplier, steps, dataset_size, batch_size
        )
        if self.dataset_size % self.batch_size:
            raise InvalidParameterError(
                f"dataset_size must be a multiple of batch_size (then the canary's absence leaves Opacus's sampling "
                f"rate 1 / len(loader) at b / n), got dataset_size={dataset_size!r}, batch_size={batch_size!r}"
            )
        self.clip = check_positive_real(clip, "clip")
        self.canary_scale = check_positive_real(canary_scale, "canary_scale")
        if not self.canary_scale > 1:
            raise InvalidParameterError(f"canary_scale must exceed 1 (Opacus clips the canary), got {canary_scale!r}")
        self.release = check_choice(release, "release", RELEASES)
        self.absent = check_choice(absent, "absent", ABSENCES)
        check_instance(claim, (PrivacyClaim, type(None)), f"claim must be a PrivacyClaim or None, got {claim!r}")
        self.claim = claim
        self._runs = {}

    @property
    def sample_rate(self) -> float:
        """``q = b / n``, Opacus's ``1 / len(loader)`` on both inputs."""
        return self.batch_size / self.dataset_size

    @property
    def pair(self) -> tuple:
        """``(True, False)``: the canary in the dataset, and absent as :attr:`absent` says."""
        return (True, False)

    @property
    def neighbouring_text(self) -> str:
        """The relation in words."""
        if self.absent == "removed":
            return f"add/remove one record: the canary in the dataset of n = {self.dataset_size} records or removed"
        return f"the canary's input zeroed (n = {self.dataset_size} records on both inputs)"

    def _run(self, present: bool):
        """Model, optimizer, DP data loader and the two generators for one input, built once."""
        key = bool(present)
        if key not in self._runs:
            self._runs[key] = self._build(key)
        return self._runs[key]

    def _build(self, present: bool):
        torch, opacus = _torch_and_opacus()
        from torch.utils.data import DataLoader, TensorDataset

        records = self.dataset_size - (0 if present or self.absent == "zeroed" else 1)
        inputs = torch.zeros(records, 1, dtype=torch.float64)
        if present:
            inputs[0, 0] = self.canary_scale * self.clip
        model = torch.nn.Linear(1, 1, bias=False).to(torch.float64)
        optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
        noise = torch.Generator()
        with warnings.catch_warnings():  # Opacus warns that secure_mode is off: this is a test bench
            warnings.simplefilter("ignore")
            model, optimizer, loader = opacus.PrivacyEngine().make_private(
                module=model,
                optimizer=optimizer,
                data_loader=DataLoader(TensorDataset(inputs), batch_size=self.batch_size),
                noise_multiplier=self.noise_multiplier,
                max_grad_norm=self.clip,
                poisson_sampling=True,
                noise_generator=noise,
            )
        sampling = torch.Generator()
        loader.batch_sampler.generator = sampling
        return torch, model, optimizer, loader, noise, sampling

    def _train(self, present: bool, seeds) -> np.ndarray:
        """One run from the two seeds: the ``T`` applied gradients."""
        torch, model, optimizer, loader, noise, sampling = self._run(present)
        noise.manual_seed(int(seeds[0]))
        sampling.manual_seed(int(seeds[1]))
        weight = next(model.parameters())
        with torch.no_grad():
            weight.zero_()
        applied = np.empty(self.steps)
        batches = iter(loader)
        for step in range(self.steps):
            batch = next(batches, None)
            if batch is None:  # a new epoch of the loader
                batches = iter(loader)
                batch = next(batches)
            optimizer.zero_grad()
            model(batch[0]).sum().backward()
            optimizer.step()
            applied[step] = float(weight.grad.item())
        return applied

    def sample(self, data, size, rng):
        """``size`` runs (an array of shape ``(size, steps)``, or ``(size,)`` for ``release="final"``;
        one output for ``size=None``), each seeded from ``rng``."""
        if not isinstance(data, (bool, np.bool_)):
            raise InvalidParameterError(f"the data is True (the canary in) or False (absent), got {data!r}")
        count = 1 if size is None else check_positive_int(size, "size")
        seeds = rng.integers(0, 2**63 - 1, size=(count, 2))
        with warnings.catch_warnings():  # PyTorch's note on the full backward hook of a model without input grads
            warnings.filterwarnings("ignore", message="Full backward hook")
            runs = np.stack([self._train(bool(data), pair) for pair in seeds])
        out = -runs.sum(axis=1) if self.release == "final" else runs
        return out[0] if size is None else out

    def __call__(self, data, rng):
        return self.sample(data, None, rng)

    def __getstate__(self):  # the built runs hold torch objects: rebuild them where unpickled
        state = dict(self.__dict__)
        state["_runs"] = {}
        return state

    def __repr__(self) -> str:
        return (
            f"OpacusCanaryLoop(noise_multiplier={self.noise_multiplier:g}, steps={self.steps}, "
            f"dataset_size={self.dataset_size}, batch_size={self.batch_size}, clip={self.clip:g}, "
            f"release={self.release!r}, absent={self.absent!r})"
        )
