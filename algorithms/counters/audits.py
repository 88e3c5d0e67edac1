"""Counters as dpverify mechanisms with a small output space, for searched privacy audits.

A counter releases ``y = A (M x + Z)`` with independent ``Z_k ~ Lap(b_k)``
(:class:`~algorithms.counters.structure.LaplaceLinearStructure`). Its raw output
is a real vector, on which an audit has to find a good event among many; the
map :class:`NodeThresholds` post-processes it, with no reference to any input,
into a 0/1 vector over stream positions: coordinate ``i`` says that every recovered noisy
node ``(A^-1 y)_k = (M x)_k + Z_k`` containing position ``i`` is at or above a
fixed threshold ``tau``. Post-processing cannot increase the loss, and this one
loses nothing on the pairs that matter: for streams over {0, 1} that differ in
position ``i`` (all zeros against a 1 at ``i``), a node containing ``i`` is
above ``tau = 1`` with probability ``1/2`` under the stream with the 1 and
``exp(-1/b_k) / 2`` under the zeros (Laplace tail), and the other nodes do not
depend on ``i``, so the event "coordinate ``i`` is 1" has log ratio
``sum_{k ni i} 1/b_k``: the structure's exact loss
at ``i`` (:meth:`~algorithms.counters.structure.LaplaceLinearStructure.exact_epsilon`
at the worst position). Which position and which base stream is what a
search audit (:func:`dpverify.search_audit` over :func:`dpverify.neighbours.streams`)
has to find.

References
----------
.. [1] T.-H. H. Chan, E. Shi, D. Song, "Private and Continual Release of Statistics", ACM TISSEC
   14(3), 2011 (binary, logarithmic and hybrid mechanisms).
.. [2] C. Dwork, A. Roth, "The Algorithmic Foundations of Differential Privacy", 2014,
   Proposition 2.1 (post-processing).
"""

from __future__ import annotations

import numpy as np

__all__ = ["NodeThresholds", "position_event_loss", "nodes_loss", "hybrid_binary_nodes"]


class NodeThresholds:
    """Counter output -> for each position, whether its recovered noisy nodes are all at or above ``threshold``.

    Parameters
    ----------
    mechanism : counter mechanism
        A dpverify mechanism of :mod:`algorithms.counters` (``sample(stream, size, rng)``
        returns the ``(size, T)`` output sequences).
    structure : LaplaceLinearStructure
        The mechanism's structure at the stream length audited (its output map
        must be injective on the used nodes, as it is for the binary, logarithmic
        and hybrid counters).
    threshold : float, default 1.0
        ``tau``; the same for every node and every input.
    nodes : array_like of int, optional
        Look at these nodes only (indices of the structure's nodes, all used):
        coordinate ``i`` then says that every one of *these* nodes containing ``i``
        is at or above ``tau`` (always 1 where none contains ``i``). Default: every
        used node. A subset is still a post-processing of the output; its exact
        loss is :func:`nodes_loss` (e.g. the binary part of the hybrid counter,
        :func:`hybrid_binary_nodes`, whose loss its own noise scale alone sets).

    Notes
    -----
    ``sample`` returns a ``(size, T)`` int64 array, ``[i] = prod_{k ni i} [z_k >= tau]``
    (an integer vector: the audit's events include "coordinate ``i`` >= 1", the
    event of the module docstring). ``epsilon`` is the counter's.
    """

    def __init__(self, mechanism, structure, threshold: float = 1.0, nodes=None):
        self.mechanism = mechanism
        used = structure.used_nodes()
        kept = _kept_nodes(structure, nodes)
        self.recover = np.linalg.pinv(structure.output_map[:, used]).T[:, np.isin(used, kept)]
        self.contains = structure.incidence[kept].astype(np.int64)  # (kept nodes, positions)
        self.threshold = float(threshold)
        self.epsilon = mechanism.epsilon

    def sample(self, stream, size, rng=None):
        y = np.asarray(self.mechanism.sample(stream, size, rng), dtype=np.float64)
        below = ((y @ self.recover) < self.threshold - 1e-9).astype(np.int64)  # tolerance: a float solve
        return ((below @ self.contains) == 0).astype(np.int64)  # (size, positions)

    def __call__(self, stream, rng=None):
        return self.sample(stream, 1, rng)[0]


def _kept_nodes(structure, nodes) -> np.ndarray:
    """The used nodes ``nodes`` names (default: every used node), sorted; a node not used is an error."""
    used = structure.used_nodes()
    if nodes is None:
        return used
    kept = np.unique(np.asarray(nodes, dtype=np.int64))
    if kept.size == 0 or not np.isin(kept, used).all():
        raise ValueError(f"nodes must be a non-empty subset of the used nodes {used.tolist()}, got {kept.tolist()}")
    return kept


def position_event_loss(structure, position: int, nodes=None) -> float:
    """Log ratio ``sum_{k containing position} 1 / b_k`` of the event of the module docstring,
    over the used nodes (or over ``nodes``, as :class:`NodeThresholds` takes them)."""
    kept = _kept_nodes(structure, nodes)
    return float((structure.incidence[kept, position] / structure.scales[kept]).sum())


def nodes_loss(structure, nodes=None) -> float:
    """Exact loss of :class:`NodeThresholds` (over ``nodes``) for streams over [0, 1] that differ in one item.

    At most ``max_i sum_{k in nodes containing i} 1 / b_k`` (the loss of those
    Laplace nodes, each moved by at most 1); attained by the event "coordinate
    ``i`` is 1" on the all-zeros stream against a 1 at the worst ``i``
    (:func:`position_event_loss`), so the maximum is the exact loss.
    """
    return max(position_event_loss(structure, i, nodes) for i in range(structure.incidence.shape[1]))


def hybrid_binary_nodes(structure) -> np.ndarray:
    """The used nodes of the binary part of :func:`~algorithms.counters.structure.hybrid_structure`
    (those after its logarithmic nodes, which come first; their number does not depend on epsilon)."""
    from .structure import logarithmic_structure

    n_log = logarithmic_structure(structure.incidence.shape[1], 1.0).incidence.shape[0]
    used = structure.used_nodes()
    return used[used >= n_log]
