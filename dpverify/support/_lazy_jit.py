"""``numba.njit`` that imports numba at a kernel's first call, not when its module is imported.

Importing numba costs about 0.1 s (more on a cold disk), and most audits never run a compiled
kernel (:data:`dpverify.pipeline.counting.MIN_COMPILED_OUTPUTS`). :func:`njit` takes the same
options as ``numba.njit`` and returns a :class:`LazyKernel`; at the first call of any lazy kernel
of a module, every lazy kernel of that module is replaced, in the module's namespace, by its
``numba.njit`` dispatcher, so that kernels calling one another compile against dispatchers as
with a plain ``numba.njit``. The dispatchers are those ``numba.njit`` makes from the same
functions (same file, same options, ``cache=True`` reading the same cache): the compiled code and
its results are unchanged.
"""

from __future__ import annotations

import sys

__all__ = ["njit", "LazyKernel"]


class LazyKernel:
    """A function to be compiled with ``numba.njit(**options)`` when first called."""

    def __init__(self, function, options: dict):
        self.py_func = function
        self.options = options
        self.dispatcher = None
        self.__name__ = function.__name__
        self.__qualname__ = function.__qualname__
        self.__doc__ = function.__doc__
        self.__module__ = function.__module__

    def compile_module(self) -> None:
        """Replace every lazy kernel of this kernel's module by its ``numba.njit`` dispatcher."""
        import numba

        namespace = vars(sys.modules[self.__module__])
        for name, value in list(namespace.items()):
            if isinstance(value, LazyKernel):
                if value.dispatcher is None:
                    value.dispatcher = numba.njit(**value.options)(value.py_func)
                namespace[name] = value.dispatcher

    def __call__(self, *args):
        if self.dispatcher is None:
            self.compile_module()
        return self.dispatcher(*args)


def njit(**options):
    """Decorator: as ``numba.njit(**options)``, with numba imported at the first call."""

    def decorate(function) -> LazyKernel:
        return LazyKernel(function, options)

    return decorate
