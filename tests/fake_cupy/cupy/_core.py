"""The emulated `cupy.ndarray`: a NumPy array that lives on an emulated device and behaves, at its edges, as CuPy's does.

What it enforces, each as CuPy does (the messages are CuPy's):
- it is not a `numpy.ndarray`, and refuses implicit conversion (`__array__` raises TypeError); `.get()`,
  `cupy.asnumpy` and the scalar conversions (`float`, `int`, `bool`, `item`, `tolist`) are the ways back to the host,
  and each of them is logged as a sync;
- a NumPy array given where a device array is expected raises TypeError ("Unsupported type"); NumPy functions
  called on device arrays dispatch to the emulated function (`__array_function__`/`__array_ufunc__`), as in CuPy;
- an array records the device that was current when it was allocated; a kernel (any op that computes) on an
  array of another device raises ValueError, as CuPy does where peer access is unavailable; views (reshape,
  transpose, basic indexing) stay on their base's device and need no context;
- reductions and integer indexing give 0-d device arrays, never host scalars; `__index__` is missing, so a
  device scalar cannot silently become a Python int;
- `empty` and `empty_like` are filled with garbage (NaN, or the dtype's largest value), so code that reads
  uninitialised memory fails here as it may on a GPU.
"""
import weakref
import warnings
import numpy as np
from . import _emulation as _emu

_local = _emu.local

# ---------------------------------------------------------------- dtypes, devices

_SUPPORTED_KINDS = frozenset('biufc')

def _check_dtype(dt):
    if dt.kind not in _SUPPORTED_KINDS: raise ValueError(f'Unsupported dtype {dt}')

def _peer_error(array_dev, dev):
    return ValueError(f'The device where the array resides ({array_dev}) is different from the current device '
                      f'({dev}). Peer access is unavailable between these devices.')

def _check_devices(arrays, dev=None):
    "A kernel runs on the current device: every array it touches must live there."
    dev = _local.device if dev is None else dev
    for a in arrays:
        if a._dev != dev: raise _peer_error(a._dev, dev)

_roots = weakref.WeakValueDictionary()   # id -> every allocation, so a raw pointer can be traced back to its device (for NCCL)

# ---------------------------------------------------------------- wrapping and unwrapping

def _make(a, dev, base=None):
    "Wrap the NumPy array `a` as a device array on `dev`; `base` is the device array whose memory it views."
    _check_dtype(a.dtype)
    o = object.__new__(ndarray)
    o._a, o._dev, o._base = a, dev, base
    if base is None: _roots[id(o)] = o
    return o

def _root(x): return x if x._base is None else x._base

def _host_error(x): return TypeError(f'Unsupported type {type(x)}')

def _unwrap(x, ins, host_ok=False):
    "The NumPy value of an argument: device arrays are unwrapped (and collected in `ins`), NumPy arrays refused."
    t = type(x)
    if t is ndarray:
        ins.append(x)
        return x._a
    if t is list or t is tuple: return t(_unwrap(v, ins, host_ok) for v in x)
    if isinstance(x, np.ndarray):
        if not host_ok: raise _host_error(x)
        _emu.record('h2d')
    return x

def _unwrap_kw(kw, ins):
    return {k: _unwrap(v, ins) for k, v in kw.items()} if kw else kw

def _rewrap(r, ins, dev):
    "Wrap NumPy results: the very array of an input is that input; an array sharing an input's memory is a view on its device; anything else is new, on `dev`."
    if isinstance(r, np.ndarray):
        for i in ins:
            if r is i._a: return i
        for i in ins:
            if np.may_share_memory(r, i._a): return _make(r, i._dev, _root(i))
        return _make(r, dev)
    if isinstance(r, np.generic): return _make(np.asarray(r), dev)   # CuPy's reductions give 0-d arrays
    if type(r) is tuple or type(r) is list: return type(r)(_rewrap(v, ins, dev) for v in r)
    return r

def _call(fn, args, kw, view=False, host_ok=False):
    """Run the NumPy function `fn` as a CuPy kernel: device arrays only, all on the current device.
    With `view`, `fn` may return views of its inputs (no kernel, no device check) and is checked only if it copied."""
    if _emu.inflight: _emu.drain()   # stream order: a kernel starts after the NCCL calls queued before it
    ins = []
    a = _unwrap(args, ins, host_ok)
    k = _unwrap_kw(kw, ins)
    dev = _local.device
    if not view: _check_devices(ins, dev)
    r = fn(*a, **(k or {}))
    if view:
        outs = r if type(r) in (tuple, list) else (r,)
        if any(isinstance(o, np.ndarray) and not any(np.may_share_memory(o, i._a) for i in ins) for o in outs):
            _check_devices(ins, dev)
    return _rewrap(r, ins, dev)

def _poison(a):
    "Fill uninitialised memory with values no correct program relies on."
    if a.size == 0: return a
    k = a.dtype.kind
    a.fill(np.nan if k in 'fc' else (True if k == 'b' else np.iinfo(a.dtype).max))
    return a

# ---------------------------------------------------------------- memory pointers and flags

class MemoryPointer:
    "`ndarray.data`: the address of the array's first element and the device it is on."
    __slots__ = ('ptr', 'device_id', 'mem')
    def __init__(self, a):
        self.ptr, self.device_id, self.mem = a._a.ctypes.data if a._a.size else 0, a._dev, _root(a)
    @property
    def device(self):
        from .cuda import Device
        return Device(self.device_id)
    def __int__(self): return self.ptr
    def __add__(self, n):
        p = object.__new__(MemoryPointer); p.ptr, p.device_id, p.mem = self.ptr + n, self.device_id, self.mem
        return p

class _Flags:
    __slots__ = ('c_contiguous', 'f_contiguous', 'owndata')
    def __init__(self, a):
        self.c_contiguous, self.f_contiguous, self.owndata = a._a.flags.c_contiguous, a._a.flags.f_contiguous, a._base is None
    def __getitem__(self, name):
        return {'C_CONTIGUOUS': self.c_contiguous, 'F_CONTIGUOUS': self.f_contiguous, 'OWNDATA': self.owndata}[name]
    def __repr__(self): return f'  C_CONTIGUOUS : {self.c_contiguous}\n  F_CONTIGUOUS : {self.f_contiguous}\n  OWNDATA : {self.owndata}'

class _DLPackCapsule:
    "What `__dlpack__` hands out: only the emulated `from_dlpack` can read it."
    __slots__ = ('array',)
    def __init__(self, array): self.array = array

# ---------------------------------------------------------------- indexing

def _index(key, ins):
    "The NumPy form of an index, and whether it is advanced (arrays, lists: a gather/scatter kernel)."
    adv = False
    def one(k):
        nonlocal adv
        t = type(k)
        if t is ndarray: adv = True; ins.append(k); return k._a
        if isinstance(k, np.ndarray):
            adv = True; _emu.record('h2d'); return k
        if t is list: adv = True; return k
        if isinstance(k, (bool, np.bool_)): adv = True
        return k
    return (tuple(one(k) for k in key) if type(key) is tuple else one(key)), adv

def _wrap_key(k, shape):
    """CuPy wraps out-of-bounds integer array indices around (`a[[1, 3]]` of 3 elements is `a[[1, 0]]`) where NumPy
    raises: the same key with every integer array taken modulo the size of the axis it indexes."""
    items = list(k) if type(k) is tuple else [k]
    used = sum(0 if i is None else (np.ndim(i) if getattr(i, 'dtype', None) == np.bool_ else 1) for i in items if i is not Ellipsis)
    out, axis = [], 0
    for i in items:
        if i is Ellipsis: out.append(i); axis += len(shape) - used; continue
        if i is None: out.append(i); continue
        a = np.asarray(i) if isinstance(i, (list, np.ndarray)) else None
        if a is not None and a.dtype.kind in 'iu' and axis < len(shape) and shape[axis]: out.append(a % shape[axis]); axis += 1
        else: out.append(i); axis += a.ndim if a is not None and a.dtype == np.bool_ else 1
    return tuple(out) if type(k) is tuple else out[0]

def _gather(a, k):
    try: return a[k]
    except IndexError: return a[_wrap_key(k, a.shape)]

def _is_mask(k):
    return any(getattr(i, 'dtype', None) == np.bool_ and getattr(i, 'ndim', 0) > 0 for i in (k if type(k) is tuple else (k,)))

# ---------------------------------------------------------------- the array

def _ufunc(name):
    from . import _ufuncs
    return _ufuncs[name]

def _should_use_rop(x, y):
    "CuPy's rule: defer to `y`'s reflected operator when `y` opts out of ufuncs, or outranks us in priority."
    marker = object()
    y_ufunc = getattr(y, '__array_ufunc__', marker)
    if y_ufunc is not marker: return y_ufunc is None
    return getattr(x, '__array_priority__', 0) < getattr(y, '__array_priority__', 0)

def _binary(name, reflected=False):
    def op(self, other):
        if type(other) is not ndarray and _should_use_rop(self, other): return NotImplemented
        u = _ufunc(name)
        return u(other, self) if reflected else u(self, other)
    op.__name__ = f"__{'r' if reflected else ''}{name}__"
    return op

def _inplace(name):
    def op(self, other):
        _ufunc(name)(self, other, out=self)
        return self
    return op

def _method(name, view=False):
    f = getattr(np.ndarray, name)
    def method(self, *args, **kw): return _call(f, (self,) + args, kw, view=view)
    method.__name__ = name
    return method

class ndarray:
    "An array on an emulated GPU (see the module docstring for what it refuses)."
    __slots__ = ('_a', '_dev', '_base', '__weakref__')
    __array_priority__ = 100
    __hash__ = None

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order='C'):
        if memptr is not None or strides is not None: raise NotImplementedError('fake cupy: ndarray(memptr=, strides=) is not emulated')
        a = _poison(np.empty(shape, dtype, order=order))
        _check_dtype(a.dtype)
        self._a, self._dev, self._base = a, _local.device, None
        _roots[id(self)] = self

    # -- attributes
    shape = property(lambda self: self._a.shape)
    @shape.setter
    def shape(self, new): self._a = self._a.reshape(new, copy=False)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    strides = property(lambda self: self._a.strides)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    base = property(lambda self: self._base)
    flags = property(_Flags)
    data = property(MemoryPointer)
    T = property(lambda self: _make(self._a.T, self._dev, _root(self)))
    mT = property(lambda self: _make(self._a.mT, self._dev, _root(self)))
    real = property(lambda self: _call(np.real, (self,), None, view=True))
    imag = property(lambda self: _call(np.imag, (self,), None, view=True))
    @property
    def device(self):
        from .cuda import Device
        return Device(self._dev)
    @property
    def __cuda_array_interface__(self):
        a = self._a
        return {'shape': a.shape, 'typestr': a.dtype.str, 'descr': a.dtype.descr, 'data': (self.data.ptr, False),
                'strides': None if a.flags.c_contiguous else a.strides, 'version': 3}

    # -- the ways back to the host: each one is a sync
    def get(self, stream=None, order='C', out=None, blocking=True):
        "A copy in host memory (a sync)."
        _emu.record('get')
        if out is not None:
            if not isinstance(out, np.ndarray): raise TypeError('Only numpy.ndarray can be obtained from cupy.ndarray')
            if out.shape != self.shape or out.dtype != self.dtype: raise ValueError('Shape or dtype mismatch')
            out[...] = self._a
            return out
        return np.array(self._a, order=order, copy=True)
    def set(self, arr, stream=None):
        "Copy the host array `arr` (same shape and dtype) into this array."
        if not isinstance(arr, np.ndarray): raise TypeError(f'Only numpy.ndarray can be set to cupy.ndarray, got {type(arr)}')
        if arr.shape != self.shape: raise ValueError('Shape mismatch')
        if arr.dtype != self.dtype: raise TypeError('{} array cannot be set to {} array'.format(arr.dtype, self.dtype))
        _emu.record('h2d')
        self._a[...] = arr
    def item(self):
        if self._a.size != 1: raise ValueError('can only convert an array of size 1 to a Python scalar')
        _emu.record('item')
        return self._a.item()
    def tolist(self):
        _emu.record('tolist')
        return self._a.tolist()
    def tobytes(self, order='C'):
        _emu.record('get')
        return self._a.tobytes(order)
    def __float__(self): _emu.record('float'); return float(self._a)
    def __int__(self): _emu.record('int'); return int(self._a)
    def __complex__(self): _emu.record('complex'); return complex(self._a)
    def __bool__(self):
        if self._a.size == 0:
            warnings.warn('The truth value of an empty array is ambiguous. Returning False, but in future this will '
                          'result in an error. Use `array.size > 0` to check that an array is not empty.', DeprecationWarning)
            return False
        if self._a.size != 1:
            raise ValueError('The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()')
        _emu.record('bool')
        return bool(self._a)
    # no __index__: CuPy has none, so `range(x)` or `lst[x]` with a device scalar raises TypeError
    def __repr__(self): _emu.record('repr'); return repr(self._a)
    def __str__(self): _emu.record('repr'); return str(self._a)
    def __format__(self, spec): _emu.record('repr'); return format(self._a, spec)
    def __array__(self, dtype=None, copy=None):
        raise TypeError('Implicit conversion to a NumPy array is not allowed. '
                        'Please use `.get()` to construct a NumPy array explicitly.')

    # -- copies, pickling, dlpack
    def copy(self, order='C'):
        "A copy on the current device (it may come from another device: a peer copy, no kernel)."
        return _make(np.array(self._a, order=order, copy=True), _local.device)
    def __copy__(self): return self.copy()
    def __deepcopy__(self, memo): return _make(self._a.copy(), self._dev)   # stays on its own device
    def __reduce__(self):
        from . import array
        return array, (self.get(),)
    def astype(self, dtype, order='K', casting=None, subok=None, copy=True):
        if casting is not None: raise TypeError('casting is not supported yet')
        if subok is not None: raise TypeError('subok is not supported yet')
        if not copy and np.dtype(dtype) == self.dtype: return self
        _check_devices([self])
        return _make(self._a.astype(dtype, order=order), _local.device)
    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None): return _DLPackCapsule(self)
    def __dlpack_device__(self): return (2, self._dev)     # kDLCUDA
    def toDlpack(self): return _DLPackCapsule(self)

    # -- containers and indexing
    def __len__(self):
        if self._a.ndim == 0: raise TypeError('len() of unsized object')
        return len(self._a)
    def __iter__(self):
        if self._a.ndim == 0: raise TypeError('iteration over a 0-d array')
        return (self[i] for i in range(len(self._a)))
    def __getitem__(self, key):
        ins = []
        k, adv = _index(key, ins)
        if adv:
            _check_devices([self] + ins)
            if _is_mask(k): _emu.record('implicit')   # the result's size depends on the data
            return _make(_gather(self._a, k), _local.device)
        r = self._a[k]
        if not isinstance(r, np.ndarray):   # integer indexing: CuPy gives a 0-d view, not a host scalar
            r = self._a[(k if type(k) is tuple else (k,)) + (Ellipsis,)]
        return _make(r, self._dev, _root(self))
    def __setitem__(self, key, value):
        ins = [self]
        k, adv = _index(key, ins)
        if type(value) is ndarray: ins.append(value); v = value._a
        elif isinstance(value, (np.ndarray, list, tuple)):
            v = np.asarray(value)
            if not adv and v.ndim:    # CuPy refuses to fill a slice from host data
                raise ValueError('non-scalar numpy.ndarray cannot be used for fill')
            _emu.record('h2d')
        else: v = value
        _check_devices(ins)
        try: self._a[k] = v
        except IndexError:
            if not adv: raise
            self._a[_wrap_key(k, self._a.shape)] = v
    def fill(self, value):
        if type(value) is ndarray:
            if value.shape != (): raise ValueError('non-scalar cupy.ndarray cannot be used for fill')
            _check_devices([self, value]); self._a.fill(value._a[()]); return
        v = np.asarray(value, dtype=self.dtype)
        if v.shape != (): raise ValueError('non-scalar numpy.ndarray cannot be used for fill')
        _check_devices([self])
        self._a.fill(v[()])
    def nonzero(self):
        _emu.record('implicit')
        return _call(np.nonzero, (self,), None)

    # -- NumPy interoperability, as CuPy does it
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        from . import _ufuncs
        func = _ufuncs.get(ufunc.__name__)
        if func is None: return NotImplemented
        if 'out' in kwargs:
            out = kwargs['out']
            if len(out) != 1: raise ValueError("The 'out' parameter must have exactly one array value")
            kwargs['out'] = out[0]
        for x in inputs + ((kwargs['out'],) if 'out' in kwargs else ()):
            if not isinstance(x, (ndarray, np.ndarray, np.generic, bool, int, float, complex)): return NotImplemented
        if ufunc.__name__ in ('greater', 'greater_equal', 'less', 'less_equal', 'equal', 'not_equal'):
            inputs = tuple(x.item() if isinstance(x, np.ndarray) and x.ndim == 0 else x for x in inputs)
        if not any(isinstance(x, np.generic) for x in inputs): _emu.record('numpy')   # `np.float32(2) * a` is no stray call
        return (func if method == '__call__' else getattr(func, method))(*inputs, **kwargs)
    def __array_function__(self, func, types, args, kwargs):
        import cupy
        module = cupy
        try:
            for part in func.__module__.split('.')[1:]: module = getattr(module, part)
            cupy_func = getattr(module, func.__name__)
        except AttributeError: return NotImplemented
        if cupy_func is func: return NotImplemented
        if not all(issubclass(t, (ndarray, np.ndarray)) for t in types): return NotImplemented
        _emu.record('numpy')
        return cupy_func(*args, **kwargs)

    # -- comparisons and arithmetic
    def _compare(self, other, name, default=None):
        if type(other) is not ndarray:
            if _should_use_rop(self, other): return NotImplemented
            if default is not None and (other is None or type(other).__eq__ is object.__eq__):
                from . import zeros, ones
                return (ones if default else zeros)(self.shape, dtype=np.bool_)
            if isinstance(other, np.ndarray) and other.ndim == 0: other = other.item()
        return _ufunc(name)(self, other)
    __lt__ = lambda self, o: self._compare(o, 'less')
    __le__ = lambda self, o: self._compare(o, 'less_equal')
    __gt__ = lambda self, o: self._compare(o, 'greater')
    __ge__ = lambda self, o: self._compare(o, 'greater_equal')
    __eq__ = lambda self, o: self._compare(o, 'equal', default=False)
    __ne__ = lambda self, o: self._compare(o, 'not_equal', default=True)
    __neg__ = lambda self: _ufunc('negative')(self)
    __pos__ = lambda self: _ufunc('positive')(self)
    __abs__ = lambda self: _ufunc('absolute')(self)
    __invert__ = lambda self: _ufunc('invert')(self)
    def __pow__(self, other, modulo=None):
        if type(other) is not ndarray and _should_use_rop(self, other): return NotImplemented
        return _ufunc('power')(self, other)
    def __rpow__(self, other, modulo=None):
        if _should_use_rop(self, other): return NotImplemented
        return _ufunc('power')(other, self)
    def __matmul__(self, other):
        if type(other) is not ndarray and _should_use_rop(self, other): return NotImplemented
        from . import matmul
        return matmul(self, other)
    def __rmatmul__(self, other):
        if _should_use_rop(self, other): return NotImplemented
        from . import matmul
        return matmul(other, self)
    def __imatmul__(self, other):
        from . import matmul
        return matmul(self, other, out=self)
    def __divmod__(self, other): return _ufunc('divmod')(self, other)
    def dot(self, b, out=None):
        from . import dot
        return dot(self, b, out=out)

    # -- views: no kernel, the result stays on this array's device
    reshape = _method('reshape', view=True)
    transpose = _method('transpose', view=True)
    swapaxes = _method('swapaxes', view=True)
    squeeze = _method('squeeze', view=True)
    ravel = _method('ravel', view=True)
    diagonal = _method('diagonal', view=True)
    def view(self, dtype=None):
        return _make(self._a.view() if dtype is None else self._a.view(dtype), self._dev, _root(self))

for _n in ('add', 'subtract', 'multiply', 'true_divide', 'floor_divide', 'remainder', 'left_shift', 'right_shift',
           'bitwise_and', 'bitwise_or', 'bitwise_xor'):
    _dunder = {'subtract': 'sub', 'multiply': 'mul', 'true_divide': 'truediv', 'floor_divide': 'floordiv', 'remainder': 'mod',
               'left_shift': 'lshift', 'right_shift': 'rshift', 'bitwise_and': 'and', 'bitwise_or': 'or', 'bitwise_xor': 'xor'}.get(_n, _n)
    setattr(ndarray, f'__{_dunder}__', _binary(_n))
    setattr(ndarray, f'__r{_dunder}__', _binary(_n, reflected=True))
    setattr(ndarray, f'__i{_dunder}__', _inplace(_n))
ndarray.__ipow__ = _inplace('power')

# kernels: reductions, scans, sorting, gathers
for _n in ('sum', 'mean', 'var', 'std', 'prod', 'max', 'min', 'argmax', 'argmin', 'all', 'any', 'cumsum', 'cumprod',
           'clip', 'round', 'repeat', 'sort', 'argsort', 'partition', 'argpartition', 'searchsorted', 'compress',
           'trace', 'conj', 'conjugate', 'put', 'ptp', 'flatten'):
    if hasattr(np.ndarray, _n): setattr(ndarray, _n, _method(_n))
ndarray.ptp = lambda self, axis=None, out=None, keepdims=False: _call(np.ptp, (self, axis, out, keepdims), None)
ndarray.__module__ = 'cupy'

def _take(self, indices, axis=None, out=None):
    "CuPy's take: out-of-bounds indices wrap around."
    return _call(np.ndarray.take, (self, indices, axis, out, 'wrap'), None)
ndarray.take = _take
