"""Parts that need an optional dependency, each imported only when used.

- :mod:`.adapters`: mechanisms of DP libraries (``pip install 'dpverify[adapters]'``);
- :mod:`.report`: HTML and Markdown audit reports with figures (``dpverify[plot]``);
- :mod:`.opacus_loop`: Opacus's own DP-SGD training loop as a mechanism (``dpverify[training]``).

Each module's docstring names its extra; nothing in the core imports them. The leaf helpers that
only *may* use an optional library (arrays of PyTorch, CuPy or JAX; tqdm's progress bars) live in
:mod:`dpverify.support`.
"""
