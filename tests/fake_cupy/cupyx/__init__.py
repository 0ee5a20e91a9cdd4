"""`cupyx` for tests: scatter operations, pinned host memory, and `allow_synchronize` (sync detection)."""
import contextlib
import numpy as _np
from cupy import _emulation as _emu
from cupy._core import _index, _unwrap, _check_devices, _wrap_key, ndarray as _ndarray
from cupy.cuda import alloc_pinned_memory

def _scatter(ufunc):
    def scatter(a, slices, value):
        if type(a) is not _ndarray: raise TypeError(f'Unsupported type {type(a)}')
        ins = [a]
        k, _ = _index(slices, ins)
        v = _unwrap(value, ins)
        _check_devices(ins)
        try: ufunc.at(a._a, k, v)
        except IndexError: ufunc.at(a._a, _wrap_key(k, a._a.shape), v)
    scatter.__name__ = f'scatter_{ufunc.__name__}'
    return scatter

scatter_add, scatter_max, scatter_min = _scatter(_np.add), _scatter(_np.maximum), _scatter(_np.minimum)

def empty_pinned(shape, dtype=float, order='C'):
    "A NumPy array in page-locked memory: its base is a `cupy.cuda.PinnedMemoryPointer`."
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    dt = _np.dtype(dtype)
    n = int(_np.prod(shape, dtype=_np.int64)) * dt.itemsize
    return _np.ndarray(shape, dt, buffer=alloc_pinned_memory(max(n, 1)), order=order)

def zeros_pinned(shape, dtype=float, order='C'):
    a = empty_pinned(shape, dtype, order)
    a[...] = 0
    return a

def empty_like_pinned(a, dtype=None, order='K', subok=None, shape=None):
    return empty_pinned(a.shape if shape is None else shape, a.dtype if dtype is None else dtype)

def zeros_like_pinned(a, dtype=None, order='K', subok=None, shape=None):
    return zeros_pinned(a.shape if shape is None else shape, a.dtype if dtype is None else dtype)

class DeviceSynchronized(RuntimeError):
    "Raised inside `allow_synchronize(False)` where the host would wait for the device."

@contextlib.contextmanager
def allow_synchronize(allow):
    "With `allow=False`, every sync in the block raises DeviceSynchronized (CuPy's experimental sync detection)."
    prev = _emu.local.forbid_syncs
    _emu.local.forbid_syncs = not allow
    try: yield
    finally: _emu.local.forbid_syncs = prev
