"""A strict stand-in for CuPy, for tests without a GPU: `import cupy` finds this package when
`LIT_TORCH_EMULATE_CUDA=1` (tests/conftest.py puts tests/fake_cupy first on sys.path).

Every array is a NumPy array wrapped in `cupy.ndarray` (see `_core`), on one of `LIT_TORCH_EMULATE_CUDA_DEVICES`
(default 2) emulated GPUs. Functions are NumPy's, run as CuPy runs them: device arrays in, device arrays out,
NumPy arrays refused, every operand on the current device. Only names that real CuPy has are offered; those not
emulated raise AttributeError saying so. See README.md for what is not emulated.
"""
import numpy as _np
from . import _emulation
from ._core import ndarray, _call, _make, _root, _unwrap, _index, _check_devices, _poison, _local, _host_error
from ._core import _DLPackCapsule

__version__ = '14.0.0'
_emulated = True

# The top-level names of real CuPy (cupy/__init__.py): nothing else may be offered here.
_CUPY_NAMES = frozenset("""
    AxisError ComplexWarning DataSource ElementwiseKernel RankWarning RawKernel RawModule ReductionKernel 
    TooHardError VisibleDeprecationWarning _core abs absolute add all allclose amax amin angle any append 
    apply_along_axis apply_over_axes arange arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin 
    argpartition argsort argwhere around array array2string array_equal array_equiv array_repr array_split 
    array_str asanyarray asarray asarray_chkfinite ascontiguousarray asfarray asfortranarray atleast_1d atleast_2d 
    atleast_3d average bartlett bincount bitwise_and bitwise_count bitwise_not bitwise_or bitwise_xor blackman bool 
    bool_ broadcast broadcast_arrays broadcast_shapes broadcast_to byte byte_bounds c_ cbrt cdouble ceil cfloat 
    choose clear_memo clip column_stack complex128 complex64 complex_ complexfloating compress concatenate conj 
    conjugate convolve copy copysign copyto corrcoef correlate cos cosh count_nonzero cov cross csingle cuda 
    cumprod cumproduct cumsum cumulative_prod cumulative_sum deg2rad degrees delete diag diag_indices 
    diag_indices_from diagflat diagonal diff digitize disp divide divmod dot double dsplit dstack dtype e ediff1d 
    einsum empty empty_like equal euler_gamma exp exp2 expand_dims expm1 extract eye fabs fft fill_diagonal finfo 
    fix flatiter flatnonzero flip fliplr flipud float16 float32 float64 float_ float_power floating floor 
    floor_divide fmax fmin fmod format_float_positional format_float_scientific format_parser frexp fromDlpack 
    from_dlpack frombuffer fromfile fromfunction fromiter fromstring full full_like gcd generic genfromtxt 
    get_array_wrap get_printoptions gradient greater greater_equal half hamming hanning heaviside histogram 
    histogram2d histogramdd hsplit hstack hypot i0 identity iinfo imag in1d index_exp indices inexact inf inner 
    int16 int32 int64 int8 int_ intc integer interp intersect1d intp invert isclose iscomplex iscomplexobj isdtype 
    isfinite isfortran isin isinf isnan isneginf isposinf isreal isrealobj issubdtype iterable ix_ kaiser kron lcm 
    ldexp left_shift less less_equal lexsort linalg linspace load loadtxt log log10 log1p log2 logaddexp logaddexp2 
    logical_and logical_not logical_or logical_xor logspace long longfloat longlong make_aligned_dtype mask_indices 
    matmul matrix_transpose max maximum may_share_memory mean median memoize meshgrid mgrid min min_scalar_type 
    minimum mintypecode mod modf moveaxis msort multiply nan nan_to_num nanargmax nanargmin nancumprod nancumsum 
    nanmax nanmean nanmedian nanmin nanprod nanstd nansum nanvar ndarray ndindex negative nextafter nonzero 
    not_equal number ogrid ones ones_like outer packbits pad partition percentile pi piecewise place poly poly1d 
    polyadd polyfit polymul polynomial polysub polyval positive power printoptions prod product promote_types ptp 
    put putmask quantile r_ rad2deg radians random ravel ravel_multi_index real real_if_close reciprocal remainder 
    repeat require reshape resize right_shift rint roll rollaxis roots rot90 round round_ row_stack s_ safe_eval 
    save savetxt savez savez_compressed searchsorted select set_printoptions set_string_function setdiff1d setxor1d 
    shape shares_memory short sign signbit signedinteger sin sinc single singlecomplex sinh size sort sort_complex 
    split sqrt square squeeze stack std subtract sum swapaxes take take_along_axis tan tanh tensordot tile trace 
    transpose trapezoid tri tril tril_indices tril_indices_from trim_zeros triu triu_indices triu_indices_from 
    true_divide trunc typename ubyte ufunc uint uint16 uint32 uint64 uint8 uintc uintp ulong ulonglong union1d 
    unique unique_all unique_counts unique_inverse unique_values unpackbits unravel_index unsignedinteger unwrap 
    ushort vander var vdot vectorize vsplit vstack where who zeros zeros_like
""".split())

# ---------------------------------------------------------------- ufuncs

class ufunc:
    "A NumPy ufunc run as a CuPy kernel: `__call__`, and the methods CuPy has (`at`, `reduce`, `accumulate`, `outer`)."
    def __init__(self, u, name=None):
        self._u, self.__name__ = u, name or u.__name__
        self.nin, self.nout, self.nargs = u.nin, u.nout, u.nargs
    def __repr__(self): return f"<ufunc '{self.__name__}'>"
    def __call__(self, *args, **kw):
        if 'where' in kw: raise TypeError(f"Wrong arguments {{'where'}}: cupy ufuncs take out, dtype and casting")
        for a in args:   # CuPy takes arrays and scalars only: a list is no array-like for a kernel
            if type(a) in (list, tuple): raise TypeError(f'Unsupported type {type(a)}')
        return _call(self._u, args, kw)
    def at(self, a, indices, b=None):
        if type(a) is not ndarray: raise TypeError(f'Unsupported type {type(a)}')
        ins = [a]
        k, _ = _index(indices, ins)
        v = _unwrap(b, ins)
        _check_devices(ins)
        self._u.at(a._a, k, *(() if b is None else (v,)))
    def reduce(self, *args, **kw): return _call(self._u.reduce, args, kw)
    def accumulate(self, *args, **kw): return _call(self._u.accumulate, args, kw)
    def outer(self, *args, **kw): return _call(self._u.outer, args, kw)
    def reduceat(self, *args, **kw): return _call(self._u.reduceat, args, kw)

_ufuncs = {}

# ---------------------------------------------------------------- creation and transfer

def _to_device(obj, dtype, copy, order='K', ndmin=0):
    "CuPy's `array`: a device array stays (or is copied to the current device), host data is copied over."
    dev = _local.device
    if type(obj) is ndarray:
        if obj._dev != dev: a = _make(_np.array(obj._a, copy=True), dev)   # a peer copy to the current device
        elif copy: return _make(_np.array(obj._a, dtype=dtype, order=order, copy=True, ndmin=ndmin), dev)
        else: a = obj
        if dtype is not None and _np.dtype(dtype) != a.dtype: a = a.astype(dtype)
        if ndmin > a.ndim: a = a.reshape((1,) * (ndmin - a.ndim) + a.shape)
        return a
    if type(obj) in (list, tuple) and _contains_device(obj):
        ins = []
        host = _unwrap(obj, ins)
        _check_devices(ins)
        return _make(_np.array(host, dtype=dtype, ndmin=ndmin), dev)
    _emulation.record('h2d')
    a = _np.array(obj, dtype=dtype, order=order, copy=True, ndmin=ndmin)
    if a.dtype == object: raise ValueError('Unsupported dtype object')
    return _make(a, dev)

def _contains_device(seq):
    return any(type(x) is ndarray or (type(x) in (list, tuple) and _contains_device(x)) for x in seq)

def array(obj, dtype=None, copy=True, order='K', subok=False, ndmin=0, blocking=False):
    "A device array from host data or another device array (copied unless `copy` is False and nothing changes)."
    if subok: raise NotImplementedError
    return _to_device(obj, dtype, copy, order or 'K', ndmin)

def asarray(a, dtype=None, order=None, *, blocking=False):
    "`a` on the current device: the array itself when it is already there with that dtype."
    return _to_device(a, dtype, False, order or 'K')
asanyarray = asarray

def ascontiguousarray(a, dtype=None):
    if type(a) is not ndarray:
        raise TypeError(f"Argument 'a' has incorrect type (expected cupy._core.core._ndarray_base, got {type(a).__name__})")
    return _call(_np.ascontiguousarray, (a,), {'dtype': dtype}, view=True)

def asfortranarray(a, dtype=None):
    if type(a) is not ndarray:
        raise TypeError(f"Argument 'a' has incorrect type (expected cupy._core.core._ndarray_base, got {type(a).__name__})")
    return _call(_np.asfortranarray, (a,), {'dtype': dtype}, view=True)

def asnumpy(a, stream=None, order='C', out=None, *, blocking=True):
    "A host (NumPy) copy of `a`: the device-to-host way back (a sync)."
    if type(a) is ndarray:
        _emulation.record('asnumpy')
        r = _np.array(a._a, order=order, copy=True)
        if out is None: return r
        out[...] = r
        return out
    return _np.asarray(a, order=order)

def get_array_module(*args):
    "`cupy` if any argument is a device array, else `numpy`."
    import sys
    for a in args:
        if type(a) is ndarray: return sys.modules[__name__]
    return _np

def from_dlpack(x, *, device=None, copy=None):
    "A device array sharing memory with `x`, which must come from this emulation (its `__dlpack__`)."
    if type(x) is ndarray: return _make(x._a, x._dev, _root(x))
    cap = x if type(x) is _DLPackCapsule else x.__dlpack__() if hasattr(x, '__dlpack__') else None
    if type(cap) is _DLPackCapsule: return _make(cap.array._a, cap.array._dev, _root(cap.array))
    raise BufferError(f'fake cupy: from_dlpack of {type(x).__name__} is not emulated (only arrays of this emulation)')
fromDlpack = from_dlpack

def copy(a, order='K'):
    "A copy of `a` on the current device."
    if type(a) is not ndarray: return asarray(a).copy()
    return a.copy(order='C' if order == 'K' else order)

def copyto(dst, src, casting='same_kind', where=None):
    "Copy `src` into `dst` with broadcasting; a host array may only be a scalar."
    if isinstance(src, _np.ndarray):
        if src.size != 1: raise ValueError('non-scalar numpy.ndarray cannot be used for copyto')
        src = src.squeeze()[()]
    ins = [dst]
    s, w = _unwrap(src, ins), _unwrap(where, ins)
    _check_devices(ins)
    _np.copyto(dst._a, s, casting=casting, where=True if w is None else w)

def _creation(f, poison=False):
    def make(*args, **kw):
        ins = []   # a `*_like` reads only its model's shape and dtype: no kernel, no device check
        r = _make(_np.asarray(f(*_unwrap(args, ins), **{k: _unwrap(v, ins) for k, v in kw.items()})), _local.device)
        if poison: _poison(r._a)
        return r
    make.__name__ = f.__name__
    return make

def shape(a): return a.shape if type(a) is ndarray else _np.shape(a)
def ndim(a): return a.ndim if type(a) is ndarray else _np.ndim(a)
def size(a, axis=None): return (a.size if axis is None else a.shape[axis]) if type(a) is ndarray else _np.size(a, axis)

def may_share_memory(a, b, max_work=None):
    return type(a) is ndarray and type(b) is ndarray and bool(_np.may_share_memory(a._a, b._a))
def shares_memory(a, b, max_work=None):
    return type(a) is ndarray and type(b) is ndarray and bool(_np.shares_memory(a._a, b._a))

def _syncing(f):
    "A function whose output size depends on the data: CuPy synchronizes to learn it."
    def g(*args, **kw):
        _emulation.record('implicit')
        return _call(f, args, kw)
    g.__name__ = f.__name__
    return g

def where(condition, x=None, y=None):
    if x is None and y is None: return nonzero(condition)
    if (x is None) != (y is None): raise ValueError('Must give either both or none of x and y')
    return _call(_np.where, (condition, x, y), None)

def einsum(*operands, **kwargs):
    bad = set(kwargs) - {'dtype', 'optimize'}
    if bad: raise TypeError(f'Wrong arguments {bad}: cupy.einsum takes dtype and optimize only')
    return _call(_np.einsum, operands, kwargs)

def take(a, indices, axis=None, out=None):
    "CuPy's take: out-of-bounds indices wrap around (NumPy's mode='wrap')."
    return _call(_np.take, (a, indices, axis, out, 'wrap'), None)

def take_along_axis(a, indices, axis):
    "CuPy's take_along_axis: out-of-bounds indices wrap around."
    if type(indices) is ndarray and axis is not None: indices = indices % a.shape[axis]
    return _call(_np.take_along_axis, (a, indices, axis), None)

class _Grid:
    def __init__(self, g): self._g = g
    def __getitem__(self, key): return _call(self._g.__getitem__, (key,), None)
ogrid, mgrid = _Grid(_np.ogrid), _Grid(_np.mgrid)

def is_available(): return _emulation.device_count() > 0

class _MemoryPool:
    "Enough of CuPy's memory pools for code that reports or frees memory (all memory here is NumPy's)."
    def used_bytes(self): return 0
    def total_bytes(self): return 0
    def free_all_blocks(self, stream=None): pass
    def n_free_blocks(self): return 0
    def set_limit(self, size=None, fraction=None): pass
    def get_limit(self): return 0
_pool, _pinned_pool = _MemoryPool(), _MemoryPool()
def get_default_memory_pool(): return _pool
def get_default_pinned_memory_pool(): return _pinned_pool

# ---------------------------------------------------------------- the namespace

_VIEWS = {'reshape', 'ravel', 'transpose', 'permute_dims', 'swapaxes', 'moveaxis', 'rollaxis', 'squeeze',
          'expand_dims', 'broadcast_to', 'broadcast_arrays', 'atleast_1d', 'atleast_2d', 'atleast_3d', 'split',
          'array_split', 'hsplit', 'vsplit', 'dsplit', 'diagonal', 'real', 'imag', 'flip', 'fliplr', 'flipud',
          'rot90', 'matrix_transpose'}
_CREATION = {'zeros', 'ones', 'full', 'zeros_like', 'ones_like', 'full_like', 'arange', 'linspace', 'logspace',
             'eye', 'identity', 'tri', 'indices', 'diag_indices', 'tril_indices', 'triu_indices'}
_SYNCING = {'nonzero', 'argwhere', 'flatnonzero', 'unique', 'unique_values', 'unique_counts', 'unique_inverse',
            'unique_all', 'extract', 'compress', 'bincount', 'intersect1d', 'union1d', 'setdiff1d', 'setxor1d',
            'trim_zeros', 'histogram'}
_HOST = {'dtype', 'finfo', 'iinfo', 'result_type', 'promote_types', 'can_cast', 'min_scalar_type', 'issubdtype',
         'isdtype', 'isscalar', 'broadcast_shapes', 'common_type', 'mintypecode', 'typename', 'e', 'euler_gamma',
         'inf', 'nan', 'newaxis', 'pi', 'AxisError', 'ComplexWarning', 'VisibleDeprecationWarning', 'RankWarning',
         'TooHardError', 'iterable', 'ndindex', 'index_exp', 's_', 'get_printoptions', 'set_printoptions', 'printoptions',
         'format_float_positional', 'format_float_scientific', 'bool', 'long', 'ulong'}

_here = globals()
for _name in sorted(_CUPY_NAMES):
    if _name in _here or _name.startswith('_'): continue
    _obj = getattr(_np, _name, None)
    if _obj is None and _name in ('bool', 'long', 'ulong', 'float_', 'complex_', 'cfloat', 'singlecomplex', 'longfloat'):
        _obj = {'bool': _np.bool_, 'long': _np.int_, 'ulong': _np.uint, 'float_': _np.float64, 'complex_': _np.complex128,
                'cfloat': _np.complex128, 'singlecomplex': _np.complex64, 'longfloat': None}[_name]
    if _obj is None: continue
    if isinstance(_obj, type) and issubclass(_obj, _np.generic) or _name in _HOST: _here[_name] = _obj
    elif isinstance(_obj, _np.ufunc): _here[_name] = _ufuncs[_name] = ufunc(_obj, _name)
    elif _name == 'empty' or _name == 'empty_like': _here[_name] = _creation(_obj, poison=True)
    elif _name in _CREATION: _here[_name] = _creation(_obj)
    elif _name in _SYNCING: _here[_name] = _syncing(_obj)
    elif callable(_obj) and not isinstance(_obj, type):
        _here[_name] = (lambda f, v: lambda *a, **k: _call(f, a, k, view=v))(_obj, _name in _VIEWS)
        _here[_name].__name__ = _name
for _alias, _name in (('concat', 'concatenate'), ('permute_dims', 'transpose'), ('pow', 'power'), ('acos', 'arccos'),
                      ('asin', 'arcsin'), ('atan', 'arctan'), ('acosh', 'arccosh'), ('asinh', 'arcsinh'),
                      ('atanh', 'arctanh'), ('bitwise_left_shift', 'left_shift'), ('bitwise_right_shift', 'right_shift'),
                      ('bitwise_invert', 'invert')):
    if _name in _here:
        _here[_alias] = _here[_name]
        if isinstance(_here[_name], ufunc): _ufuncs[_alias] = _here[_name]
for _name, _u in list(_ufuncs.items()):   # NumPy's own names for the aliases, for __array_ufunc__
    _ufuncs.setdefault(_u._u.__name__, _u)
del _here, _name, _obj, _alias, _u

from . import cuda, random, lib    # noqa: E402  (they use the functions above)

def __getattr__(name):
    if name in _CUPY_NAMES:
        raise AttributeError(f"cupy.{name} exists in CuPy but is not emulated by tests/fake_cupy (add it there if lit_torch needs it)")
    raise AttributeError(f"module 'cupy' has no attribute '{name}' (real CuPy has none either)")
