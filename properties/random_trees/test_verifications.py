"""The family's ``dpverify suite`` verifications run and pass (each is itself a level-1e-6 check or exact)."""

import pytest

from algorithms.random_trees.verifications import verifications


def test_names_are_unique_and_prefixed():
    names = [v.name for v in verifications()]
    assert len(names) == len(set(names)) == 4
    assert all(name.startswith("random-spanning-trees/") for name in names)


@pytest.mark.parametrize("verification", verifications(), ids=lambda v: v.name.split("/")[1])
def test_verification_passes(verification):
    outcome = verification.run(12345)
    assert outcome.passed, outcome.details
    assert outcome.details
