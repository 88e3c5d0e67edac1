"""The audit pipeline every driver shares: outputs, sampling, selection, bounds.

- :mod:`.outputs`: raw mechanism outputs to arrays events can count (the code book);
- :mod:`.sampling`: seeded chunks of outputs on any executor, and the streaming
  count of frozen events (:func:`~.sampling.count_events`);
- :mod:`.sampler_check`: a vectorized ``sample()`` checked against the mechanism's
  own call before an audit uses it;
- :mod:`.selection`: the events chosen on the selection sample alone;
- :mod:`.bounds`: Clopper-Pearson bounds and the privacy-loss bounds built on them.

The drivers in :mod:`dpverify.audits` compose these; the event families live in
:mod:`dpverify.events`.
"""
