"""
A first search
==============

A privacy claim is about the worst neighbouring pair, and ``dpverify.audit`` bounds only the pair
it is handed. ``dpverify.search_audit`` searches a neighbouring relation first, then certifies what
it found, at the same false-alarm rate alpha however many pairs it screened (the search costs
samples, not confidence).

The mechanism is the report-noisy-max variant that returns the noisy *value* instead of its index,
which Lyu, Su and Li (2017) show is not epsilon-DP: its loss is 2.5 times the claim on the worst
query vectors. The relation is StatDP's neighbouring query vectors (Ding et al. 2018).
"""

import dpverify
from dpverify.mechanisms import NoisyMaxValue
from dpverify.neighbours import query_vectors

result = dpverify.search_audit(NoisyMaxValue(1.0), query_vectors(5), epsilon=1.0, n_samples=300_000, seed=1)
print(result.violation, round(result.epsilon_lower_bound, 3))
print("worst pair found:", result.x, result.x_prime)
print(result.draws)  # n_samples is the whole budget: what each step drew per input

# %%
# The certified event here is a floating-point one, but the finding is ``"value"``: value events
# alone (thresholds on the released maximum) certify a violation too, so this is a wrong epsilon
# and not only a rounding artefact (see the float-leak tutorial).
print(result.finding, round(result.value_verdict.epsilon_lower_bound, 3))

# %%
# Every candidate pair that was screened, with the rounds it survived and its screening estimate:
for c in result.candidates[:6]:
    print(c.x, c.x_prime, c.rounds, round(c.predicted_bound, 3))
print(len(result.candidates), "candidates in all")
