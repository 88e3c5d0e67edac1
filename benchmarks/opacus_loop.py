"""Opacus's own DP-SGD loop audited: its speed as a mechanism, its accountants' claims, and one run end to end.

A script, CPU only (needs ``pip install 'dpverify[training]'``: opacus and PyTorch; and scikit-learn)::

    python benchmarks/opacus_loop.py rates      # runs per second of OpacusCanaryLoop
    python benchmarks/opacus_loop.py claims     # the loop against Opacus's PRV and RDP claims
    python benchmarks/opacus_loop.py one-run [--epsilons 2 4 8] [--canaries 1000] [--epochs 20]
    python benchmarks/opacus_loop.py one-run-gradient --epochs 10 [--epsilons 2 4 8] [--canaries 1000]

``one-run`` trains a logistic regression with Opacus (Poisson sampling) on scikit-learn's digits
(1,797 images of 8x8 pixels, shipped with scikit-learn) plus mislabelled canaries, each put in the
training set with probability 1/2 (:func:`dpverify.audits.one_run.canary_inclusions`), once per
target epsilon; scores each canary by the log-probability the model gives its wrong label, and
prints Opacus's PRV claim beside the one-run lower bounds (:func:`dpverify.one_run_audit` at the
claim's delta, :func:`dpverify.one_run_fdp_audit`'s mu) and the training time. ``one-run-gradient``
does the same with white-box gradient canaries (one weight per canary, each canary's gradient a
unit vector on its own weight, its score the log likelihood ratio of its coordinate's noisy
gradients step by step). No command here
runs in the test suite; the figures are in docs/auditor/benchmarks.md.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import dpverify

DELTA = 1e-5


def rates(steps_list=(1, 10), runs: int = 300) -> list:
    """(steps, runs per CPU second, runs per wall second) of OpacusCanaryLoop(1, T, 1000, 100)."""
    import torch

    from dpverify.extras.opacus_loop import OpacusCanaryLoop

    torch.set_num_threads(1)
    rows = []
    for steps in steps_list:
        loop = OpacusCanaryLoop(1.0, steps, 1000, 100)
        loop.sample(True, 2, np.random.default_rng(0))  # build Opacus's objects first
        cpu, wall = time.process_time(), time.perf_counter()
        loop.sample(True, runs, np.random.default_rng(1))
        rows.append((steps, runs / (time.process_time() - cpu), runs / (time.perf_counter() - wall)))
    return rows


def claims(n_samples: int = 2500, seeds=(3, 4)) -> list:
    """The loop (sigma 0.5, one step at q 0.5, final weight) against Opacus's PRV and RDP claims at
    delta 0.05 and against the PRV claim for sigma 2: (claim, seed, certified epsilon, violation, CPU s)."""
    import torch

    from dpverify.extras.accountants import opacus_prv_claim, opacus_rdp_claim
    from dpverify.extras.opacus_loop import OpacusCanaryLoop

    torch.set_num_threads(1)
    loop = OpacusCanaryLoop(0.5, 1, 200, 100, release="final")
    q = loop.sample_rate
    rows = []
    for name, claim in (
        ("PRV, sigma 0.5", opacus_prv_claim(0.5, q, 1, 0.05)),
        ("RDP, sigma 0.5", opacus_rdp_claim(0.5, q, 1, delta=0.05)),
        ("PRV, sigma 2", opacus_prv_claim(2.0, q, 1, 0.05)),
    ):
        for seed in seeds:
            cpu = time.process_time()
            result = dpverify.audit(loop, *loop.pair, claim=claim, n_samples=n_samples, seed=seed, alpha=1e-6)
            rows.append(
                (name, claim.epsilon, seed, result.epsilon_lower_bound, result.violation, time.process_time() - cpu)
            )
    return rows


def _digits_with_canaries(n_canaries: int, seed: int):
    """Digits standardised; the last ``n_canaries`` images become canaries with a wrong label
    (true label plus 1-9 mod 10, drawn from ``seed``); the rest are the training records."""
    from sklearn.datasets import load_digits

    x, y = load_digits(return_X_y=True)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(y))
    x, y = (x[order] - x.mean(axis=0)) / (x.std(axis=0) + 1e-6), y[order]
    canary_x, canary_y = x[-n_canaries:], (y[-n_canaries:] + rng.integers(1, 10, n_canaries)) % 10
    return x[:-n_canaries], y[:-n_canaries], canary_x, canary_y


def _make_private(model, optimizer, data, batch_size: int, noise_multiplier: float):
    """Opacus's ``make_private`` with Poisson sampling and clipping 1 on a DataLoader of ``data``."""
    from opacus import PrivacyEngine
    from torch.utils.data import DataLoader

    return PrivacyEngine().make_private(
        module=model,
        optimizer=optimizer,
        data_loader=DataLoader(data, batch_size=batch_size),
        noise_multiplier=noise_multiplier,
        max_grad_norm=1.0,
        poisson_sampling=True,
    )


def _one_run_bounds(scores, included, sigma, q, steps) -> tuple:
    """(PRV claim's epsilon, one_run_audit's epsilon bound, its violation, one_run_fdp_audit's mu bound)."""
    from dpverify.extras.accountants import opacus_prv_claim

    claim = opacus_prv_claim(sigma, q, steps, DELTA)
    eps_bound = dpverify.one_run_audit(scores, included, claim=claim)
    mu_bound = dpverify.one_run_fdp_audit(scores, included)
    return claim.epsilon, eps_bound.epsilon_lower_bound, eps_bound.violation, mu_bound.lower_bound


def train_once(noise_multiplier: float, epochs: int, x, y, batch_size: int, seed: int):
    """One Opacus training run (Poisson sampling, clipping 1, SGD at learning rate 0.5) of a
    64-to-10 logistic regression; returns the model, the sampling rate, the steps and CPU seconds."""
    import torch
    from torch.utils.data import TensorDataset

    torch.manual_seed(seed)
    model = torch.nn.Linear(x.shape[1], 10)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    data = TensorDataset(torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.long))
    model, optimizer, loader = _make_private(model, optimizer, data, batch_size, noise_multiplier)
    loss = torch.nn.CrossEntropyLoss()
    cpu, steps = time.process_time(), 0
    for _ in range(epochs):
        for batch_x, batch_y in loader:
            if len(batch_y) == 0:
                continue
            optimizer.zero_grad()
            loss(model(batch_x), batch_y).backward()
            optimizer.step()
            steps += 1
    return model, 1 / len(loader), epochs * len(loader), time.process_time() - cpu


def one_run(epsilons=(2.0, 4.0, 8.0), n_canaries: int = 1000, epochs: int = 20, batch_size: int = 64, seed: int = 7):
    """For each target epsilon at delta 1e-5: the noise multiplier Opacus picks for it, one training run
    with the included canaries, the canaries' scores, and the two one-run bounds against the PRV claim."""
    import torch
    from opacus.accountants.utils import get_noise_multiplier

    from dpverify.audits.one_run import canary_inclusions

    torch.set_num_threads(1)
    train_x, train_y, canary_x, canary_y = _digits_with_canaries(n_canaries, seed)
    included = canary_inclusions(n_canaries, seed=seed)
    x = np.concatenate([train_x, canary_x[included]])
    y = np.concatenate([train_y, canary_y[included]])
    rows = []
    for epsilon in epsilons:
        q = 1 / -(-len(y) // batch_size)
        sigma = get_noise_multiplier(
            target_epsilon=epsilon, target_delta=DELTA, sample_rate=q, epochs=epochs, accountant="prv"
        )
        model, q, steps, cpu = train_once(sigma, epochs, x, y, batch_size, seed)
        with torch.no_grad():
            logits = model(torch.tensor(canary_x, dtype=torch.float32))
            scores = torch.log_softmax(logits, dim=1)[np.arange(n_canaries), canary_y].numpy().astype(float)
        rows.append((epsilon, sigma, *_one_run_bounds(scores, included, sigma, q, steps), steps, cpu))
    return rows


def _poisson_log_likelihood_ratio(z, q, sigma) -> np.ndarray:
    """Per canary, ``sum_t log(1 - q + q exp((z_t - 1/2) / sigma^2))``: the log likelihood ratio of its
    per-step sums ``z_t`` (in units of the clipping norm) under the accountant's model, canary in (each
    step a shift of 1 with probability ``q``) against out. A declared score: any score keeps the
    one-run bounds valid; this one is the most powerful for that model."""
    return np.logaddexp(np.log1p(-q), np.log(q) + (z - 0.5) / sigma**2).sum(axis=0)


def one_run_gradient(
    epsilons=(2.0, 4.0, 8.0), n_canaries: int = 1000, epochs: int = 10, fillers: int = 4000, seed: int = 7
):
    """White-box gradient canaries in one Opacus run: a linear model with one weight per canary
    (``torch.nn.Linear(m, 1, bias=False)``, the loss the sum of the outputs); canary ``i``'s input is
    ``10 e_i``, so Opacus clips its gradient to ``e_i`` (clipping 1); ``fillers`` records of input 0 fill
    the dataset (batch size 250). Each canary is included with probability 1/2; its score is the log
    likelihood ratio of the noisy gradients the optimizer applied on its coordinate, step by step (the
    auditor sees every intermediate model). Per target epsilon at delta 1e-5: the PRV claim beside
    the two one-run bounds."""
    import torch
    from opacus.accountants.utils import get_noise_multiplier
    from torch.utils.data import TensorDataset

    from dpverify.audits.one_run import canary_inclusions

    batch_size = 250
    torch.set_num_threads(1)
    included = canary_inclusions(n_canaries, seed=seed)
    inputs = np.zeros((int(included.sum()) + fillers, n_canaries))
    inputs[np.arange(int(included.sum())), np.flatnonzero(included)] = 10.0
    rows = []
    for epsilon in epsilons:
        torch.manual_seed(seed)
        q = 1 / -(-len(inputs) // batch_size)
        sigma = get_noise_multiplier(
            target_epsilon=epsilon, target_delta=DELTA, sample_rate=q, epochs=epochs, accountant="prv"
        )
        model = torch.nn.Linear(n_canaries, 1, bias=False)
        torch.nn.init.zeros_(model.weight)
        optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
        data = TensorDataset(torch.tensor(inputs, dtype=torch.float32))
        model, optimizer, loader = _make_private(model, optimizer, data, batch_size, sigma)
        cpu, applied = time.process_time(), []
        for _ in range(epochs):
            for (batch,) in loader:
                optimizer.zero_grad()
                model(batch).sum().backward()
                optimizer.step()
                applied.append(next(model.parameters()).grad.detach().numpy().ravel().astype(float))
        cpu = time.process_time() - cpu
        scores = _poisson_log_likelihood_ratio(np.array(applied) * optimizer.expected_batch_size, q, sigma)
        steps = epochs * len(loader)
        rows.append((epsilon, sigma, *_one_run_bounds(scores, included, sigma, q, steps), steps, cpu))
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("rates", "claims", "one-run", "one-run-gradient"))
    parser.add_argument("--epsilons", type=float, nargs="+", default=[2.0, 4.0, 8.0])
    parser.add_argument("--canaries", type=int, default=1000)
    parser.add_argument("--epochs", type=int, default=20)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message="(Secure RNG|Full backward hook|Optimal order)")
    if args.what == "rates":
        for steps, cpu, wall in rates():
            print(f"T = {steps}: {cpu:.0f} runs per CPU second, {wall:.0f} per wall second")
    elif args.what == "claims":
        for name, claimed, seed, bound, violation, cpu in claims():
            print(
                f"{name}: claimed {claimed:.3f}, seed {seed}: certified {bound:.3f}, violation {violation}, {cpu:.1f} s"
            )
    else:
        if args.what == "one-run":
            rows = one_run(args.epsilons, args.canaries, args.epochs)
        else:
            rows = one_run_gradient(args.epsilons, args.canaries, args.epochs)
        for epsilon, sigma, claimed, bound, violation, mu, steps, cpu in rows:
            print(
                f"target eps {epsilon:g}: sigma {sigma:.3f}, {steps} steps ({cpu:.1f} CPU s); PRV claim {claimed:.3f} "
                f"at delta {DELTA:g}; one run: eps >= {bound:.3f} (violation {violation}), mu >= {mu:.3f}"
            )


if __name__ == "__main__":
    main()
