"""What several of the zoo's mechanisms share: the exact loss from a pmf, and query-answer inputs."""

from __future__ import annotations

import numpy as np

from ..audits.exact import exact_privacy_loss
from ..errors import InvalidParameterError

__all__ = ["PmfPairLoss", "query_answers", "finite_vector", "integer_vector"]


class PmfPairLoss:
    """Mixin: :meth:`pair_epsilon` from the mechanism's exact :meth:`pmf` of each input."""

    def pair_epsilon(self, x, x_prime) -> float:
        """The exact privacy loss on the pair: :func:`dpverify.exact_privacy_loss` of the two pmfs."""
        return exact_privacy_loss(self.pmf(x), self.pmf(x_prime)).epsilon


def finite_vector(data, what: str) -> np.ndarray:
    """``data`` as a non-empty 1-D float vector of finite ``what`` (``"query answers"``, ``"utilities"``).

    Raises
    ------
    InvalidParameterError
        Not 1-D, empty, or with a NaN or infinite entry.
    """
    q = np.asarray(data, dtype=np.float64)
    if q.ndim != 1 or q.size < 1 or not np.all(np.isfinite(q)):
        raise InvalidParameterError(f"the data must be a non-empty 1-D vector of finite {what}, got {data!r}")
    return q


def integer_vector(data, what: str) -> np.ndarray:
    """``data`` as a non-empty 1-D int64 vector of whole-number ``what`` (``"counts"``, ``"stream items"``).

    Raises
    ------
    InvalidParameterError
        Not 1-D, empty, or with an entry that is not a whole number.
    """
    x = np.asarray(data)
    if x.ndim != 1 or x.size < 1 or not np.all(np.equal(np.mod(x, 1), 0)):
        raise InvalidParameterError(f"the data must be a non-empty 1-D vector of integer {what}, got {data!r}")
    return x.astype(np.int64)


def query_answers(data) -> np.ndarray:
    """``data`` as a non-empty 1-D float vector of finite query answers (the input of noisy max and sparse vector)."""
    return finite_vector(data, "query answers")
