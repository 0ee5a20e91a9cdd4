"""`cupy.random`: `RandomState` and the module-level functions, drawing with NumPy onto the current device.

As in CuPy, a RandomState belongs to the device that was current when it was made (its cuRAND generator lives
there), the float distributions take only float32/float64 dtypes, and `size=None` gives a 0-d device array.
Every distribution of CuPy's documented RandomState exists (multivariate_normal excepted), with CuPy's parameter names
and defaults, drawn with NumPy's Generator method of the same name. Methods CuPy has but the emulation lacks raise AttributeError saying so; `random` (NumPy's name) does not exist.
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
    def poisson(self, lam=1.0, size=None, dtype=int):
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
    def dirichlet(self, alpha, size=None, dtype=float):
        (alpha,) = self._args(alpha)
        return self._out(self._g.dirichlet(alpha, None if size is None else _size(size)), _float_dtype(dtype))
    def standard_cauchy(self, size=None, dtype=float):
        return self._out(self._g.standard_cauchy(_size(size)), _float_dtype(dtype))
    def tomaxint(self, size=None):
        return self._out(self._g.integers(0, _np.iinfo(_np.int64).max, _size(size)), _np.int64)
    def __getattr__(self, name):
        if name in _METHODS: raise AttributeError(f"cupy.random.RandomState.{name} exists in CuPy but is not emulated")
        raise AttributeError(f"'RandomState' object has no attribute '{name}' (CuPy's RandomState has none either)")

# CuPy's distributions with parameters, as documented (cupy.random.RandomState): name -> (parameters and their
# defaults, kind). Kind 'f' takes float32/float64 only; 'i' returns integers (dtype=int unless told).
_REQUIRED = object()
_DISTRIBUTIONS = {
    'beta': ((('a', _REQUIRED), ('b', _REQUIRED)), 'f'), 'chisquare': ((('df', _REQUIRED),), 'f'),
    'f': ((('dfnum', _REQUIRED), ('dfden', _REQUIRED)), 'f'), 'gamma': ((('shape', _REQUIRED), ('scale', 1.0)), 'f'),
    'geometric': ((('p', _REQUIRED),), 'i'), 'hypergeometric': ((('ngood', _REQUIRED), ('nbad', _REQUIRED), ('nsample', _REQUIRED)), 'i'),
    'laplace': ((('loc', 0.0), ('scale', 1.0)), 'f'), 'logistic': ((('loc', 0.0), ('scale', 1.0)), 'f'),
    'lognormal': ((('mean', 0.0), ('sigma', 1.0)), 'f'), 'logseries': ((('p', _REQUIRED),), 'i'),
    'negative_binomial': ((('n', _REQUIRED), ('p', _REQUIRED)), 'i'),
    'noncentral_chisquare': ((('df', _REQUIRED), ('nonc', _REQUIRED)), 'f'),
    'noncentral_f': ((('dfnum', _REQUIRED), ('dfden', _REQUIRED), ('nonc', _REQUIRED)), 'f'),
    'pareto': ((('a', _REQUIRED),), 'f'), 'power': ((('a', _REQUIRED),), 'f'), 'rayleigh': ((('scale', 1.0),), 'f'),
    'standard_gamma': ((('shape', _REQUIRED),), 'f'), 'standard_t': ((('df', _REQUIRED),), 'f'),
    'triangular': ((('left', _REQUIRED), ('mode', _REQUIRED), ('right', _REQUIRED)), 'f'),
    'vonmises': ((('mu', _REQUIRED), ('kappa', _REQUIRED)), 'f'), 'wald': ((('mean', _REQUIRED), ('scale', _REQUIRED)), 'f'),
    'weibull': ((('a', _REQUIRED),), 'f'), 'zipf': ((('a', _REQUIRED),), 'i'),
}

def _distribution(name, params, kind):
    "A RandomState method `name(*params, size=None, dtype=...)` drawing with NumPy's Generator method of that name."
    names = [n for n, _ in params]
    def draw(self, *args, **kwargs):
        if len(args) > len(params) + 2: raise TypeError(f'{name}() takes at most {len(params) + 2} positional arguments')
        values = dict(zip(names + ['size', 'dtype'], args))
        for k, v in kwargs.items():
            if k in values: raise TypeError(f"{name}() got multiple values for argument '{k}'")
            if k not in names + ['size', 'dtype']: raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
            values[k] = v
        for n, default in params:
            if n not in values:
                if default is _REQUIRED: raise TypeError(f"{name}() missing required argument '{n}'")
                values[n] = default
        size, dtype = values.get('size'), values.get('dtype', float if kind == 'f' else int)
        dtype = _float_dtype(dtype) if kind == 'f' else _np.dtype(dtype)
        ps = self._args(*(values[n] for n in names))
        return self._out(getattr(self._g, name)(*ps, None if size is None else _size(size)), dtype)
    draw.__name__ = draw.__qualname__ = name
    draw.__doc__ = f"cupy.random.RandomState.{name}({', '.join(names)}, size=None, dtype={'float' if kind == 'f' else 'int'})"
    return draw

for _name, (_params, _kind) in _DISTRIBUTIONS.items(): setattr(RandomState, _name, _distribution(_name, _params, _kind))
RandomState.poisson.__doc__ = "cupy.random.RandomState.poisson(lam=1.0, size=None, dtype=int)"

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
def standard_exponential(size=None, dtype=float): return get_random_state().standard_exponential(size, dtype)
def standard_cauchy(size=None, dtype=float): return get_random_state().standard_cauchy(size, dtype)
def exponential(scale=1.0, size=None, dtype=float): return get_random_state().exponential(scale, size, dtype)
def gumbel(loc=0.0, scale=1.0, size=None, dtype=float): return get_random_state().gumbel(loc, scale, size, dtype)
def binomial(n, p, size=None, dtype=int): return get_random_state().binomial(n, p, size, dtype)
def poisson(lam=1.0, size=None, dtype=int): return get_random_state().poisson(lam, size, dtype)
def dirichlet(alpha, size=None, dtype=float): return get_random_state().dirichlet(alpha, size, dtype)

def _module_level(name):
    f = lambda *args, **kwargs: getattr(get_random_state(), name)(*args, **kwargs)
    f.__name__ = f.__qualname__ = name
    return f

for _name in _DISTRIBUTIONS: globals()[_name] = _module_level(_name)
def shuffle(a): return get_random_state().shuffle(a)
def choice(a, size=None, replace=True, p=None): return get_random_state().choice(a, size, replace, p)

def __getattr__(name):
    if name in _METHODS or name in ('multinomial', 'random_integers', 'default_rng', 'Generator', 'bytes'):
        raise AttributeError(f"cupy.random.{name} exists in CuPy but is not emulated by tests/fake_cupy")
    raise AttributeError(f"module 'cupy.random' has no attribute '{name}'")
