"""Every entry of PyTorch's own optimizer database (`torch.testing._internal.common_optimizers.optim_db`), run on
torch and on lit_torch side by side.

For each OptimizerInfo whose class lit_torch has (`torch.optim.X` -> `lit_torch.optim.X`) and every configuration
it lists for the CPU, with the implementation flags PyTorch's own tests add (`foreach`, `fused`, `differentiable`;
`_get_optim_inputs_including_global_cliquey_kwargs`), in float64 and float32:

- both optimizers get the same initial parameters (several shapes, a 0-d one among them) and the same seeded
  gradients for STEPS steps; the parameters must match after every step, and the final `state_dict()` must match
  key by key (state and param_groups, their order, dtypes, shapes and values);
- torch's state_dict is then loaded (`load_state_dict`) into a fresh torch and a fresh lit_torch optimizer over copies of the
  parameters, both continue for MORE_STEPS steps and are compared again the same way;
- LBFGS needs a closure: both get the same deterministic quadratic.

Configurations PyTorch lists only for CUDA (`capturable`, Tensor betas) run too: torch on the CPU cannot take
`capturable=True`, so torch runs them without it and lit_torch with it (the same math). Known differences are
`xfail(strict=False)` entries of the explicit KNOWN list; skips are explicit, each with its reason. At the end of
the session: `optiminfo: P pass, A partial, F fail, M missing of N`. Run with `-v` for one line per entry.
"""
import re
import warnings
from collections import defaultdict
from copy import deepcopy
import numpy as np
import pytest

torch = pytest.importorskip('torch')
pytest.importorskip('expecttest')
with warnings.catch_warnings():
    warnings.simplefilter('ignore')
    _frozen = torch.backends.flags_frozen()
    from torch.testing._internal.common_optimizers import optim_db, _get_optim_inputs_including_global_cliquey_kwargs
    if not _frozen:  # common_utils freezes torch.backends' flags on import: give the rest of the session them back
        torch.backends.flags_frozen.__globals__['__allow_nonbracketed_mutation_flag'] = True

import lit_torch as lt
import lit_torch.optim as loptim

pytestmark = pytest.mark.filterwarnings('ignore')

DTYPES = (torch.float64, torch.float32)
TOL = {torch.float64: dict(rtol=1e-10, atol=1e-12), torch.float32: dict(rtol=1e-5, atol=1e-6)}
# LBFGS's direction is built from many dot products (summed in another order by NumPy than by torch) and the line
# search branches on them: last-bit differences grow to ~1e-10 relative over 10 steps in float64. Its direction `d`
# is a combination of such vectors, so a small entry carries the error of the large ones: compared normwise
TOL_FOR = {'LBFGS': {torch.float64: dict(rtol=1e-8, atol=1e-9), torch.float32: dict(rtol=1e-4, atol=1e-5), 'normwise': True}}
STEPS, MORE_STEPS = 7, 3
# Each configuration runs on two parameter lists: 'mixed' (several shapes and a 0-d one) and 'nd' (the same
# without the 0-d one), so that a problem with 0-d parameters does not hide everything else.
PARAM_SETS = {'mixed': [(3, 4), (5,), (), (2, 1, 3)], 'nd': [(3, 4), (5,), (2, 1, 3)]}
PARAM_SETS_FOR = {'Muon': {'nd': [(3, 4), (4, 2)]}}  # Muon orthogonalises matrices: 2-d parameters only

# Whole entries not run, each with its reason.
SKIP = {
    'SparseAdam': 'needs sparse gradients (torch.sparse_coo); lit_torch has no sparse tensors',
}
# Configurations not run: (entry, regex over the config key, reason).
SKIP_CONFIGS = [
    ('*', r'differentiable=True', "differentiable=True (autograd through the update) raises NotImplementedError at "
     "construction: deliberate, nbs/08_optim.ipynb's 'Differs from PyTorch' says so"),
]

# (entry, dtype) pairs not run, each with its reason.
SKIP_DTYPES = {
    ('LBFGS', torch.float32): "float32 dot products are summed in another order by NumPy than by torch (~1e-7 apart); "
                              "up to 20 L-BFGS iterations per step on an ill-conditioned quadratic amplify that to ~1e-3 "
                              "after 7 steps (float64 agrees to 1e-8; nbs/08l_lbfgs.ipynb checks float64 against torch)",
}
# Known differences: entry -> [(reason, regex over the keys of the configurations that differ), ...].
# A failing configuration that matches none of its entry's patterns fails the test as a regression.
KNOWN = {
}

# ---------------------------------------------------------------------------------------------------- configs
def configs(info):
    "Every configuration PyTorch's tests use on the CPU, plus foreach=True and the CUDA-only ones, with keys."
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        out = [(c.kwargs, c.desc, None) for c in _get_optim_inputs_including_global_cliquey_kwargs('cpu', torch.float64, info)]
        base = info.optim_inputs_func('cpu')
        if 'foreach' in info.supported_impls:  # PyTorch's helper adds foreach only on devices with foreach kernels
            out += [({**c.kwargs, 'foreach': True}, f'{c.desc} & foreach', None) for c in base]
        cpu_descs = {c.desc for c in base}
        for c in info.optim_inputs_func('cuda'):
            if c.desc in cpu_descs: continue
            torch_kw = {k: v for k, v in c.kwargs.items() if k != 'capturable'}
            out.append((c.kwargs, f'{c.desc} (CUDA config; torch on CPU without capturable)', torch_kw))
    if info.supports_param_groups:  # LBFGS refuses groups (torch raises ValueError too)
        out.append(({}, 'extra: two param groups, the second with its own lr', 'groups'))
    sets = PARAM_SETS_FOR.get(info.optim_cls.__name__, PARAM_SETS)
    return [(f'[{i}] {desc} {_kwstr(kw)} params={ps}', kw, tkw, sets[ps]) for i, (kw, desc, tkw) in enumerate(out) for ps in sets]

def _kwstr(kw):
    return '{' + ', '.join(f'{k}={_short(v)}' for k, v in kw.items()) + '}'

def _short(v):
    if isinstance(v, torch.Tensor): return f'tensor{tuple(v.shape)}({v.flatten()[0].item():g})' if v.numel() else 'tensor()'
    if isinstance(v, (tuple, list)): return '(' + ', '.join(_short(x) for x in v) + ')'
    return repr(v)

# ---------------------------------------------------------------------------------------------------- conversion
def lit_dtype(d): return getattr(lt, str(d).split('.')[-1])

def to_lit(x):
    "torch -> lit_torch through NumPy: tensors (with requires_grad), dtypes, containers; numbers and strings as they are."
    if isinstance(x, torch.Tensor):
        return lt.tensor(x.detach().cpu().numpy().copy(), requires_grad=x.requires_grad)
    if isinstance(x, torch.dtype): return lit_dtype(x)
    if isinstance(x, dict): return type(x)((k, to_lit(v)) for k, v in x.items())
    if isinstance(x, (list, tuple)): return type(x)(to_lit(v) for v in x)
    return x

def to_numpy(t): return t.detach().cpu().numpy()

def _leaves(x):
    if isinstance(x, dict): return [leaf for v in x.values() for leaf in _leaves(v)]
    if isinstance(x, (list, tuple)): return [leaf for v in x for leaf in _leaves(v)]
    return [x]

def check_value(what, t, l, dtype, tol=TOL):
    "lit_torch's `l` against torch's `t`: tensors by dtype, shape and value; containers by length; the rest by type and value."
    if isinstance(t, torch.Tensor):
        assert isinstance(l, lt.Tensor), f'{what}: lit_torch gave {type(l).__name__} {l!r}, torch a Tensor {t!r}'
        assert repr(l.dtype) == repr(t.dtype), f'{what}: dtype {l.dtype} != torch {t.dtype}'
        assert tuple(l.shape) == tuple(t.shape), f'{what}: shape {tuple(l.shape)} != torch {tuple(t.shape)}'
        kw = dict(tol[dtype])
        if tol.get('normwise') and t.numel():  # error relative to the tensor's largest entry, not to each entry
            kw['atol'] = max(kw['atol'], kw['rtol'] * float(t.detach().abs().max()))
        np.testing.assert_allclose(to_numpy(l), to_numpy(t), err_msg=what, **kw)
    elif isinstance(t, dict):
        assert isinstance(l, dict), f'{what}: lit_torch gave {type(l).__name__}, torch a dict'
        assert list(l.keys()) == list(t.keys()), f'{what}: keys {list(l.keys())} != torch {list(t.keys())}'
        for k in t: check_value(f'{what}[{k!r}]', t[k], l[k], dtype, tol)
    elif isinstance(t, (list, tuple)):
        assert type(l) is type(t) and len(l) == len(t), f'{what}: lit_torch {l!r} != torch {t!r}'
        for i, (a, b) in enumerate(zip(t, l)): check_value(f'{what}[{i}]', a, b, dtype, tol)
    elif isinstance(t, float):  # a number computed from tensors (LBFGS's losses): equal to the tensors' tolerance
        assert type(l) is float and np.isclose(l, t, equal_nan=True, **tol[dtype]), f'{what}: lit_torch {l!r} != torch {t!r}'
    else:
        assert type(l) is type(t) and (l == t or (l != l and t != t)), f'{what}: lit_torch {l!r} != torch {t!r}'

def check_state_dict(what, sd_t, sd_l, dtype, tol=TOL, unlike=()):
    "Two optimizer state dicts, key by key; the `unlike` group keys (set differently on purpose) by presence only."
    assert list(sd_l.keys()) == list(sd_t.keys()), f'{what}: keys {list(sd_l.keys())} != torch {list(sd_t.keys())}'
    check_value(f'{what} state', sd_t['state'], sd_l['state'], dtype, tol)
    groups_l = [{k: (gt[k] if k in unlike and k in gt else v) for k, v in gl.items()}
                for gl, gt in zip(sd_l['param_groups'], sd_t['param_groups'])] + sd_l['param_groups'][len(sd_t['param_groups']):]
    check_value(f'{what} param_groups', sd_t['param_groups'], groups_l, dtype, tol)

# ---------------------------------------------------------------------------------------------------- one run
class Quadratic:
    "A deterministic loss for closures: sum_i sum(a_i * (p_i - b_i)**2) + 0.1 * (sum_i sum(p_i))**2, on either library."
    def __init__(self, shapes, dtype):
        rng = np.random.default_rng(123)
        self.a = [rng.uniform(0.5, 2.0, s).astype(dtype) for s in shapes]
        self.b = [rng.standard_normal(s).astype(dtype) for s in shapes]
    def __call__(self, lib, params):
        tot, cross = None, None
        for p, a, b in zip(params, self.a, self.b):
            term = (lib.tensor(a) * (p - lib.tensor(b)) ** 2).sum()
            tot = term if tot is None else tot + term
            s = p.sum()
            cross = s if cross is None else cross + s
        return tot + 0.1 * cross * cross

def make_params(shapes, dtype, requires_grad=True):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    arrays = [np.where(np.abs(a) < 1e-3, 1e-3, a).astype(dtype) for a in arrays]
    return ([torch.tensor(a, requires_grad=requires_grad) for a in arrays],
            [lt.tensor(a, requires_grad=True) for a in arrays])

def grouped(params, key):
    "The params argument: a plain list, or two groups (the second with its own lr) for the 'groups' configuration."
    if key != 'groups': return params
    return [{'params': params[:-1]}, {'params': params[-1:], 'lr': 0.02}]

def run_config(info, lcls, kwargs, torch_kwargs, shapes, dtype):
    "One configuration: STEPS steps, state_dict, load into a fresh lit_torch optimizer, MORE_STEPS more steps."
    np_dtype = np.float64 if dtype == torch.float64 else np.float32
    groups = torch_kwargs if torch_kwargs == 'groups' else None
    tkw = deepcopy(kwargs if torch_kwargs in (None, 'groups') else torch_kwargs)
    differentiable = bool(kwargs.get('differentiable'))
    unlike = tuple(k for k in kwargs if k not in tkw)  # keys torch runs without (capturable on the CPU)
    # a float32 Tensor hyperparameter: torch computes with it in float32 (lr / bias_correction as a tensor),
    # lit_torch with its value as a Python float: ~1e-8 relative in the step, ~1e-11 absolute here
    tol = TOL_FOR.get(info.optim_cls.__name__, TOL)
    if any(isinstance(v, torch.Tensor) and v.dtype == torch.float32 for v in _leaves(kwargs)):
        tol = {**tol, torch.float64: dict(rtol=max(1e-7, tol[torch.float64]['rtol']), atol=max(1e-9, tol[torch.float64]['atol']))}
    # with differentiable=True torch's step runs with grad enabled: an in-place update of a leaf that requires grad
    # would raise, so torch's parameters there are plain tensors with a .grad (the math is the same)
    p_t, p_l = make_params(shapes, np_dtype, requires_grad=not differentiable or info.step_requires_closure)
    opt_t = info.optim_cls(grouped(p_t, groups), **tkw)
    try:
        opt_l = lcls(grouped(p_l, groups), **to_lit(deepcopy(kwargs)))
    except Exception as e:
        raise AssertionError(f'construction: {type(e).__name__}: {e}') from e
    quad = Quadratic(shapes, np_dtype) if info.step_requires_closure else None

    def closure(lib, opt, params):
        def f():
            opt.zero_grad(); loss = quad(lib, params); loss.backward(); return loss
        return f

    def step(k, opt_t, p_t, opt_l, p_l):
        "Step k on torch's `opt_t` (over `p_t`) and on lit_torch's `opt_l` (over `p_l`), then compare the parameters."
        if quad is None:
            rng = np.random.default_rng(1000 + k)
            for pt, pl in zip(p_t, p_l):
                g = rng.standard_normal(tuple(pt.shape)).astype(np_dtype)
                pt.grad, pl.grad = torch.tensor(g), lt.tensor(g.copy())
            opt_t.step()
            try: opt_l.step()
            except Exception as e: raise AssertionError(f'step {k}: {type(e).__name__}: {e}') from e
        else:
            loss_t = opt_t.step(closure(torch, opt_t, p_t))
            try: loss_l = opt_l.step(closure(lt, opt_l, p_l))
            except Exception as e: raise AssertionError(f'step {k}: {type(e).__name__}: {e}') from e
            check_value(f'step {k} loss', loss_t, loss_l, dtype, tol)
        for i, (pt, pl) in enumerate(zip(p_t, p_l)): check_value(f'step {k} param {i}', pt, pl, dtype, tol)

    for k in range(STEPS): step(k, opt_t, p_t, opt_l, p_l)
    sd_t = opt_t.state_dict()
    check_state_dict(f'state_dict after {STEPS} steps', sd_t, opt_l.state_dict(), dtype, tol, unlike)
    # fresh optimizers over copies of the parameters, torch's and lit_torch's, both take torch's state (loading casts
    # some state to the parameters' dtype, e.g. NAdam's mu_product: compare with torch's own loaded optimizer)
    p_t2 = [torch.tensor(to_numpy(p).copy(), requires_grad=p.requires_grad) for p in p_t]
    p_l2 = [lt.tensor(to_numpy(p).copy(), requires_grad=True) for p in p_t]
    opt_t2 = info.optim_cls(grouped(p_t2, groups), **deepcopy(tkw))
    opt_t2.load_state_dict(deepcopy(sd_t))
    opt_l2 = lcls(grouped(p_l2, groups), **to_lit(deepcopy(kwargs)))
    try: opt_l2.load_state_dict(to_lit(deepcopy(sd_t)))
    except Exception as e: raise AssertionError(f'load_state_dict: {type(e).__name__}: {e}') from e
    check_state_dict('state_dict after load_state_dict', opt_t2.state_dict(), opt_l2.state_dict(), dtype, tol, unlike)
    for k in range(STEPS, STEPS + MORE_STEPS): step(k, opt_t2, p_t2, opt_l2, p_l2)
    check_state_dict(f'state_dict after load and {MORE_STEPS} more steps', opt_t2.state_dict(), opt_l2.state_dict(), dtype,
                     tol, unlike)

# ---------------------------------------------------------------------------------------------------- the driver
RESULTS = defaultdict(dict)  # entry -> {(dtype, config key): 'pass' | 'fail' | 'skip' | 'missing'}
RUN = set()

class KnownDifference(Exception):
    "Raised when every failing configuration of an entry is one the KNOWN list expects."

def lit_class(info): return getattr(loptim, info.optim_cls.__name__, None)

def _params():
    out = []
    for info in optim_db:
        name = info.optim_cls.__name__
        for dtype in DTYPES:
            marks = []
            if name in KNOWN:
                reason = '; '.join(r for r, _ in KNOWN[name])
                marks.append(pytest.mark.xfail(strict=False, raises=KnownDifference, reason=reason))
            out.append(pytest.param(info, dtype, marks=marks, id=f'{name}-{str(dtype)[6:]}'))
    return out

@pytest.mark.parametrize('info,dtype', _params())
def test_optiminfo(info, dtype):
    name = info.optim_cls.__name__
    RUN.add(name)
    lcls = lit_class(info)
    if lcls is None:
        RESULTS[name][(None, 'missing')] = 'missing'
        pytest.skip(f'missing: lit_torch.optim has no {name}')
    if name in SKIP:
        RESULTS[name][(None, 'skip')] = 'skip'
        pytest.skip(SKIP[name])
    if (name, dtype) in SKIP_DTYPES:
        RESULTS[name][(dtype, 'skip')] = 'skip'
        pytest.skip(SKIP_DTYPES[name, dtype])
    unexpected, expected = [], []
    for key, kwargs, torch_kwargs, shapes in configs(info):
        reason = next((r for e, pat, r in SKIP_CONFIGS if e in (name, '*') and re.search(pat, key)), None)
        if reason:
            RESULTS[name][(dtype, key)] = 'skip'; continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                run_config(info, lcls, kwargs, torch_kwargs, shapes, dtype)
            RESULTS[name][(dtype, key)] = 'pass'
        except Exception as e:
            msg = f'{key}: {type(e).__name__}: {str(e).strip()[:600]}'
            RESULTS[name][(dtype, key)] = 'fail'
            known = next((r for r, pat in KNOWN.get(name, ()) if re.search(pat, key)), None)
            if known: expected.append(f'{msg}\n    (known: {known})')
            else: unexpected.append(msg)
    if unexpected:
        pytest.fail(f'{len(unexpected)} configuration(s) differ from torch:\n' + '\n'.join(unexpected), pytrace=False)
    if expected:
        raise KnownDifference(f'{len(expected)} configuration(s) differ as known:\n' + '\n'.join(expected))

# ---------------------------------------------------------------------------------------------------- summary
def entry_status(name):
    res = RESULTS.get(name, {})
    if 'missing' in res.values(): return 'missing'
    ran = [v for v in res.values() if v in ('pass', 'fail')]
    if not ran: return 'skipped' if res else None
    if all(v == 'pass' for v in ran): return 'pass'
    if all(v == 'fail' for v in ran): return 'fail'
    return 'partial'

def summary_line():
    names = list(dict.fromkeys(info.optim_cls.__name__ for info in optim_db))
    st = [entry_status(n) for n in names if n in RUN]
    c = {k: st.count(k) for k in ('pass', 'partial', 'fail', 'missing', 'skipped')}
    line = f"optiminfo: {c['pass']} pass, {c['partial']} partial, {c['fail']} fail, {c['missing']} missing of {len(names)}"
    if c['skipped']: line += f" ({c['skipped']} skipped: " + ', '.join(n for n in names if entry_status(n) == 'skipped') + ')'
    if len(RUN) < len(names): line += f' (ran {len(RUN)} entries)'
    return line

class _SummaryPlugin:
    "Prints this driver's summary line at the end of the session (a plugin of its own: other drivers add theirs)."
    def pytest_terminal_summary(self, terminalreporter, config):
        terminalreporter.write_line(summary_line())
        if config.option.verbose > 0:
            for name in dict.fromkeys(info.optim_cls.__name__ for info in optim_db):
                if name not in RUN: continue
                status, res = entry_status(name), RESULTS[name]
                n = {k: sum(v == k for v in res.values()) for k in ('pass', 'fail', 'skip')}
                counts = '' if status in ('missing', 'skipped') else \
                    f" ({n['pass']} configurations pass, {n['fail']} fail, {n['skip']} skipped)"
                terminalreporter.write_line(f'  {name}: {status}{counts}' + ''.join(f' -- {r}' for r, _ in KNOWN.get(name, ()))
                                            + (f' -- {SKIP[name]}' if name in SKIP else ''))

@pytest.fixture(scope='module', autouse=True)
def _summary(pytestconfig):
    if not pytestconfig.pluginmanager.has_plugin('lit-optiminfo-summary'):
        pytestconfig.pluginmanager.register(_SummaryPlugin(), 'lit-optiminfo-summary')
    yield
