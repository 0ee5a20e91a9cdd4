"""PyTorch's own op database (`op_db`, ~700 OpInfos) as the oracle for every op lit_torch has.

Each OpInfo entry is resolved to lit_torch's counterparts of its variants: the function
(`torch.abs` -> `lit_torch.abs`, `torch.nn.functional.relu` -> `lit_torch.nn.functional.relu`, ...),
the Tensor method, the in-place method, the Python operator (`operator.add`, `operator.iadd`), and the
aliases. OpInfos whose `op` is a lambda are run with lit_torch in place of `torch` in the lambda's
globals and closures. One pytest test per (entry, variant), e.g. `test_opinfo[abs-inplace]`.

For every variant lit_torch has, torch's own samples (the first OPINFO_MAX_SAMPLES, default 16, per
dtype) are copied through NumPy into fresh torch and lit_torch tensors, run on both, and compared:
forward values, shape and dtype of every output on float32/float64 (and int64/bool/bfloat16 where the
op supports them; bfloat16 at torch.testing's tolerance, 1.6e-2), the inputs after the call (in-place effects), float64 gradients of every input for a
seeded random grad_output, and exceptions (same builtin type on both sides, also for the OpInfo's
`error_inputs`). Each (dtype, sample) is one *item*. A float32 output outside the tolerance still passes
when it is as close to torch's float64 result as a few times torch's own float32 error (`_as_accurate_as_torch`):
sums with cancellation round by summation order, which BLAS and NumPy pick by memory alignment.

Known differences live in tests/opinfo_known_failures.json (generated): a test whose failing items are
all known is an xfail (the suite stays green and says so); a failure not in the file fails the suite,
so a new op must pass or be acknowledged, and a regression is caught at the item level. A known
failure that starts passing is reported in the summary. A variant lit_torch lacks is a skip that
names what is missing; an entry the driver does not run is skipped with its reason from
tests/opinfo_skips.py.

Environment:
  OPINFO_REPORT=1        after the run, list the failing/partial entries with their first error
                         (OPINFO_REPORT=path.md writes that report to a file, OPINFO_REPORT=path.json every item)
  OPINFO_UPDATE=1        rewrite tests/opinfo_known_failures.json from this run's failures
  OPINFO_MAX_SAMPLES=N   samples per dtype (default 16)
  OPINFO_REFERENCE=1     also the OpInfos' reference inputs (extremal values, odd shapes) in float32/float64:
                         a deeper run to hunt bugs; its failures are not in the known list
"""
import contextlib, functools, itertools, json, os, random, types, warnings, zlib
from pathlib import Path
import numpy as np
import pytest
import torch
import lit_torch as lt
from opinfo_skips import SHAPE_ONLY, SHAPE_ONLY_IF, skip_reason

with warnings.catch_warnings():
    warnings.simplefilter('ignore')
    from torch.testing._internal.common_methods_invocations import op_db
    from torch.testing._internal.common_device_type import toleranceOverride

MAX_SAMPLES = int(os.environ.get('OPINFO_MAX_SAMPLES', '16'))
KNOWN_PATH = Path(__file__).with_name('opinfo_known_failures.json')
KNOWN = json.loads(KNOWN_PATH.read_text()) if KNOWN_PATH.exists() else {}
RESULTS = {}  # test id -> {'key', 'variant', 'items': {item: (status, message)}, 'skip'/'missing': reason}

# ---------------------------------------------------------------------------------------------
# Names: torch's public objects and their lit_torch counterparts

class Missing(Exception):
    "lit_torch lacks a function, method, module or attribute that the sample needs."

PUBLIC_MODULES = ('torch', 'torch.nn', 'torch.nn.functional', 'torch.nn.init', 'torch.linalg', 'torch.fft',
                  'torch.special', 'torch.masked', 'torch.signal', 'torch.signal.windows', 'torch.autograd')

def _walk(root, dotted):
    for part in dotted.split('.')[1:]: root = getattr(root, part)
    return root

def lit_attr(path):
    "lit_torch's counterpart of torch's `path` ('torch.nn.functional.relu' -> lit_torch.nn.functional.relu)."
    try: return _walk(lt, path)
    except AttributeError: raise Missing('lit_torch' + path[len('torch'):]) from None

def _public_paths():
    "id(callable) -> its public torch path, for translating the callables that lambdas close over."
    paths = {}
    for mod in PUBLIC_MODULES + ('torch.Tensor',):
        try: ns = _walk(torch, mod)
        except AttributeError: continue
        for name in dir(ns):
            try: obj = getattr(ns, name)
            except Exception: continue
            if callable(obj) and not isinstance(obj, type): paths.setdefault(id(obj), f'{mod}.{name}')
    return paths

_PATHS = _public_paths()
# Lambdas and helpers defined here are translated; torch's test harness (wrapper_set_seed, ...) is left alone.
OPINFO_MODULES = ('torch.testing._internal.common_methods_invocations', 'torch.testing._internal.opinfo')

class _LitModule:
    "Stands for a torch module inside a translated lambda: attributes resolve in lit_torch or raise Missing."
    def __init__(self, path): self._path = path
    def __getattr__(self, name):
        path, tobj = f'{self._path}.{name}', getattr(_walk(torch, self._path), name, None)
        if _private(path): return tobj   # torch's own machinery (torch.utils._mode_utils, torch.testing): not API
        if isinstance(tobj, types.ModuleType): return _LitModule(path)
        return lit_attr(path)

def _private(path):
    return path.startswith(('torch.testing', 'torch._')) or any(p.startswith('_') and not p.startswith('__') for p in path.split('.'))

def _absent(path):
    def absent(*args, **kwargs): raise Missing('lit_torch' + path[len('torch'):])
    return absent

def _code_names(code):
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType): names |= _code_names(c)
    return names

_TRANSLATED = {}

def translate(obj, depth=0):
    "The lit_torch counterpart of a torch object found in a lambda's globals or closure (others unchanged)."
    if isinstance(obj, types.ModuleType):
        return _LitModule(obj.__name__) if obj.__name__ in PUBLIC_MODULES else obj
    if isinstance(obj, torch.dtype): return getattr(lt, _dname(obj), obj)
    path = _PATHS.get(id(obj))
    if path is not None:
        try: return lit_attr(path)
        except Missing: return _absent(path)
    if isinstance(obj, functools.partial):
        return functools.partial(translate(obj.func, depth), *(translate(a, depth) for a in obj.args),
                                 **{k: translate(v, depth) for k, v in obj.keywords.items()})
    if isinstance(obj, types.FunctionType) and obj.__module__.startswith(OPINFO_MODULES) and depth < 4:
        if id(obj) not in _TRANSLATED: _TRANSLATED[id(obj)] = (obj, _translate_function(obj, depth + 1))
        return _TRANSLATED[id(obj)][1]
    return obj

def _translate_function(f, depth):
    "A copy of the Python function `f` whose torch globals and closure cells are lit_torch's."
    g = dict(f.__globals__)
    for name in _code_names(f.__code__) & g.keys(): g[name] = translate(g[name], depth)
    cells = f.__closure__ and tuple(_translate_cell(c, depth) for c in f.__closure__)
    new = types.FunctionType(f.__code__, g, f.__name__, f.__defaults__ and tuple(translate(d, depth) for d in f.__defaults__), cells)
    new.__kwdefaults__ = f.__kwdefaults__ and {k: translate(v, depth) for k, v in f.__kwdefaults__.items()}
    return new

def _translate_cell(cell, depth):
    try: return types.CellType(translate(cell.cell_contents, depth))
    except ValueError: return cell   # an empty cell (a closure over a name not yet bound)

def _dname(dtype): return str(dtype).split('.')[-1]

# ---------------------------------------------------------------------------------------------
# Variants: what torch has for an entry and what lit_torch has of it

def entry_key(op): return op.name + ('.' + op.variant_test_name if op.variant_test_name else '')

def _resolve(fn, name_path=None, method=False):
    """lit_torch's counterpart of the torch callable `fn`: (callable, None), or (None, what lit_torch lacks),
    or (None, None) when `fn` is no public torch callable the driver can translate."""
    if method and getattr(torch.Tensor, getattr(fn, '__name__', ''), None) is fn: name_path = 'torch.Tensor.' + fn.__name__
    if name_path is not None and not method:
        try:
            if _walk(torch, name_path) is not fn: name_path = None
        except AttributeError: name_path = None
    if isinstance(fn, functools.partial):
        inner, lacks = _resolve(fn.func)
        return (inner and functools.partial(inner, *(translate(x) for x in fn.args),
                                            **{k: translate(v) for k, v in fn.keywords.items()})), lacks
    path = name_path or _PATHS.get(id(fn))
    if path is not None:
        try: return lit_attr(path), None
        except Missing as e: return None, str(e)
    if isinstance(fn, types.FunctionType) and fn.__module__.startswith(OPINFO_MODULES): return translate(fn), None
    return None, None

def _resolve_operator(fn):
    dunder = '__' + fn.__name__.rstrip('_') + '__'
    return (fn, None) if hasattr(lt.Tensor, dunder) else (None, f'lit_torch.Tensor.{dunder}')

def variants(op):
    "{variant: (torch callable, lit_torch callable or None, what lit_torch lacks or None, in_place)}"
    out = {'function': (op.op, *_resolve(op.op, 'torch.' + op.name), False)}
    if op.method_variant is not None: out['method'] = (op.method_variant, *_resolve(op.method_variant, method=True), False)
    if op.inplace_variant is not None: out['inplace'] = (op.inplace_variant, *_resolve(op.inplace_variant, method=True), True)
    if op.operator_variant is not None: out['operator'] = (op.operator_variant, *_resolve_operator(op.operator_variant), False)
    if op.inplace_operator_variant is not None:
        out['inplace_operator'] = (op.inplace_operator_variant, *_resolve_operator(op.inplace_operator_variant), True)
    for a in op.aliases:
        out[f'alias:{a.name}'] = (a.op, *_resolve(a.op, 'torch.' + a.name), False)
        if a.method_variant is not None: out[f'alias:{a.name}:method'] = (a.method_variant, *_resolve(a.method_variant, method=True), False)
        if a.inplace_variant is not None: out[f'alias:{a.name}:inplace'] = (a.inplace_variant, *_resolve(a.inplace_variant, method=True), True)
    if op.error_inputs_func is not None: out['errors'] = out['function'][:3] + (False,)
    return out

MODE_DTYPES = {'f32': torch.float32, 'f64': torch.float64, 'i64': torch.int64, 'bool': torch.bool, 'bf16': torch.bfloat16,
               'grad': torch.float64,
               'ref32': torch.float32, 'ref64': torch.float64}
REFERENCE = bool(os.environ.get('OPINFO_REFERENCE'))

def modes(op, in_place):
    dts = op.supported_dtypes('cpu')
    ms = [m for m in ('f32', 'f64', 'i64', 'bool', 'bf16') if MODE_DTYPES[m] in dts]
    if (op.supports_autograd and torch.float64 in op.supported_backward_dtypes('cpu')
            and (not in_place or op.supports_inplace_autograd)): ms.append('grad')
    if REFERENCE and op.reference_inputs_func is not None:
        ms += [m for m in ('ref32', 'ref64') if MODE_DTYPES[m] in dts]
    return ms

def entry_skip_reason(op):
    key = entry_key(op)
    reason = skip_reason(op.name, key)
    if reason: return reason
    if not modes(op, False) and op.error_inputs_func is None:
        return 'no float32/float64/int64/bool kernel on CPU (complex-, low-precision- or CUDA-only)'
    if variants(op)['function'][1:3] == (None, None) and op.method_variant is None:
        return f'op is {op.op!r}, not a public torch callable'
    return None

# ---------------------------------------------------------------------------------------------
# Samples: torch values frozen in NumPy, thawed into fresh torch and lit_torch tensors

class Unconvertible(Exception): pass
class _Fail(Exception): pass

class _T:
    "A frozen tensor."
    __slots__ = ('array', 'dtype', 'requires_grad')
    def __init__(self, array, dtype, requires_grad): self.array, self.dtype, self.requires_grad = array, dtype, requires_grad
    def __repr__(self): return f'{self.dtype}{list(self.array.shape)}' + ('(rg)' if self.requires_grad else '')

class _Named:
    "A frozen torch.dtype / device / layout / memory_format, by name."
    __slots__ = ('kind', 'name')
    def __init__(self, kind, name): self.kind, self.name = kind, name
    def __repr__(self): return f'torch.{self.name}' if self.kind != 'device' else f'device({self.name!r})'

class _Fn:
    "A torch function passed as an argument (translated to lit_torch's when thawed for lit_torch)."
    __slots__ = ('fn',)
    def __init__(self, fn): self.fn = fn
    def __repr__(self): return _PATHS[id(self.fn)]

class _Size(tuple):
    def __repr__(self): return f'Size({list(self)})'

class _Mod:
    "A stateless torch module passed as an argument (`distance_function=PairwiseDistance()`): lit_torch's class of the same name, same options."
    __slots__ = ('module',)
    def __init__(self, module): self.module = module
    def __repr__(self): return f'{type(self.module).__name__}()'

def _thaw_module(m):
    cls = getattr(lt.nn, type(m).__name__, None)
    if cls is None: raise _Fail(f'lit_torch lacks nn.{type(m).__name__}')
    lm = cls.__new__(cls)
    lt.nn.Module.__init__(lm)
    lm.__dict__.update({k: v for k, v in vars(m).items() if not k.startswith('_')})
    return lm

def freeze(obj, memo):
    if isinstance(obj, torch.Tensor):
        if id(obj) not in memo:
            if obj.layout != torch.strided: raise Unconvertible(f'a {obj.layout} tensor')
            t = obj.detach().resolve_conj().resolve_neg()
            arr = t.float().numpy().copy() if t.dtype in (torch.bfloat16,) else t.numpy().copy()
            memo[id(obj)] = _T(arr, _dname(obj.dtype), obj.requires_grad)
        return memo[id(obj)]
    if isinstance(obj, torch.Size): return _Size(obj)
    if isinstance(obj, torch.dtype): return _Named('dtype', _dname(obj))
    if isinstance(obj, torch.device): return _Named('device', str(obj))
    if isinstance(obj, (torch.layout, torch.memory_format)): return _Named('attr', _dname(obj))
    if isinstance(obj, torch.Generator): raise Unconvertible('a torch.Generator argument')
    if isinstance(obj, tuple) and hasattr(obj, '_fields'): return type(obj)(*(freeze(x, memo) for x in obj))
    if isinstance(obj, (list, tuple)): return type(obj)(freeze(x, memo) for x in obj)
    if isinstance(obj, dict): return {k: freeze(v, memo) for k, v in obj.items()}
    if isinstance(obj, torch.nn.Module):
        if next(iter(obj.parameters()), None) is not None or next(iter(obj.buffers()), None) is not None:
            raise Unconvertible(f'a torch module with parameters or buffers ({type(obj).__name__})')
        return _Mod(obj)
    if callable(obj) and id(obj) in _PATHS: return _Fn(obj)
    return obj

def thaw(obj, lib, memo, leaves):
    "Fresh `lib` (torch or lit_torch) objects for the frozen `obj`; every tensor made is appended to `leaves`."
    if isinstance(obj, _T):
        if id(obj) not in memo:
            if lib is torch:
                t = torch.from_numpy(obj.array.copy()).to(getattr(torch, obj.dtype))
                t.requires_grad_(obj.requires_grad)
            else:
                dtype = getattr(lt, obj.dtype, None)
                if not isinstance(dtype, lt.dtype): raise _Fail(f'lit_torch lacks dtype {obj.dtype}')
                t = lt.tensor(obj.array.copy(), dtype=dtype, requires_grad=obj.requires_grad)
            memo[id(obj)] = t
            leaves.append((obj, t))
        return memo[id(obj)]
    if isinstance(obj, _Size): return torch.Size(obj) if lib is torch else lt.Size(obj)
    if isinstance(obj, _Named):
        if obj.kind == 'device': return torch.device(obj.name) if lib is torch else lt.device(obj.name)
        if lib is torch: return getattr(torch, obj.name)
        value = getattr(lt, obj.name, None)
        if value is None: raise _Fail(f'lit_torch lacks torch.{obj.name}')
        return value
    if isinstance(obj, _Fn): return obj.fn if lib is torch else translate(obj.fn)
    if isinstance(obj, _Mod): return obj.module if lib is torch else _thaw_module(obj.module)
    if isinstance(obj, tuple) and hasattr(obj, '_fields'): return type(obj)(*(thaw(x, lib, memo, leaves) for x in obj))
    if isinstance(obj, (list, tuple)): return type(obj)(thaw(x, lib, memo, leaves) for x in obj)
    if isinstance(obj, dict): return {k: thaw(v, lib, memo, leaves) for k, v in obj.items()}
    return obj

def _describe(frozen):
    inp, args, kwargs = frozen
    parts = [repr(inp)] + [repr(a) for a in args] + [f'{k}={v!r}' for k, v in kwargs.items()]
    return f"({', '.join(parts)})"

@contextlib.contextmanager
def _seeded(seed):
    "torch's RNG seeded for sample generation; Python's and NumPy's global RNGs left as they were."
    py, np_state = random.getstate(), np.random.get_state()
    torch.manual_seed(seed); random.seed(seed); np.random.seed(seed)
    try: yield
    finally: random.setstate(py); np.random.set_state(np_state)

_SAMPLE_CACHE = {}

def samples(op, key, mode):
    "The first MAX_SAMPLES samples of `mode`, frozen: a list of (frozen or Unconvertible, broadcasts_input)."
    ck = (key, mode)
    if ck not in _SAMPLE_CACHE:
        if len(_SAMPLE_CACHE) > 16: _SAMPLE_CACHE.clear()
        out = []
        with _seeded(zlib.crc32(f'{key}:{mode}'.encode())), warnings.catch_warnings():
            warnings.simplefilter('ignore')
            if mode == 'errors':
                it = op.error_inputs_func(op, 'cpu')
                for e in itertools.islice(it, MAX_SAMPLES):
                    s = e.sample_input
                    try: out.append((freeze((s.input, s.args, s.kwargs), {}), (e.error_type, e.error_regex)))
                    except Unconvertible as u: out.append((u, None))
            else:
                make = op.reference_inputs_func if mode.startswith('ref') else op.sample_inputs_func
                it = make(op, 'cpu', MODE_DTYPES[mode], mode == 'grad')
                if mode.startswith('ref'):   # reference inputs begin with the sample inputs: skip those
                    it = itertools.islice(it, len(list(op.sample_inputs_func(op, 'cpu', MODE_DTYPES[mode], False))), None)
                for s in itertools.islice(it, MAX_SAMPLES):
                    try: out.append((freeze((s.input, s.args, s.kwargs), {}), s.broadcasts_input))
                    except Unconvertible as u: out.append((u, None))
        _SAMPLE_CACHE[ck] = out
    return _SAMPLE_CACHE[ck]

# ---------------------------------------------------------------------------------------------
# Comparing

TOL = {'float16': (1e-3, 1e-5), 'bfloat16': (1.6e-2, 1e-5), 'float32': (1.3e-6, 1e-5), 'float64': (1e-7, 1e-7),
       'complex64': (1.3e-6, 1e-5), 'complex128': (1e-7, 1e-7)}  # (rtol, atol), torch.testing's defaults

def tolerances(op):
    "Tolerance per dtype name: torch.testing's defaults, loosened to the largest CPU override the OpInfo gives."
    tol = dict(TOL)
    for d in op.decorators:
        infos = d.decorators if hasattr(d, 'decorators') else [d]
        if getattr(d, 'device_type', None) not in (None, 'cpu') or getattr(d, 'active_if', True) is not True: continue
        for dec in infos:
            if isinstance(dec, toleranceOverride):
                for dt, t in dec.d.items():
                    r, a = tol.get(_dname(dt), (0, 0))
                    tol[_dname(dt)] = (max(r, t.rtol), max(a, t.atol))
    return tol

def _np(t):
    if isinstance(t, torch.Tensor):
        if t._is_zerotensor(): t = torch.zeros(t.shape, dtype=t.dtype)  # torch's gradient of sgn & co: a ZeroTensor with no data
        t = t.detach().resolve_conj().resolve_neg()
        return t.float().numpy() if t.dtype == torch.bfloat16 else t.numpy()
    a = np.asarray(t.detach().cpu().numpy())
    return a.astype(np.float32) if a.dtype.name == 'bfloat16' else a

def compare(t, l, tol, shape_only, where):
    "Raise _Fail naming `where` unless lit_torch's `l` matches torch's `t` in type, shape, dtype and value."
    if isinstance(t, torch.Tensor):
        if not isinstance(l, lt.Tensor): raise _Fail(f'{where}: lit_torch returned {type(l).__name__}, torch a Tensor')
        if tuple(l.shape) != tuple(t.shape): raise _Fail(f'{where}: shape {tuple(l.shape)}, torch {tuple(t.shape)}')
        if _dname(l.dtype) != _dname(t.dtype): raise _Fail(f'{where}: dtype {l.dtype}, torch {t.dtype}')
        if shape_only: return
        a, b = _np(l), _np(t)
        if t.dtype.is_floating_point or t.is_complex():
            rtol, atol = tol.get(_dname(t.dtype), (1e-7, 1e-7))
            close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
            if not close.all():
                bad = tuple(int(j) for j in np.argwhere(~close)[0])
                err = np.abs(a.astype(np.float64) - b.astype(np.float64))
                raise _Fail(f'{where}: {int((~close).sum())}/{close.size} values differ, first at {tuple(bad)}: '
                            f'{a[bad].item()!r} vs torch {b[bad].item()!r} (max abs diff {np.nanmax(err):.3g}, rtol {rtol:g}, atol {atol:g})')
        elif not np.array_equal(a, b):
            bad = tuple(int(j) for j in np.argwhere(a != b)[0])
            raise _Fail(f'{where}: values differ at {bad}: {a[bad].item()!r} vs torch {b[bad].item()!r}')
    elif isinstance(t, torch.Size):
        if not isinstance(l, tuple) or tuple(l) != tuple(t): raise _Fail(f'{where}: {l!r}, torch {t!r}')
    elif isinstance(t, (tuple, list)):
        if not isinstance(l, (tuple, list)) or len(l) != len(t):
            raise _Fail(f'{where}: lit_torch returned {type(l).__name__}{f" of {len(l)}" if isinstance(l, (tuple, list)) else ""}, torch {type(t).__name__} of {len(t)}')
        if hasattr(t, '_fields') and getattr(l, '_fields', None) != t._fields:
            raise _Fail(f'{where}: lit_torch returned {type(l).__name__}, torch a named tuple with fields {t._fields}')
        if not hasattr(t, '_fields') and isinstance(t, list) != isinstance(l, list):
            raise _Fail(f'{where}: lit_torch returned a {type(l).__name__}, torch a {type(t).__name__}')
        for i, (tt, ll) in enumerate(zip(t, l)): compare(tt, ll, tol, shape_only, f'{where}[{i}]')
    elif isinstance(t, torch.dtype):
        if _dname(l) != _dname(t): raise _Fail(f'{where}: {l}, torch {t}')
    elif isinstance(t, (bool, int, float, complex)):
        if type(l) is not type(t): raise _Fail(f'{where}: lit_torch returned {type(l).__name__} {l!r}, torch {type(t).__name__} {t!r}')
        if not shape_only and not (l == t or isinstance(t, float) and (np.isclose(l, t, rtol=1.3e-6, atol=1e-5, equal_nan=True))):
            raise _Fail(f'{where}: {l!r}, torch {t!r}')
    elif t is None:
        if l is not None: raise _Fail(f'{where}: lit_torch returned {type(l).__name__}, torch None')
    elif l != t: raise _Fail(f'{where}: {l!r}, torch {t!r}')

def _tensors(t, l):
    "Pairs (torch tensor, lit_torch tensor) at the same place in two matching outputs."
    if isinstance(t, torch.Tensor): return [(t, l)]
    if isinstance(t, (tuple, list)) and not isinstance(t, torch.Size): return [p for tt, ll in zip(t, l) for p in _tensors(tt, ll)]
    return []

def _builtin_type(e):
    return next(c for c in type(e).__mro__ if c.__module__ == 'builtins')

def _lacks(e):
    "What lit_torch lacks, if the exception `e` says so, else None."
    if isinstance(e, Missing): return str(e)
    obj = getattr(e, 'obj', None)
    lit_obj = isinstance(obj, lt.Tensor) or obj is lt.Tensor or isinstance(obj, types.ModuleType) and obj.__name__.startswith('lit_torch')
    if isinstance(e, AttributeError) and lit_obj and not hasattr(obj, e.name):
        tb = e.__traceback__
        while tb.tb_next: tb = tb.tb_next
        if '/torch/testing/' in tb.tb_frame.f_code.co_filename:
            return f'lit_torch.Tensor.{e.name}' if isinstance(obj, lt.Tensor) or obj is lt.Tensor else f'{obj.__name__}.{e.name}'
    return None

def _call(fn, inp, args, kwargs):
    try: return True, fn(inp, *args, **kwargs)
    except Exception as e: return False, e

def _msg(e): return f'{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ""}'

def _same_error(t_exc, l_exc, where):
    if _lacks(l_exc): raise Missing(_lacks(l_exc))
    if _builtin_type(t_exc) is not _builtin_type(l_exc):
        raise _Fail(f'{where}: lit_torch raised {_msg(l_exc)}; torch raised {_msg(t_exc)}')

# ---------------------------------------------------------------------------------------------
# Running one item

def _unbound_on_non_tensor(t_fn, frozen):
    "torch.Tensor.x(2, ...) fails in CPython's descriptor check, a Python method takes any self: not op behaviour."
    return _PATHS.get(id(t_fn), '').startswith('torch.Tensor.') and not isinstance(frozen[0], _T)

def run_item(t_fn, l_fn, frozen, mode, in_place, tol, shape_only, seed):
    "Run one sample on both libraries and compare everything; raises _Fail or Missing, returns on success."
    if _unbound_on_non_tensor(t_fn, frozen): raise Unconvertible('an unbound Tensor method called on a non-Tensor')
    t_leaves, l_leaves = [], []
    t_in, t_args, t_kw = thaw(frozen, torch, {}, t_leaves)
    l_in, l_args, l_kw = thaw(frozen, lt, {}, l_leaves)
    grad = mode == 'grad'
    if grad and in_place and isinstance(t_in, torch.Tensor) and t_in.requires_grad:
        t_in, l_in = t_in.clone(), l_in.clone()   # an in-place op on a leaf that requires grad is an error
    t_ok, t_out = _call(t_fn, t_in, t_args, t_kw)
    l_ok, l_out = _call(l_fn, l_in, l_args, l_kw)
    if not t_ok:
        if l_ok: raise _Fail(f'lit_torch returned {type(l_out).__name__}; torch raised {_msg(t_out)}')
        return _same_error(t_out, l_out, 'forward')
    if not l_ok:
        if _lacks(l_out): raise Missing(_lacks(l_out))
        raise _Fail(f'lit_torch raised {_msg(l_out)}')
    try: compare(t_out, l_out, tol, shape_only, 'output')
    except _Fail:
        if not (mode in ('f32', 'ref32') and _as_accurate_as_torch(t_fn, frozen, t_out, l_out, tol)): raise
    if in_place and isinstance(t_out, torch.Tensor) and t_out is t_in and l_out is not l_in:
        raise _Fail('in-place variant returned a new tensor, not self')
    for i, ((_, tt), (_, ll)) in enumerate(zip(t_leaves, l_leaves)):
        compare(tt, ll, tol, shape_only, f'input {i} after the call')
    if not grad: return
    pairs = [(t, l) for t, l in _tensors(t_out, l_out) if t.requires_grad and t.dtype.is_floating_point]
    if not pairs: return
    for i, (_, l) in enumerate(pairs):
        if not l.requires_grad: raise _Fail(f'output tensor {i} does not require grad in lit_torch')
    rng = np.random.default_rng(seed)
    gouts = [rng.standard_normal(tuple(t.shape)) for t, _ in pairs]
    try: torch.autograd.backward([t for t, _ in pairs], [torch.from_numpy(g).to(t.dtype) for (t, _), g in zip(pairs, gouts)])
    except Exception as e: t_exc = e
    else: t_exc = None
    try: lt.autograd.backward([l for _, l in pairs], [lt.tensor(g, dtype=l.dtype) for (_, l), g in zip(pairs, gouts)])
    except Exception as e: l_exc = e
    else: l_exc = None
    if t_exc is not None:
        if l_exc is None: raise _Fail(f'lit_torch backward ran; torch raised {_msg(t_exc)}')
        return _same_error(t_exc, l_exc, 'backward')
    if l_exc is not None:
        if _lacks(l_exc): raise Missing(_lacks(l_exc))
        raise _Fail(f'backward: lit_torch raised {_msg(l_exc)}')
    for i, ((fz, tt), (_, ll)) in enumerate(zip(t_leaves, l_leaves)):
        if not fz.requires_grad: continue
        tg, lg = tt.grad, ll.grad
        if tg is None or lg is None:
            other = lg if tg is None else tg
            if other is not None and np.any(_np(other)):
                raise _Fail(f'grad of input {i}: ' + ('lit_torch gave none' if lg is None else 'torch gave none, lit_torch nonzero'))
            continue
        compare(tg, lg, tol, shape_only, f'grad of input {i}')

def _upcast(obj):
    "The frozen sample with its float32 tensors in float64."
    if isinstance(obj, _T): return _T(obj.array.astype(np.float64), 'float64', obj.requires_grad) if obj.dtype == 'float32' else obj
    if isinstance(obj, tuple) and hasattr(obj, '_fields'): return type(obj)(*(_upcast(x) for x in obj))
    if isinstance(obj, (list, tuple)) and not isinstance(obj, _Size): return type(obj)(_upcast(x) for x in obj)
    if isinstance(obj, dict): return {k: _upcast(v) for k, v in obj.items()}
    return obj

ACCURACY_FACTOR = 4
def _as_accurate_as_torch(t_fn, frozen, t_out, l_out, tol):
    """A float32 output that differs from torch's by more than the tolerance passes when it is as close to the
    float64 result as torch's own float32 one is, within ACCURACY_FACTOR times torch's largest error on the
    sample: a sum with cancellation (a convolution of values in [-9, 9]) rounds differently with the
    summation order, which OpenBLAS and NumPy choose by alignment, so a fixed tolerance passes or fails by luck."""
    t_in, t_args, t_kw = thaw(_upcast(frozen), torch, {}, [])
    ok, r_out = _call(t_fn, t_in, t_args, t_kw)
    if not ok: return False
    pairs = _tensors(t_out, l_out)
    refs = [r for r, _ in _tensors(r_out, r_out)]
    if len(refs) != len(pairs): return False
    for (t, l), r in zip(pairs, refs):
        if t.dtype != torch.float32 or r.dtype != torch.float64 or tuple(r.shape) != tuple(t.shape): return False
        a, b, ref = _np(l).astype(np.float64), _np(t).astype(np.float64), _np(r)
        rtol, atol = tol['float32']
        torch_err = np.nanmax(np.abs(b - ref), initial=0)
        close = np.abs(a - ref) <= ACCURACY_FACTOR * torch_err + atol + rtol * np.abs(ref)
        if not (close | (np.isnan(a) & np.isnan(ref))).all(): return False
    return True

def run_error_item(t_fn, l_fn, frozen, expected):
    "An OpInfo error input: lit_torch must raise what torch raises (its builtin type), as the OpInfo says it does."
    if _unbound_on_non_tensor(t_fn, frozen): raise Unconvertible('an unbound Tensor method called on a non-Tensor')
    t_in, t_args, t_kw = thaw(frozen, torch, {}, [])
    l_in, l_args, l_kw = thaw(frozen, lt, {}, [])
    t_ok, t_exc = _call(t_fn, t_in, t_args, t_kw)
    l_ok, l_exc = _call(l_fn, l_in, l_args, l_kw)
    if t_ok: raise Unconvertible(f'torch did not raise on this error input (expected {expected})')
    if l_ok: raise _Fail(f'lit_torch did not raise; torch raised {_msg(t_exc)}')
    _same_error(t_exc, l_exc, 'error input')

# ---------------------------------------------------------------------------------------------
# The tests

ENTRIES = {}
for _op in op_db:
    assert entry_key(_op) not in ENTRIES, entry_key(_op)
    ENTRIES[entry_key(_op)] = _op

def _params():
    for key, op in ENTRIES.items():
        if entry_skip_reason(op): yield pytest.param(key, 'skip', id=f'{key}-skip'); continue
        for v in variants(op): yield pytest.param(key, v, id=f'{key}-{v}')

def run_variant(op, key, errors, t_fn, l_fn, in_place):
    "Every item of one variant: {item: (status, message)}, status pass / fail / missing / skip."
    tol, shape_only, items = tolerances(op), key in SHAPE_ONLY, {}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for mode in (['errors'] if errors else modes(op, in_place)):
            try: batch = samples(op, key, mode)
            except Exception as e:
                items[f'{mode}:gen'] = ('skip', f'torch could not make the samples: {_msg(e)}'); continue
            for i, (frozen, extra) in enumerate(batch):
                item = f'{mode}:{i}'
                if isinstance(frozen, Unconvertible): items[item] = ('skip', f'unconvertible: {frozen}'); continue
                try:
                    if errors: run_error_item(t_fn, l_fn, frozen, extra)
                    else:
                        only_shape = shape_only or key in SHAPE_ONLY_IF and bool(SHAPE_ONLY_IF[key][0](*frozen))
                        run_item(t_fn, l_fn, frozen, mode, in_place, tol, only_shape, zlib.crc32(item.encode()))
                    items[item] = ('pass', None)
                except Missing as e:
                    items[item] = ('missing', str(e))
                    # the lambda's op itself is absent: no other sample can do better, and making them costs
                    if all(s == 'missing' for s, _ in items.values()): return items
                except Unconvertible as e: items[item] = ('skip', str(e))
                except _Fail as e: items[item] = ('fail', f'{e} | sample {_describe(frozen)}')
                except Exception as e: items[item] = ('fail', f'driver/compare error {_msg(e)} | sample {_describe(frozen)}')
    return items

@pytest.fixture
def rng_states():
    "Random ops and sample generation draw from torch's and lit_torch's generators: leave them as they were."
    t, l = torch.get_rng_state(), lt.get_rng_state()
    yield
    torch.set_rng_state(t); lt.set_rng_state(l)

@pytest.mark.parametrize('key,variant', list(_params()))
def test_opinfo(key, variant, rng_states):
    op = ENTRIES[key]
    tid = f'{key}-{variant}'
    rec = RESULTS[tid] = {'key': key, 'variant': variant, 'items': {}}
    if variant == 'skip':
        rec['skip'] = entry_skip_reason(op)
        pytest.skip(rec['skip'])
    t_fn, l_fn, lacks, in_place = variants(op)[variant]
    if l_fn is None:
        rec['missing'] = lacks or f'nothing: {t_fn!r} is no public torch callable'
        pytest.skip(f'lit_torch lacks {rec["missing"]}')
    items = rec['items'] = run_variant(op, key, variant == 'errors', t_fn, l_fn, in_place)
    failed = sorted((i for i, (s, _) in items.items() if s == 'fail'), key=_item_order)
    known = set(KNOWN.get(tid, ()))
    rec['fixed'] = sorted(i for i in known if items.get(i, ('fail',))[0] == 'pass')
    new = [i for i in failed if i not in known]
    if new:
        shown = '\n'.join(f'  {i}: {items[i][1]}' for i in new[:5])
        pytest.fail(f'{len(new)} failure(s) not in tests/opinfo_known_failures.json '
                    f'(fix lit_torch, or acknowledge with OPINFO_UPDATE=1):\n{shown}', pytrace=False)
    statuses = {s for s, _ in items.values()}
    if statuses <= {'missing', 'skip'} and 'missing' in statuses:
        rec['missing'] = next(m for s, m in items.values() if s == 'missing')
        pytest.skip(f'lit_torch lacks {rec["missing"]}')
    if failed:
        pytest.xfail(f'{len(failed)} known failure(s) of {len(items)}; first {failed[0]}: {items[failed[0]][1]}')

def _item_order(item):
    mode, _, i = item.partition(':')
    return (list(MODE_DTYPES).index(mode) if mode in MODE_DTYPES else 9, int(i) if i.isdigit() else -1)

# ---------------------------------------------------------------------------------------------
# The summary (printed by tests/conftest.py's pytest_terminal_summary)

def classify():
    "entry key -> (class, first error or reason): pass / partial / fail / missing / skipped."
    by_key = {}
    for rec in RESULTS.values(): by_key.setdefault(rec['key'], []).append(rec)
    out = {}
    for key, recs in by_key.items():
        if any('skip' in r for r in recs): out[key] = ('skipped', recs[0]['skip']); continue
        st = [(r['variant'], i, s, m) for r in recs for i, (s, m) in r['items'].items()]
        n_pass = sum(s == 'pass' for *_, s, _ in st)
        fails = [(v, i, m) for v, i, s, m in st if s == 'fail']
        lacking = sorted({r['missing'] for r in recs if 'missing' in r})
        if not n_pass and not fails: out[key] = ('missing', ', '.join(lacking) or 'no sample ran'); continue
        first = f'[{fails[0][0]} {fails[0][1]}] {fails[0][2]}' if fails else None
        cls = 'pass' if not fails else 'partial' if n_pass else 'fail'
        out[key] = (cls, first, f'{n_pass} passed, {len(fails)} failed', lacking)
    return out

def summary_line(classes=None):
    classes = classes or classify()
    count = lambda c: sum(v[0] == c for v in classes.values())
    n = len(classes) - count('skipped')
    fixed = sum(len(r.get('fixed', ())) for r in RESULTS.values())
    line = (f"opinfo: {count('pass')} pass, {count('partial')} partial, {count('fail')} fail, {count('missing')} missing "
            f"of {n} ({count('skipped')} more skipped with a reason)")
    if fixed: line += f'; {fixed} known failure(s) now pass: refresh with OPINFO_UPDATE=1'
    return line

def report(classes):
    "A markdown report: failing and partial entries with their first error, the passing ones, the missing ones."
    lines = ['# OpInfo driver report', '', summary_line(classes), '']
    for cls in ('fail', 'partial'):
        keys = sorted(k for k, v in classes.items() if v[0] == cls)
        lines += [f'## {cls} ({len(keys)})', '']
        for k in keys:
            _, first, counts, lacking = classes[k]
            lines.append(f'- `{k}` ({counts}{"; lacks " + ", ".join(lacking) if lacking else ""}): {first}')
        lines.append('')
    keys = sorted(k for k, v in classes.items() if v[0] == 'pass')
    lines += [f'## pass ({len(keys)})', '']
    lines += [f'- `{k}`' + (f' (lacks {", ".join(classes[k][3])})' if classes[k][3] else '') for k in keys]
    lines += ['']
    for cls in ('missing', 'skipped'):
        keys = sorted(k for k, v in classes.items() if v[0] == cls)
        lines += [f'## {cls} ({len(keys)})', '']
        groups = {}
        for k in keys: groups.setdefault(classes[k][1] if cls == 'skipped' else '', []).append(k)
        for why, ks in sorted(groups.items()):
            lines.append((f'- {why}: ' if why else '') + ', '.join(f'`{k}`' for k in ks))
        lines.append('')
    return '\n'.join(lines)

def update_known():
    "Rewrite tests/opinfo_known_failures.json with this run's failures (tests that did not run keep theirs)."
    known = dict(KNOWN)
    for tid, rec in RESULTS.items():
        failed = sorted((i for i, (s, _) in rec['items'].items() if s == 'fail'), key=_item_order)
        if failed: known[tid] = failed
        else: known.pop(tid, None)
    body = ',\n'.join(f'  {json.dumps(k)}: {json.dumps(v)}' for k, v in sorted(known.items()))
    KNOWN_PATH.write_text('{\n' + body + '\n}\n')
    return len(known)

def terminal_summary(tr):
    if not RESULTS: return
    classes = classify()
    tr.write_line(summary_line(classes))
    if os.environ.get('OPINFO_UPDATE'):
        tr.write_line(f'opinfo: wrote {update_known()} known-failing tests to {KNOWN_PATH}')
    where = os.environ.get('OPINFO_REPORT')
    if where:
        text = report(classes)
        if where.endswith('.json'):
            Path(where).write_text(json.dumps({'summary': summary_line(classes), 'entries': {k: list(v) for k, v in classes.items()},
                                               'tests': RESULTS}, indent=1, default=str) + '\n')
            tr.write_line(f'opinfo: every item written to {where}')
        elif where.endswith('.md'):
            Path(where).write_text(text + '\n'); tr.write_line(f'opinfo: report written to {where}')
        else:   # on the terminal: fail, partial and skipped; the long pass and missing lists only in a file
            show = True
            for line in text.splitlines():
                if line.startswith('## '): show = not line.startswith(('## pass', '## missing'))
                if show: tr.write_line(line)
