"""Parts that need an optional dependency, each imported only when used.

- :mod:`.adapters`: mechanisms of DP libraries (``pip install 'dpverify[adapters]'``);
- :mod:`.arrays`: counting events on PyTorch, CuPy or JAX arrays (``dpverify[arrays]``; the array
  library is the user's);
- :mod:`.report`: HTML and Markdown audit reports with figures (``dpverify[plot]``);
- :mod:`.progress`: progress bars (``dpverify[progress]``; plain lines without tqdm).

Each module's docstring names its extra. Nothing here is imported by ``import dpverify`` unless
the core needs it without the optional dependency (arrays and progress fall back to numpy and
plain lines).
"""
