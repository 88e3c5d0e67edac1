"""Parts that need an optional dependency, each imported only when used.

- :mod:`.adapters`: mechanisms of DP libraries (``pip install 'dpverify[adapters]'``);
- :mod:`.arrays`: counting events on PyTorch, CuPy or JAX arrays (``dpverify[arrays]``; the array
  library is the user's);
- :mod:`.report`: HTML and Markdown audit reports with figures (``dpverify[plot]``);
- :mod:`.progress`: progress bars (``dpverify[progress]``; plain lines without tqdm).

Each module's docstring names its extra. ``arrays`` and ``progress`` are leaf helpers the core
calls (``import dpverify`` loads them): they need only numpy and the standard library and import
the optional library (an array library, tqdm) when it is used, falling back to numpy arrays and
plain lines. ``adapters`` and ``report`` are loaded only when imported.
"""
