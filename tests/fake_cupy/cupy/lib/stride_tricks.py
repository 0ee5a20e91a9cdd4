"`cupy.lib.stride_tricks`: strided views of a device array (no kernel: they stay on the array's device)."
import numpy as _np
from .._core import _make, _root, ndarray as _ndarray

def _check(x):
    if type(x) is not _ndarray: raise TypeError(f'Unsupported type {type(x)}')

def as_strided(x, shape=None, strides=None):
    _check(x)
    return _make(_np.lib.stride_tricks.as_strided(x._a, shape, strides), x._dev, _root(x))

def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    _check(x)
    v = _np.lib.stride_tricks.sliding_window_view(x._a, window_shape, axis, subok=subok, writeable=writeable)
    return _make(v, x._dev, _root(x))
