"""`cupy.random`: `RandomState` and the module-level functions, drawing with NumPy onto the current device.

As in CuPy, a RandomState belongs to the device that was current when it was made (its cuRAND generator lives
there), the float distributions take only float32/float64 dtypes, and `size=None` gives a 0-d device array.
Methods CuPy has but the emulation lacks raise AttributeError saying so; `random` (NumPy's name) does not exist.
"""
import numpy as _np
from .. import _emulation as _emu
from .._core import _make, _unwrap, _check_devices, ndarray as _ndarray

_METHODS = frozenset('beta binomial chisquare dirichlet exponential f gamma geometric hypergeometric laplace logistic '
                     'lognormal logseries multivariate_normal negative_binomial normal pareto noncentral_chisquare '
                     'noncentral_f poisson power rand randn random_sample rayleigh seed standard_cauchy '
                     'standard_exponential standard_gamma standard_normal standard_t tomaxint triangular uniform vonmises '
                     'wald weibull zipf choice shuffle permutation gumbel randint'.split())

def _float_dtype(dtype):
    dtype = _np.dtype(dtype)
    if dtype.char not in ('f', 'd'): raise TypeError('cupy.random only supports float32 and float64')
    return dtype

def _size(size): return () if size is None else (tuple(size) if isinstance(size, (tuple, list)) else (int(size),))

class RandomState:
    "A pseudo-random generator whose state lives on the device that was current at its creation."
    def __init__(self, seed=None, method=None):
        self._dev = _emu.local.device
        self.seed(seed)
    def seed(self, seed=None):
        self._g = _np.random.Generator(_np.random.PCG64(None if seed is None else int(seed) % 2**64))
    def _out(self, a, dtype):
        if _emu.local.device != self._dev:
            raise RuntimeError(f'fake cupy: this RandomState belongs to device {self._dev} (current when it was made) '
                               f'but was drawn from on device {_emu.local.device}')
        return _make(_np.asarray(a, dtype=dtype), self._dev)
    def _args(self, *xs):
        ins = []
        out = [_unwrap(x, ins) for x in xs]
        _check_devices(ins)
        return out
    def random_sample(self, size=None, dtype=float):
        d = _float_dtype(dtype)
        return self._out(self._g.random(_size(size), dtype=_np.float64 if d == _np.float64 else _np.float32), d)
    def rand(self, *size, dtype=float): return self.random_sample(size, dtype)
    def randn(self, *size, dtype=float): return self.normal(size=size, dtype=dtype)
    def standard_normal(self, size=None, dtype=float):
        return self._out(self._g.standard_normal(_size(size)), _float_dtype(dtype))
    def normal(self, loc=0.0, scale=1.0, size=None, dtype=float):
        loc, scale = self._args(loc, scale)
        return self._out(self._g.normal(loc, scale, None if size is None else _size(size)), _float_dtype(dtype))
    def uniform(self, low=0.0, high=1.0, size=None, dtype=float):
        low, high = self._args(low, high)
        return self._out(self._g.uniform(low, high, None if size is None else _size(size)), _float_dtype(dtype))
    def standard_exponential(self, size=None, dtype=float):
        return self._out(self._g.standard_exponential(_size(size)), _float_dtype(dtype))
    def exponential(self, scale=1.0, size=None, dtype=float):
        (scale,) = self._args(scale)
        return self._out(self._g.exponential(scale, None if size is None else _size(size)), _float_dtype(dtype))
    def gumbel(self, loc=0.0, scale=1.0, size=None, dtype=float):
        loc, scale = self._args(loc, scale)
        return self._out(self._g.gumbel(loc, scale, None if size is None else _size(size)), _float_dtype(dtype))
    def binomial(self, n, p, size=None, dtype=int):
        n, p = self._args(n, p)
        return self._out(self._g.binomial(n, p, None if size is None else _size(size)), dtype)
    def poisson(self, lam=1.0, size=None, dtype='l'):
        (lam,) = self._args(lam)
        return self._out(self._g.poisson(lam, None if size is None else _size(size)), dtype)
    def randint(self, low, high=None, size=None, dtype=int):
        if high is None: low, high = 0, low
        if type(low) is _ndarray or type(high) is _ndarray:
            low, high = self._args(low, high)
        elif int(low) >= int(high): raise ValueError('low >= high')
        return self._out(self._g.integers(low, high, None if size is None else _size(size)), dtype)
    def permutation(self, a):
        if isinstance(a, int): return self._out(self._g.permutation(a), _np.int64)
        if type(a) is not _ndarray: raise TypeError(f'Unsupported type {type(a)}')
        return a[self._out(self._g.permutation(len(a)), _np.int64)]
    def shuffle(self, a):
        if type(a) is not _ndarray: raise TypeError('The array must be cupy.ndarray')
        if a.ndim == 0: raise TypeError('An array whose ndim is 0 is not supported')
        a[:] = a[self._out(self._g.permutation(len(a)), _np.int64)]
    def choice(self, a, size=None, replace=True, p=None):
        a, p = self._args(a, p)
        return self._out(self._g.choice(a, None if size is None else _size(size), replace, p), None)
    def __getattr__(self, name):
        if name in _METHODS: raise AttributeError(f"cupy.random.RandomState.{name} exists in CuPy but is not emulated")
        raise AttributeError(f"'RandomState' object has no attribute '{name}' (CuPy's RandomState has none either)")

_states = {}

def get_random_state():
    "The global RandomState of the current device."
    d = _emu.local.device
    if d not in _states: _states[d] = RandomState()
    return _states[d]

def set_random_state(rs): _states[_emu.local.device] = rs
def seed(seed=None): get_random_state().seed(seed)
def reset_states(): _states.clear()

def random_sample(size=None, dtype=float): return get_random_state().random_sample(size, dtype)
random = ranf = sample = random_sample
def rand(*size, dtype=float): return get_random_state().rand(*size, dtype=dtype)
def randn(*size, dtype=float): return get_random_state().randn(*size, dtype=dtype)
def standard_normal(size=None, dtype=float): return get_random_state().standard_normal(size, dtype)
def normal(loc=0.0, scale=1.0, size=None, dtype=float): return get_random_state().normal(loc, scale, size, dtype)
def uniform(low=0.0, high=1.0, size=None, dtype=float): return get_random_state().uniform(low, high, size, dtype)
def randint(low, high=None, size=None, dtype=int): return get_random_state().randint(low, high, size, dtype)
def permutation(a): return get_random_state().permutation(a)
def shuffle(a): return get_random_state().shuffle(a)
def choice(a, size=None, replace=True, p=None): return get_random_state().choice(a, size, replace, p)

def __getattr__(name):
    if name in _METHODS or name in ('multinomial', 'random_integers', 'default_rng', 'Generator', 'bytes'):
        raise AttributeError(f"cupy.random.{name} exists in CuPy but is not emulated by tests/fake_cupy")
    raise AttributeError(f"module 'cupy.random' has no attribute '{name}'")
