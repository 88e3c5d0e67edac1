"""Leaf helpers any layer of dpverify may call: numpy and the standard library only (scipy's special
functions imported where used).

- :mod:`.bounds`: Clopper-Pearson bounds and the privacy-loss bounds built on them (the claim kinds'
  event bounds and every driver's certification);
- :mod:`.power`: what a certification budget could have seen (the smallest excess over an (epsilon,
  delta) claim it resolves), for the power note of an audit that found nothing;
- :mod:`.arrays`: counting events on PyTorch, CuPy or JAX arrays, where the samples live
  (the array library is the user's; ``dpverify[arrays]`` adds array-api-compat);
- :mod:`.progress`: progress bars (tqdm with ``dpverify[progress]``, plain lines without);
- :mod:`._lazy_jit`: ``numba.njit`` that imports numba at a kernel's first call (the compiled
  counting of :mod:`dpverify.pipeline.counting` and the float-event kernels of
  :mod:`dpverify.events._float_kernels`).

An optional library is imported only when used, with a fallback (numpy arrays, plain lines), so
these belong to the lowest layer; :mod:`dpverify.extras` holds what needs an optional dependency
to import at all.
"""
