"""The audit pipeline every driver shares: outputs, sampling, selection.

- :mod:`.outputs`: raw mechanism outputs to arrays events can count (the code book);
- :mod:`.sampling`: seeded chunks of outputs on any executor, and the streaming
  count of frozen events (:func:`~.sampling.count_events`);
- :mod:`.sampler_check`: a vectorized ``sample()`` checked against the mechanism's
  own call before an audit uses it;
- :mod:`.selection`: the events chosen on the selection sample alone.

The Clopper-Pearson bounds they certify with are :mod:`dpverify.support.bounds` (a leaf the claim
kinds read too).

The drivers in :mod:`dpverify.audits` compose these; the event families live in
:mod:`dpverify.events`.
"""
