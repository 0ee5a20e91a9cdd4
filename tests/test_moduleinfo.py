"""Every entry of PyTorch's own module database (`torch.testing._internal.common_modules.module_db`), run on
torch and on lit_torch side by side.

For each ModuleInfo whose class lit_torch has (`torch.nn.X` -> `lit_torch.nn.X`) and each sample of its
`module_inputs_func` (float64, float32 and bfloat16, train mode and eval mode):

- both modules are built from the same constructor arguments (tensors, dtypes, functions and modules
  converted to lit_torch through NumPy), the state_dict keys and their order must be equal, and torch's
  `state_dict()` is loaded into lit_torch's;
- the forward inputs run on both; every output (tuples, nested) must match in dtype, shape and value;
- a seeded random grad_output flows back through both; the input gradients and every parameter gradient
  must match, and so must the state after the step (BatchNorm's running stats, Embedding's renormed rows).

bfloat16 runs for every entry, not only those whose ModuleInfo lists it (two do; torch's CPU kernels take it
nearly everywhere), at torch.testing's bfloat16 tolerance; a sample torch itself cannot run in bfloat16 is
skipped, naming torch's error.

Modules that draw random numbers in train mode are compared on shapes and dtypes there, on values in eval.
An entry lit_torch lacks is skipped as *missing*; a known difference is an `xfail(strict=False)` from the
explicit KNOWN list below, so a fix shows up as XPASS and a regression anywhere else fails. At the end of
the session one line sums it up: `moduleinfo: P pass, A partial, F fail, M missing of N` (an entry is
*partial* when some of its samples match and some do not). Run with `-v` for one line per entry.
"""
import copy
import re
import zlib
import warnings
from collections import defaultdict
import numpy as np
import pytest

torch = pytest.importorskip('torch')
pytest.importorskip('expecttest')
with warnings.catch_warnings():
    warnings.simplefilter('ignore')
    _frozen = torch.backends.flags_frozen()
    from torch.testing._internal.common_modules import module_db
    if not _frozen:  # common_utils freezes torch.backends' flags on import: give the rest of the session them back
        torch.backends.flags_frozen.__globals__['__allow_nonbracketed_mutation_flag'] = True

import lit_torch as lt
import lit_torch.nn as lnn
import lit_torch.nn.functional as LF

pytestmark = pytest.mark.filterwarnings('ignore')

DTYPES = (torch.float64, torch.float32, torch.bfloat16)
# Relative tolerance, and an absolute one scaled by the largest |value| of the tensor compared (at least 1):
# a float32 gradient element that is a small sum of large terms carries their rounding, not its own.
TOL = {torch.float64: dict(rtol=1e-7, atol=1e-9), torch.float32: dict(rtol=1e-5, atol=1e-5),
       torch.bfloat16: dict(rtol=1.6e-2, atol=1e-2)}  # bfloat16 keeps 8 bits: one step at 1.0 is 0.0078
GRAD_TOL = TOL
MAX_SAMPLES = 32  # per entry, dtype and mode, spread evenly over the sample list (keeps the file at ~2 minutes)

# Modules whose train-mode forward draws random numbers: there only shapes and dtypes are compared.
RANDOM_IN_TRAIN = {
    'nn.Dropout', 'nn.Dropout1d', 'nn.Dropout2d', 'nn.Dropout3d', 'nn.AlphaDropout', 'nn.FeatureAlphaDropout',
    'nn.RReLU',
}
RANDOM_REASON = 'draws random numbers in train mode: compared on shapes and dtypes there, on values in eval mode'
# FractionalMaxPool draws its pooling regions in both modes unless `_random_samples` fixes them.
RANDOM_UNLESS_SAMPLES = {'nn.FractionalMaxPool2d', 'nn.FractionalMaxPool3d'}

# Samples not run, each with its reason: (entry, regex over the sample's key, reason).
SKIP_SAMPLES = [
]

# Known differences: entry -> [(reason, regex over the keys of the samples that differ), ...].
# A failing sample that matches none of its entry's patterns fails the test as a regression.
KNOWN = {
}
# bfloat16 only: entry -> [(reason, regex over a failing sample's message), ...].
_GRAD_TOL = r'AssertionError: Not equal to tolerance[^\n]*\n(param \S+|input \d+) grad'
KNOWN_BF16 = {name: [('gradients through attention in bfloat16: torch rounds the softmax, its backward and the '
                      'products at other points than lit_torch (whose forward follows torch\'s); either can be a few '
                      'bfloat16 steps nearer float64', _GRAD_TOL)]
              for name in ('nn.MultiheadAttention', 'nn.TransformerEncoderLayer', 'nn.TransformerEncoder',
                           'nn.TransformerDecoderLayer', 'nn.Transformer')}

# Options module_db never exercises but lit_torch's signatures accept: extra samples (desc `extra_*`), run like
# module_db's own and counted with them.
def _extra_inputs(name, dtype, training):
    from torch.testing._internal.common_modules import ModuleInput, FunctionInput
    if name == 'nn.Embedding':
        idx = torch.tensor([[0, 2, 3], [3, 1, 0]])
        return [ModuleInput(FunctionInput(4, 3, max_norm=1.0), FunctionInput(idx), desc='extra_max_norm'),
                ModuleInput(FunctionInput(4, 3, padding_idx=1), FunctionInput(idx), desc='extra_padding_idx'),
                ModuleInput(FunctionInput(4, 3, max_norm=0.5, norm_type=1.0), FunctionInput(idx), desc='extra_max_norm_l1')]
    x = lambda *shape: torch.randn(*shape, dtype=dtype, generator=torch.Generator().manual_seed(7)).requires_grad_()
    conv = {'nn.Conv1d': 1, 'nn.Conv2d': 2, 'nn.Conv3d': 3}
    if name in conv:
        n = conv[name]
        return [ModuleInput(FunctionInput(4, 6, 3, **kw), FunctionInput(x(2, 4, *[9] * n)), desc=f'extra_{d}')
                for d, kw in [('stride_dilation', dict(stride=2, dilation=2)), ('groups', dict(groups=2, bias=False)),
                              ('padding', dict(padding=2)), ('reflect', dict(padding=1, padding_mode='reflect')),
                              ('circular', dict(padding=2, padding_mode='circular')),
                              ('replicate', dict(padding=1, padding_mode='replicate')),
                              ('same_dilation', dict(padding='same', dilation=2)), ('valid', dict(padding='valid'))]]
    convt = {'nn.ConvTranspose1d': 1, 'nn.ConvTranspose2d': 2, 'nn.ConvTranspose3d': 3}
    if name in convt:
        n = convt[name]
        return [ModuleInput(FunctionInput(4, 6, k, **kw), FunctionInput(x(2, 4, *[5] * n)), desc=f'extra_{d}')
                for d, k, kw in [('stride_output_padding', 3, dict(stride=2, padding=1, output_padding=1)),
                                 ('groups_dilation', 3, dict(groups=2, dilation=2, bias=False)),
                                 ('dcgan', 4, dict(stride=2, padding=1))]]
    if name == 'nn.MaxPool2d':
        return [ModuleInput(FunctionInput(3, **kw), FunctionInput(x(2, 3, 8, 7)), desc=f'extra_{d}')
                for d, kw in [('ceil_mode', dict(stride=2, ceil_mode=True)), ('dilation', dict(stride=1, dilation=2)),
                              ('padding_indices', dict(stride=2, padding=1, return_indices=True))]]
    if name == 'nn.AvgPool2d':
        return [ModuleInput(FunctionInput(3, **kw), FunctionInput(x(2, 3, 8, 7)), desc=f'extra_{d}')
                for d, kw in [('ceil_mode', dict(stride=2, ceil_mode=True)),
                              ('no_count_pad', dict(stride=2, padding=1, count_include_pad=False)),
                              ('ceil_pad', dict(stride=2, padding=1, ceil_mode=True))]]
    if name == 'nn.AdaptiveAvgPool2d':
        return [ModuleInput(FunctionInput((3, 2)), FunctionInput(x(2, 3, 7, 5)), desc='extra_uneven')]
    if name == 'nn.LayerNorm':
        return [ModuleInput(FunctionInput(6, eps=1e-3, bias=False), FunctionInput(x(3, 6)), desc='extra_no_bias')]
    if name == 'nn.BCEWithLogitsLoss':
        return [ModuleInput(FunctionInput(pos_weight=torch.rand(5, dtype=dtype) + 0.5),
                            FunctionInput(x(4, 5), torch.rand(4, 5, dtype=dtype)), desc='extra_pos_weight')]
    if name == 'nn.Softmax':
        return [ModuleInput(FunctionInput(dim=0), FunctionInput(x(3, 4, 5)), desc='extra_dim0')]
    return []

# ---------------------------------------------------------------------------------------------------- conversion
class DriverError(Exception):
    "Something the driver cannot convert: reported as the sample's failure, never silently."

def lit_dtype(d): return getattr(lt, str(d).split('.')[-1])

def _lit_module(m, memo):
    "A lit_torch twin of a torch module passed as a constructor argument (TransformerEncoder takes a layer)."
    name = type(m).__name__
    if name in ('TransformerEncoderLayer', 'TransformerDecoderLayer'):
        sa = m.self_attn
        kw = dict(d_model=sa.embed_dim, nhead=sa.num_heads, dim_feedforward=m.linear1.out_features, dropout=m.dropout.p,
                  activation=to_lit(m.activation, memo), layer_norm_eps=m.norm1.eps, batch_first=sa.batch_first,
                  norm_first=m.norm_first, bias=m.linear1.bias is not None, dtype=lit_dtype(m.linear1.weight.dtype))
        twin = getattr(lnn, name)(**kw)
        twin.load_state_dict(to_lit(m.state_dict(), memo))
        twin.train(m.training)
        return twin
    raise DriverError(f'cannot convert a torch module {name} to lit_torch')

def to_lit(x, memo):
    "torch -> lit_torch through NumPy: tensors (shared ones stay shared), dtypes, devices, containers, F.* and modules."
    if isinstance(x, torch.Tensor):
        if id(x) not in memo:
            t = x.detach().cpu()
            a = t.float().numpy().copy() if t.dtype == torch.bfloat16 else t.numpy().copy()
            memo[id(x)] = lt.tensor(a, dtype=lit_dtype(t.dtype), requires_grad=x.requires_grad)
        return memo[id(x)]
    if isinstance(x, torch.dtype): return lit_dtype(x)
    if isinstance(x, torch.device): return lt.device(str(x))
    if isinstance(x, torch.nn.Module): return _lit_module(x, memo)
    if isinstance(x, dict): return type(x)((k, to_lit(v, memo)) for k, v in x.items())
    if isinstance(x, (list, tuple)): return (tuple if isinstance(x, torch.Size) else type(x))(to_lit(v, memo) for v in x)
    if callable(x) and hasattr(x, '__name__'):
        if getattr(torch.nn.functional, x.__name__, None) is x: return getattr(LF, x.__name__)
        if getattr(torch, x.__name__, None) is x: return getattr(lt, x.__name__)
    return x

def to_numpy(t):
    "A NumPy array of a torch or lit_torch tensor; bfloat16 as float32 (torch's numpy() refuses it)."
    if not isinstance(t, (torch.Tensor, lt.Tensor)): return t
    t = t.detach().cpu()
    return t.float().numpy() if repr(t.dtype).endswith('bfloat16') else t.numpy()

def flat(out):
    "The leaves of a (nested) output, in order."
    if isinstance(out, (list, tuple)): return [leaf for o in out for leaf in flat(o)]
    return [out]

# ---------------------------------------------------------------------------------------------------- comparisons
def check_value(what, t, l, dtype, values=True, tol=TOL):
    "lit_torch's `l` against torch's `t`: type, dtype, shape and (if `values`) the numbers."
    if isinstance(t, torch.Tensor):
        assert isinstance(l, lt.Tensor), f'{what}: lit_torch gave {type(l).__name__}, torch a Tensor'
        assert repr(l.dtype) == repr(t.dtype), f'{what}: dtype {l.dtype} != torch {t.dtype}'
        assert tuple(l.shape) == tuple(t.shape), f'{what}: shape {tuple(l.shape)} != torch {tuple(t.shape)}'
        if values:
            a, b = to_numpy(l), to_numpy(t)
            if a.dtype.kind in 'fc':
                scale = max(1.0, float(np.nanmax(np.abs(b), initial=0.0))) if np.isfinite(b).any() else 1.0
                np.testing.assert_allclose(a, b, rtol=tol[dtype]['rtol'], atol=tol[dtype]['atol'] * scale, err_msg=what)
            else: np.testing.assert_array_equal(a, b, err_msg=what)
    elif t is None:
        assert l is None, f'{what}: lit_torch gave {type(l).__name__}, torch None'
    else:
        assert type(l) == type(t) and (not values or l == t), f'{what}: lit_torch {l!r} != torch {t!r}'

def check_state(what, sd_t, sd_l, dtype, values=True):
    kt, kl = list(sd_t.keys()), list(sd_l.keys())
    assert kl == kt, f'{what}: state_dict keys {kl} != torch {kt}'
    for k in kt: check_value(f'{what} {k}', sd_t[k], sd_l[k], dtype, values)

def build(info, lcls, sample, dtype):
    "Both modules from one constructor input; lit_torch's gets torch's weights."
    args, kwargs = sample.constructor_input.args, sample.constructor_input.kwargs
    torch.manual_seed(0)
    m_t = info.module_cls(*args, **kwargs).to(dtype)
    memo = {}
    try:
        m_l = lcls(*to_lit(args, memo), **to_lit(kwargs, memo))
    except DriverError: raise
    except Exception as e:
        raise AssertionError(f'construction: {type(e).__name__}: {e}') from e
    m_l = m_l.to(lit_dtype(dtype))
    if isinstance(m_t, torch.nn.modules.lazy.LazyModuleMixin) and m_t.has_uninitialized_params():
        fi = sample.forward_input  # a lazy module learns its shapes from a first call: make both, then copy torch's weights
        with torch.no_grad(): m_t(*fi.args, **fi.kwargs)
        with lt.no_grad(): m_l(*to_lit(fi.args, {}), **to_lit(fi.kwargs, {}))
    sd_t = m_t.state_dict()
    kt, kl = list(sd_t.keys()), list(m_l.state_dict().keys())
    assert kl == kt, f'state_dict keys {kl} != torch {kt}'
    m_l.load_state_dict(to_lit(sd_t, {}))
    check_state('loaded state', sd_t, m_l.state_dict(), dtype)
    return m_t, m_l

def run_sample(info, lcls, sample, dtype, training, seed):
    "One sample in one mode: construction, forward, backward and the state after; raises on the first difference."
    name = info.name
    random_train = name in RANDOM_IN_TRAIN or (name in RANDOM_UNLESS_SAMPLES and '_random_samples' not in sample.constructor_input.kwargs)
    values = not (random_train and (training or name in RANDOM_UNLESS_SAMPLES))
    m_t, m_l = build(info, lcls, sample, dtype)
    m_t.train(training); m_l.train(training)
    fargs, fkwargs = sample.forward_input.args, sample.forward_input.kwargs
    memo = {}
    l_args, l_kwargs = to_lit(fargs, memo), to_lit(fkwargs, memo)
    inputs_t = [x for x in flat(list(fargs) + list(fkwargs.values())) if isinstance(x, torch.Tensor)]
    for x in inputs_t:  # an input made from a leaf (a transposed or softmaxed tensor) is a leaf in lit_torch
        if x.requires_grad and not x.is_leaf: x.retain_grad()
    try: out_t = m_t(*fargs, **fkwargs)
    except (RuntimeError, NotImplementedError) as e:
        if dtype == torch.bfloat16: raise TorchLacks(f'torch forward: {e}') from e
        raise
    try:
        out_l = m_l(*l_args, **l_kwargs)
    except Exception as e:
        raise AssertionError(f'forward: {type(e).__name__}: {e}') from e
    ft, fl = flat(out_t), flat(out_l)
    assert len(fl) == len(ft), f'forward gave {len(fl)} outputs, torch {len(ft)}'
    for i, (t, l) in enumerate(zip(ft, fl)): check_value(f'output {i}', t, l, dtype, values)
    # backward: a seeded random grad_output for every output torch can differentiate
    rng = np.random.default_rng(seed)
    pairs = [(t, l) for t, l in zip(ft, fl) if isinstance(t, torch.Tensor) and t.requires_grad]
    if pairs:
        grads = [rng.standard_normal(tuple(t.shape)).astype(to_numpy(t).dtype) for t, _ in pairs]
        for i, (t, l) in enumerate(pairs):
            assert l.requires_grad, f'output {i} does not require grad in lit_torch'
        try: torch.autograd.backward([t for t, _ in pairs], [torch.from_numpy(g.copy()).to(t.dtype) for g, (t, _) in zip(grads, pairs)])
        except RuntimeError as e:
            if dtype == torch.bfloat16: raise TorchLacks(f'torch backward: {e}') from e
            raise
        try:
            lt.autograd.backward([l for _, l in pairs], [lt.tensor(g.copy()).to(l.dtype) for g, (_, l) in zip(grads, pairs)])
        except Exception as e:
            raise AssertionError(f'backward: {type(e).__name__}: {e}') from e
        for i, x in enumerate(inputs_t):
            if not x.requires_grad: continue
            gl = memo[id(x)].grad
            if x.grad is None:
                assert gl is None or not np.any(to_numpy(gl)), f'input {i}: lit_torch has a gradient, torch none'
            else:
                assert gl is not None, f'input {i}: lit_torch has no gradient, torch has one'
                check_value(f'input {i} grad', x.grad, gl, dtype, values, GRAD_TOL)
        params_l = dict(m_l.named_parameters())
        for k, p in m_t.named_parameters():
            assert k in params_l, f'parameter {k} missing in lit_torch'
            gl = params_l[k].grad
            if p.grad is None:
                assert gl is None or not np.any(to_numpy(gl)), f'param {k}: lit_torch has a gradient, torch none'
            else:
                assert gl is not None, f'param {k}: lit_torch has no gradient, torch has one'
                check_value(f'param {k} grad', p.grad, gl, dtype, values, GRAD_TOL)
    check_state('state after forward', m_t.state_dict(), m_l.state_dict(), dtype, values)

def _fresh(x, memo, dtype=None):
    "New leaf copies of the torch tensors in `x` (shared ones stay shared), cast to `dtype` if given."
    if isinstance(x, torch.Tensor):
        if id(x) not in memo:
            t = x.detach().clone() if dtype is None or not x.is_floating_point() else x.detach().to(dtype)
            memo[id(x)] = t.requires_grad_(x.requires_grad)
        return memo[id(x)]
    if isinstance(x, dict): return type(x)((k, _fresh(v, memo, dtype)) for k, v in x.items())
    if isinstance(x, (list, tuple)) and not isinstance(x, torch.Size): return type(x)(_fresh(v, memo, dtype) for v in x)
    return x

def _collect(lib, m, args, kwargs, seed):
    "Outputs, input and parameter gradients (for bfloat16-rounded grad_outputs) and buffers of one run, as float64."
    inputs = [x for x in flat(list(args) + list(kwargs.values())) if isinstance(x, lib.Tensor)]
    outs = [o for o in flat(m(*args, **kwargs)) if isinstance(o, lib.Tensor)]
    res = {f'output {i}': o for i, o in enumerate(outs)}
    rng, diff = np.random.default_rng(seed), [o for o in outs if o.requires_grad]
    grads = [torch.from_numpy(rng.standard_normal(tuple(o.shape)).astype(np.float32)).bfloat16().double().numpy() for o in diff]
    if diff:
        lib.autograd.backward(diff, [lib.tensor(g).to(o.dtype) for g, o in zip(grads, diff)])
        res.update({f'input {i} grad': x.grad for i, x in enumerate(inputs) if x.grad is not None})
        res.update({f'param {k} grad': p.grad for k, p in m.named_parameters() if p.grad is not None})
    res.update({f'buffer {k}': b for k, b in m.named_buffers() if b is not None})
    return {k: to_numpy(v).astype(np.float64) for k, v in res.items()}

def as_accurate_as_torch(info, lcls, sample, training, seed):
    """bfloat16: lit_torch's outputs, gradients and buffers are at most as far from float64 as torch's own bfloat16
    ones (twice, plus one bfloat16 step of the largest value). torch rounds some steps to bfloat16 that lit_torch keeps in float32."""
    m_t, m_l = build(info, lcls, sample, torch.bfloat16)
    m_64 = copy.deepcopy(m_t).double()
    for m in (m_t, m_l, m_64): m.train(training)
    fi = (sample.forward_input.args, sample.forward_input.kwargs)
    T = _collect(torch, m_t, *_fresh(fi, {}), seed)
    R = _collect(torch, m_64, *_fresh(fi, {}, torch.float64), seed)
    fresh = _fresh(fi, {})  # kept alive while converted: to_lit's memo is keyed by id()
    L = _collect(lt, m_l, *to_lit(fresh, {}), seed)
    if L.keys() != T.keys() or R.keys() != T.keys(): return False
    err = lambda a, k: float(np.nanmax(np.abs(a[k] - R[k]), initial=0.0))
    return all(err(L, k) <= 2 * err(T, k) + 2**-8 * max(1.0, float(np.nanmax(np.abs(R[k]), initial=0.0))) for k in T)

def _arbiter(info, lcls, sample, training, seed):
    try: return as_accurate_as_torch(info, lcls, sample, training, seed)
    except Exception: return False  # torch cannot run it in float64, or lit_torch fails again: the first failure stands

# ---------------------------------------------------------------------------------------------------- the driver
def sample_key(mode, i, s):
    c = s.constructor_input
    ctor = ', '.join([_short(a) for a in c.args] + [f'{k}={_short(v)}' for k, v in c.kwargs.items()])
    return f'{mode}[{i}] {s.desc or "-"} ({ctor})'

def _short(v):
    if isinstance(v, torch.Tensor): return f'T{tuple(v.shape)}'
    if isinstance(v, torch.nn.Module): return type(v).__name__
    if callable(v) and hasattr(v, '__name__'): return v.__name__
    return repr(v)

def pick(samples):
    "At most MAX_SAMPLES samples, spread evenly (the first and the last always in)."
    idx = sorted(set(np.linspace(0, len(samples) - 1, min(MAX_SAMPLES, len(samples))).round().astype(int))) if samples else []
    return [(i, samples[i]) for i in idx]

RESULTS = defaultdict(dict)  # entry -> {(dtype, sample key): 'pass' | 'fail' | 'skip' | 'missing'}
FAILURES = defaultdict(dict)  # entry -> {(dtype, sample key): message}
RUN = set()

class TorchLacks(Exception):
    "torch itself cannot run this sample in bfloat16: nothing to compare."

class KnownDifference(Exception):
    "Raised when every failing sample of an entry is one the KNOWN list expects."

def lit_class(info):
    return getattr(lnn, info.module_cls.__name__, None)

def _params():
    out = []
    for info in module_db:
        for dtype in DTYPES:
            marks = []
            known = KNOWN_BF16 if dtype == torch.bfloat16 else KNOWN
            if info.name in known:
                reason = '; '.join(r for r, _ in known[info.name])
                marks.append(pytest.mark.xfail(strict=False, raises=KnownDifference, reason=reason))
            out.append(pytest.param(info, dtype, marks=marks, id=f'{info.name}-{str(dtype)[6:]}'))
    return out

@pytest.fixture(autouse=True)
def _rng_given_back(request):
    "A bfloat16 test seeds its own samples, then gives torch's RNG back: the float tests after it see the values they always saw."
    state = torch.random.get_rng_state()
    yield
    if request.node.name.endswith('-bfloat16]'): torch.random.set_rng_state(state)

@pytest.mark.parametrize('info,dtype', _params())
def test_moduleinfo(info, dtype):
    name = info.name
    RUN.add(name)
    lcls = lit_class(info)
    if lcls is None:
        RESULTS[name][(None, 'missing')] = 'missing'
        pytest.skip(f'missing: lit_torch.nn has no {info.module_cls.__name__}')
    if dtype not in info.dtypes and dtype != torch.bfloat16:
        pytest.skip(f'{name} does not list {dtype} in its ModuleInfo.dtypes')
    unexpected, expected, skipped = [], [], []
    for training in (True, False):
        mode = 'train' if training else 'eval'
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            if dtype == torch.bfloat16: torch.manual_seed(zlib.crc32(f'{name}-{mode}'.encode()))  # values independent of the tests before
            samples = info.module_inputs_func(info, device='cpu', dtype=dtype, requires_grad=True, training=training)
        samples = pick(samples) + [(len(samples) + j, s) for j, s in enumerate(_extra_inputs(name, dtype, training))]
        for i, s in samples:
            key = sample_key(mode, i, s)
            reason = next((r for e, pat, r in SKIP_SAMPLES if e == name and re.search(pat, key)), None)
            if reason:
                RESULTS[name][(dtype, key)] = 'skip'; skipped.append(f'{key}: {reason}'); continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter('ignore')
                    try: run_sample(info, lcls, s, dtype, training, seed=i)
                    except AssertionError as e:
                        if not (dtype == torch.bfloat16 and 'Not equal to tolerance' in str(e) and _arbiter(info, lcls, s, training, i)): raise
                RESULTS[name][(dtype, key)] = 'pass'
            except TorchLacks as e:
                RESULTS[name][(dtype, key)] = 'skip'; skipped.append(f'{key}: {str(e)[:200]}')
            except Exception as e:
                msg = f'{key}: {type(e).__name__}: {str(e).strip()[:600]}'
                RESULTS[name][(dtype, key)] = 'fail'
                FAILURES[name][(dtype, key)] = msg
                pats = KNOWN_BF16.get(name, ()) if dtype == torch.bfloat16 else [(r, p) for r, p in KNOWN.get(name, ())]
                known = next((r for r, pat in pats if re.search(pat, key if dtype != torch.bfloat16 else msg)), None)
                if known: expected.append(f'{msg}\n    (known: {known})')
                else: unexpected.append(msg)
    if unexpected:
        pytest.fail(f'{len(unexpected)} sample(s) differ from torch:\n' + '\n'.join(unexpected), pytrace=False)
    if expected:
        raise KnownDifference(f'{len(expected)} sample(s) differ as known:\n' + '\n'.join(expected))

# ---------------------------------------------------------------------------------------------------- summary
def entry_status(name):
    res = RESULTS.get(name, {})
    if 'missing' in res.values(): return 'missing'
    ran = [v for v in res.values() if v in ('pass', 'fail')]
    if not ran: return None
    if all(v == 'pass' for v in ran): return 'pass'
    if all(v == 'fail' for v in ran): return 'fail'
    return 'partial'

def summary_line():
    names = list(dict.fromkeys(info.name for info in module_db))
    st = [entry_status(n) for n in names if n in RUN]
    c = {k: st.count(k) for k in ('pass', 'partial', 'fail', 'missing')}
    line = f"moduleinfo: {c['pass']} pass, {c['partial']} partial, {c['fail']} fail, {c['missing']} missing of {len(names)}"
    if len(RUN) < len(names): line += f' (ran {len(RUN)} entries)'
    return line

class _SummaryPlugin:
    "Prints this driver's summary line at the end of the session (a plugin of its own: other drivers add theirs)."
    def pytest_terminal_summary(self, terminalreporter, config):
        terminalreporter.write_line(summary_line())
        if config.option.verbose > 0:
            for name in dict.fromkeys(info.name for info in module_db):
                if name not in RUN: continue
                status, res = entry_status(name), RESULTS[name]
                n = {k: sum(v == k for v in res.values()) for k in ('pass', 'fail', 'skip')}
                counts = '' if status == 'missing' else f" ({n['pass']} samples pass, {n['fail']} fail, {n['skip']} skipped)"
                terminalreporter.write_line(f'  {name}: {status}{counts}' + ''.join(f' -- {r}' for r, _ in KNOWN.get(name, ())))

@pytest.fixture(scope='module', autouse=True)
def _summary(pytestconfig):
    if not pytestconfig.pluginmanager.has_plugin('lit-moduleinfo-summary'):
        pytestconfig.pluginmanager.register(_SummaryPlugin(), 'lit-moduleinfo-summary')
    yield
