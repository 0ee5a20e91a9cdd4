"""nn.utils against PyTorch: gradient clipping, parameters as a vector, the weight_norm / spectral_norm hooks,
parametrize and the ready-made parametrizations, and the lazy convolutions. Values, gradients, buffers and
state_dict keys (with their order) on seeded random inputs; float64 gradchecks of the differentiable pieces."""
import math, pickle, warnings, copy
from collections import OrderedDict
import numpy as np
import pytest
import torch
import lit_torch as lt
from op_helpers import check_gradcheck, check_same_error

pytestmark = pytest.mark.filterwarnings('ignore')
RNG = np.random.default_rng(0)

def _np(t): return None if t is None else t.detach().cpu().numpy()
def _close(a, b, tol=1e-6):
    if a is None or b is None: assert a is None and b is None, (a, b)
    else: np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)

def to_lt_sd(sd):
    "torch's state_dict as lit_torch tensors, metadata included."
    out = OrderedDict((k, lt.tensor(v.detach().numpy())) for k, v in sd.items())
    out._metadata = copy.deepcopy(getattr(sd, '_metadata', {}))
    return out

def twin_params(shapes, seed=1, with_grad=None, scale=3.0):
    "The same parameters and gradients in both libraries (gradient None where with_grad says so)."
    rng = np.random.default_rng(seed)
    tp, lp = [], []
    for i, s in enumerate(shapes):
        w, g = rng.standard_normal(s).astype(np.float32), (rng.standard_normal(s) * scale).astype(np.float32)
        a, b = torch.nn.Parameter(torch.tensor(w)), lt.nn.Parameter(lt.tensor(w))
        if with_grad is None or with_grad[i]: a.grad, b.grad = torch.tensor(g), lt.tensor(g)
        tp.append(a); lp.append(b)
    return tp, lp

SHAPES = [(4, 5), (5,), (3, 2, 2), ()]

# ---------------------------------------------------------------- clip_grad
@pytest.mark.parametrize('norm_type', [2.0, 1.0, math.inf, 3.5, 0.5, 'inf'])
@pytest.mark.parametrize('max_norm', [0.1, 1e3])
@pytest.mark.parametrize('foreach', [None, True, False])
def test_clip_grad_norm(norm_type, max_norm, foreach):
    tp, lp = twin_params(SHAPES, with_grad=[True, True, False, True])
    nt = torch.nn.utils.clip_grad_norm_(tp, max_norm, norm_type, foreach=foreach)
    nl = lt.nn.utils.clip_grad_norm_(lp, max_norm, norm_type, foreach=foreach)
    assert nl.shape == () and repr(nl.dtype) == repr(nt.dtype)
    _close(nl, nt, 1e-5)
    for a, b in zip(tp, lp): _close(b.grad, a.grad, 1e-5)

def test_clip_grad_norm_single_tensor_and_generator():
    tp, lp = twin_params([(6, 3)])
    _close(lt.nn.utils.clip_grad_norm_(lp[0], 0.5), torch.nn.utils.clip_grad_norm_(tp[0], 0.5), 1e-5)
    _close(lp[0].grad, tp[0].grad, 1e-5)
    tm, lm = torch.nn.Linear(4, 3), lt.nn.Linear(4, 3)
    lm.load_state_dict(to_lt_sd(tm.state_dict()))
    x = RNG.standard_normal((5, 4)).astype(np.float32)
    tm(torch.tensor(x)).pow(2).sum().backward(); lm(lt.tensor(x)).pow(2).sum().backward()
    _close(lt.nn.utils.clip_grad_norm_(lm.parameters(), 0.3), torch.nn.utils.clip_grad_norm_(tm.parameters(), 0.3), 1e-5)
    _close(lm.weight.grad, tm.weight.grad, 1e-5)

def test_clip_grad_norm_empty_and_warnings():
    with pytest.warns(UserWarning, match='empty generator'): n = lt.nn.utils.clip_grad_norm_((p for p in []), 1.0)
    assert n.item() == 0.0 and torch.nn.utils.clip_grad_norm_([], 1.0).item() == 0.0
    tp, lp = twin_params([(3,)])
    with pytest.warns(FutureWarning): lt.nn.utils.clip_grad_norm(lp, 1.0)
    with pytest.warns(FutureWarning): torch.nn.utils.clip_grad_norm(tp, 1.0)
    _close(lp[0].grad, tp[0].grad, 1e-5)

@pytest.mark.parametrize('bad', [math.inf, math.nan])
def test_clip_grad_norm_nonfinite(bad):
    def run(lib):
        p = lib.nn.Parameter(lib.ones(3)); p.grad = lib.tensor([1.0, bad, 2.0])
        return lib.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    e = check_same_error(run)
    assert 'non-finite' in str(e)
    tp, lp = twin_params([(3,)]); tp[0].grad[1] = bad; lp[0].grad = lt.tensor(tp[0].grad.numpy())
    _close(lt.nn.utils.clip_grad_norm_(lp, 1.0), torch.nn.utils.clip_grad_norm_(tp, 1.0))  # no error: scaled by the norm
    _close(lp[0].grad, tp[0].grad)

@pytest.mark.parametrize('norm_type', [2.0, math.inf, 1.5])
def test_get_total_norm_and_clip_grads_with_norm(norm_type):
    tp, lp = twin_params(SHAPES, seed=3)
    tn = torch.nn.utils.get_total_norm([p.grad for p in tp], norm_type)
    ln = lt.nn.utils.get_total_norm([p.grad for p in lp], norm_type)
    _close(ln, tn, 1e-5)
    torch.nn.utils.clip_grads_with_norm_(tp, 0.7, tn); lt.nn.utils.clip_grads_with_norm_(lp, 0.7, ln)
    for a, b in zip(tp, lp): _close(b.grad, a.grad, 1e-5)
    _close(lt.nn.utils.get_total_norm(lp[0].grad), torch.nn.utils.get_total_norm(tp[0].grad), 1e-5)

@pytest.mark.parametrize('clip_value', [0.5, 2.0, 10])
@pytest.mark.parametrize('foreach', [None, True])
def test_clip_grad_value(clip_value, foreach):
    tp, lp = twin_params(SHAPES, with_grad=[True, False, True, True])
    assert lt.nn.utils.clip_grad_value_(lp, clip_value, foreach=foreach) is None
    torch.nn.utils.clip_grad_value_(tp, clip_value, foreach=foreach)
    for a, b in zip(tp, lp): _close(b.grad, a.grad)
    tp, lp = twin_params([(7,)])
    lt.nn.utils.clip_grad_value_(lp[0], clip_value); torch.nn.utils.clip_grad_value_(tp[0], clip_value)
    _close(lp[0].grad, tp[0].grad)

def test_clipping_leaves_no_graph():
    p = lt.nn.Parameter(lt.randn(4)); p.grad = lt.randn(4) * 5
    n = lt.nn.utils.clip_grad_norm_([p], 1.0)
    assert n.grad_fn is None and p.grad.grad_fn is None

# ---------------------------------------------------------------- convert_parameters
def test_parameters_to_vector_and_back():
    tm, lm = torch.nn.Conv2d(2, 3, 3), lt.nn.Conv2d(2, 3, 3)
    lm.load_state_dict(to_lt_sd(tm.state_dict()))
    vt, vl = torch.nn.utils.parameters_to_vector(tm.parameters()), lt.nn.utils.parameters_to_vector(lm.parameters())
    _close(vl, vt)
    w = RNG.standard_normal(vt.shape)
    (vt * torch.tensor(w, dtype=torch.float32)).pow(2).sum().backward()
    (vl * lt.tensor(w, dtype=lt.float32)).pow(2).sum().backward()
    _close(lm.weight.grad, tm.weight.grad, 1e-5); _close(lm.bias.grad, tm.bias.grad, 1e-5)
    new = RNG.standard_normal(vt.shape).astype(np.float32)
    torch.nn.utils.vector_to_parameters(torch.tensor(new), tm.parameters())
    lt.nn.utils.vector_to_parameters(lt.tensor(new), lm.parameters())
    _close(lm.weight, tm.weight); _close(lm.bias, tm.bias)
    assert isinstance(lm.weight, lt.nn.Parameter) and lm.weight.requires_grad
    check_same_error(lambda lib: lib.nn.utils.vector_to_parameters(np.ones(3), lib.nn.Linear(1, 1).parameters()))

# ---------------------------------------------------------------- weight_norm (hook)
def _pair(make, fn_t, fn_l):
    tm = fn_t(make(torch)); lm = fn_l(make(lt))
    sd = tm.state_dict()
    assert list(lm.state_dict()) == list(sd)
    lm.load_state_dict(to_lt_sd(sd))
    return tm.double(), lm.double()

def _fwd_bwd(tm, lm, x, tol=1e-10, names=None):
    xt, xl = torch.tensor(x, requires_grad=True), lt.tensor(x, requires_grad=True)
    yt, yl = tm(xt), lm(xl)
    _close(yl, yt, tol)
    w = np.random.default_rng(9).standard_normal(tuple(yt.shape))
    (yt * torch.tensor(w)).sum().backward(); (yl * lt.tensor(w)).sum().backward()
    _close(xl.grad, xt.grad, tol)
    pt, pl = dict(tm.named_parameters()), dict(lm.named_parameters())
    assert list(pl) == list(pt)
    for k in pt: _close(pl[k].grad, pt[k].grad, tol)

WN_CASES = [(lambda lib: lib.nn.Linear(5, 4), (3, 5), 0), (lambda lib: lib.nn.Linear(5, 4), (3, 5), 1),
            (lambda lib: lib.nn.Linear(5, 4), (3, 5), None), (lambda lib: lib.nn.Conv2d(3, 4, 3), (2, 3, 6, 6), 0),
            (lambda lib: lib.nn.Conv1d(2, 3, 3), (2, 2, 7), 2), (lambda lib: lib.nn.ConvTranspose2d(3, 2, 3), (1, 3, 4, 4), 1)]

@pytest.mark.parametrize('make,shape,dim', WN_CASES)
def test_weight_norm_hook(make, shape, dim):
    tm, lm = _pair(make, lambda m: torch.nn.utils.weight_norm(m, dim=dim), lambda m: lt.nn.utils.weight_norm(m, dim=dim))
    assert list(lm.state_dict())[-2:] == ['weight_g', 'weight_v']
    assert tuple(lm.weight_g.shape) == tuple(tm.weight_g.shape)
    _fwd_bwd(tm, lm, RNG.standard_normal(shape))
    torch.nn.utils.remove_weight_norm(tm); lt.nn.utils.remove_weight_norm(lm)
    assert list(lm.state_dict()) == list(tm.state_dict())
    _close(lm.weight, tm.weight, 1e-12)
    assert isinstance(lm.weight, lt.nn.Parameter)

def test_weight_norm_hook_errors():
    for fn in (lambda lib: lib.nn.utils.weight_norm(lib.nn.utils.weight_norm(lib.nn.Linear(2, 2))),
               lambda lib: lib.nn.utils.remove_weight_norm(lib.nn.Linear(2, 2)),
               lambda lib: lib.nn.utils.weight_norm(lib.nn.LazyLinear(2))):
        check_same_error(fn)
    with pytest.warns(FutureWarning): lt.nn.utils.weight_norm(lt.nn.Linear(2, 2))

def test_weight_norm_gradcheck():
    from lit_torch.nn.utils.weight_norm import _weight_norm
    for dim, gshape in ((0, (3, 1, 1)), (2, (1, 1, 4)), (-1, ())):
        check_gradcheck(lambda lib, v, g: _weight_norm(v, g, dim), arrays=[RNG.standard_normal((3, 2, 4)), RNG.standard_normal(gshape) + 2])

# ---------------------------------------------------------------- spectral_norm (hook)
SN_CASES = [(lambda lib: lib.nn.Linear(6, 4), (3, 6), {}), (lambda lib: lib.nn.Conv2d(3, 5, 3), (2, 3, 5, 5), {'n_power_iterations': 3}),
            (lambda lib: lib.nn.ConvTranspose2d(3, 4, 3), (1, 3, 4, 4), {}), (lambda lib: lib.nn.Linear(4, 7), (2, 4), {'dim': 1, 'eps': 1e-6})]

@pytest.mark.parametrize('make,shape,kw', SN_CASES)
def test_spectral_norm_hook(make, shape, kw):
    tm, lm = _pair(make, lambda m: torch.nn.utils.spectral_norm(m, **kw), lambda m: lt.nn.utils.spectral_norm(m, **kw))
    assert list(lm.state_dict())[-3:] == ['weight_orig', 'weight_u', 'weight_v']
    sd_t, sd_l = tm.state_dict(), lm.state_dict()
    assert sd_l._metadata[''] ['spectral_norm'] == sd_t._metadata['']['spectral_norm']
    for step in range(3):  # the power iteration advances the buffers in training mode
        _fwd_bwd(tm, lm, RNG.standard_normal(shape))
        _close(lm.weight_u, tm.weight_u, 1e-10); _close(lm.weight_v, tm.weight_v, 1e-10)
    tm.eval(); lm.eval()
    u = lm.weight_u.clone()
    _fwd_bwd(tm, lm, RNG.standard_normal(shape))
    _close(lm.weight_u, u, 0)
    torch.nn.utils.remove_spectral_norm(tm); lt.nn.utils.remove_spectral_norm(lm)
    assert list(lm.state_dict()) == list(tm.state_dict())
    _close(lm.weight, tm.weight, 1e-10)
    assert not lm._state_dict_hooks and not lm._load_state_dict_pre_hooks and not lm._forward_pre_hooks

def test_spectral_norm_hook_version0_checkpoint():
    "A checkpoint with weight, weight_orig and weight_u but no weight_v (version 0): v is solved for, as torch does."
    tm, lm = _pair(lambda lib: lib.nn.Linear(5, 3), torch.nn.utils.spectral_norm, lt.nn.utils.spectral_norm)
    tm(torch.randn(2, 5, dtype=torch.float64))
    sd = tm.state_dict()
    old = OrderedDict((k, sd[k]) for k in ('bias', 'weight_orig', 'weight_u'))
    old['weight'] = tm.weight.detach().clone()
    old._metadata = OrderedDict({'': {'version': 1}})
    t2, l2 = torch.nn.utils.spectral_norm(torch.nn.Linear(5, 3)).double(), lt.nn.utils.spectral_norm(lt.nn.Linear(5, 3)).double()
    t2.load_state_dict(old); l2.load_state_dict(to_lt_sd(old))
    _close(l2.weight_v, t2.weight_v, 1e-8)
    t2.eval(); l2.eval()
    x = RNG.standard_normal((2, 5))
    _close(l2(lt.tensor(x)), t2(torch.tensor(x)), 1e-8)

def test_spectral_norm_hook_errors():
    for fn in (lambda lib: lib.nn.utils.spectral_norm(lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2))),
               lambda lib: lib.nn.utils.remove_spectral_norm(lib.nn.Linear(2, 2)),
               lambda lib: lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2, bias=False), name='bias'),
               lambda lib: lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0)):
        check_same_error(fn)

# ---------------------------------------------------------------- parametrize
def _symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X): return X.triu() + X.triu(1).transpose(-1, -2)
        def right_inverse(self, A): return A.triu()
    return Symmetric()

def _scale(lib):
    class Scale(lib.nn.Module):
        def forward(self, X): return X * 2.0
        def right_inverse(self, A): return A / 2.0
    return Scale()

def _register(lib, m, *ps, name='weight'):
    for p in ps: lib.nn.utils.parametrize.register_parametrization(m, name, p(lib))
    return m

@pytest.mark.parametrize('chain', [[_symmetric], [_scale], [_symmetric, _scale]])
def test_register_parametrization(chain):
    tm, lm = _pair(lambda lib: lib.nn.Linear(4, 4), lambda m: _register(torch, m, *chain), lambda m: _register(lt, m, *chain))
    P = lt.nn.utils.parametrize
    assert type(lm).__name__ == type(tm).__name__ == 'ParametrizedLinear'
    assert list(lm.state_dict()) == ['bias', 'parametrizations.weight.original']
    assert P.is_parametrized(lm) and P.is_parametrized(lm, 'weight') and not P.is_parametrized(lm, 'bias')
    assert P.type_before_parametrizations(lm) is lt.nn.Linear
    _close(lm.weight, tm.weight, 1e-12)
    _fwd_bwd(tm, lm, RNG.standard_normal((3, 4)))
    new = RNG.standard_normal((4, 4))
    with torch.no_grad(): tm.weight = torch.tensor(new)
    lm.weight = lt.tensor(new)
    _close(lm.parametrizations.weight.original, tm.parametrizations.weight.original, 1e-12)
    _close(lm.weight, tm.weight, 1e-12)

@pytest.mark.parametrize('leave', [True, False])
def test_remove_parametrizations(leave):
    tm, lm = _pair(lambda lib: lib.nn.Linear(3, 3), lambda m: _register(torch, m, _scale), lambda m: _register(lt, m, _scale))
    orig = lm.parametrizations.weight.original
    torch.nn.utils.parametrize.remove_parametrizations(tm, 'weight', leave)
    lt.nn.utils.parametrize.remove_parametrizations(lm, 'weight', leave)
    assert type(lm) is lt.nn.Linear and not hasattr(lm, 'parametrizations')
    assert list(lm.state_dict()) == list(tm.state_dict()) == ['bias', 'weight']
    assert lm.weight is orig and isinstance(lm.weight, lt.nn.Parameter)
    _close(lm.weight, tm.weight, 1e-12)

def test_parametrize_buffer_and_two_tensors():
    def make(lib):
        m = lib.nn.BatchNorm1d(3)
        _register(lib, m, _scale, name='running_var')
        return _register(lib, m, _scale, name='weight')
    tm, lm = make(torch), make(lt)
    assert list(lm.state_dict()) == list(tm.state_dict())
    assert list(lm.parametrizations) == ['running_var', 'weight']
    lt.nn.utils.parametrize.remove_parametrizations(lm, 'running_var')
    assert type(lm).__name__ == 'ParametrizedBatchNorm1d'

def test_parametrize_cached_and_copies():
    lm = _register(lt, lt.nn.Linear(3, 3), _symmetric)
    assert lm.weight is not lm.weight
    with lt.nn.utils.parametrize.cached():
        w = lm.weight
        assert lm.weight is w
    assert lm.weight is not w
    with pytest.raises(RuntimeError, match='state_dict'): pickle.dumps(lm)
    c = copy.deepcopy(lm)
    assert type(c).__name__ == 'ParametrizedLinear' and c.parametrizations.weight.original is not lm.parametrizations.weight.original
    _close(c.weight, lm.weight, 0)

def test_parametrize_errors():
    class Bad(torch.nn.Module):
        def forward(self, X): return X[0]
    class BadL(lt.nn.Module):
        def forward(self, X): return X[0]
    for fn in (lambda lib: lib.nn.utils.parametrize.register_parametrization(lib.nn.Linear(2, 2), 'nothing', _scale(lib)),
               lambda lib: lib.nn.utils.parametrize.remove_parametrizations(lib.nn.Linear(2, 2), 'weight'),
               lambda lib: lib.nn.utils.parametrize.register_parametrization(lib.nn.Linear(2, 2), 'weight', (Bad if lib is torch else BadL)())):
        check_same_error(fn)
    class NoInv(lt.nn.Module):
        def forward(self, X): return X
    m = lt.nn.utils.parametrize.register_parametrization(lt.nn.Linear(2, 2), 'weight', NoInv())
    with pytest.raises(RuntimeError, match='does not implement right_inverse'): m.weight = lt.randn(2, 2)

def test_transfer_parametrizations_and_params():
    a, b = _register(lt, lt.nn.Linear(3, 3), _symmetric, _scale), lt.nn.Linear(3, 3)
    lt.nn.utils.parametrize.transfer_parametrizations_and_params(a, b)
    assert b.parametrizations.weight.original is a.parametrizations.weight.original and len(b.parametrizations.weight) == 2
    _close(b.weight, a.weight, 0)

# ---------------------------------------------------------------- parametrizations
@pytest.mark.parametrize('make,shape,dim', WN_CASES)
def test_parametrizations_weight_norm(make, shape, dim):
    PT, PL = torch.nn.utils.parametrizations, lt.nn.utils.parametrizations
    tm, lm = _pair(make, lambda m: PT.weight_norm(m, dim=dim), lambda m: PL.weight_norm(m, dim=dim))
    assert list(lm.state_dict())[-2:] == ['parametrizations.weight.original0', 'parametrizations.weight.original1']
    _fwd_bwd(tm, lm, RNG.standard_normal(shape))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        old = lt.nn.utils.weight_norm(make(lt), dim=dim)
    fresh = PL.weight_norm(make(lt), dim=dim)
    fresh.load_state_dict(old.state_dict())  # the hook version's checkpoint: weight_g/weight_v renamed
    _close(fresh.weight, old.weight, 1e-6)

@pytest.mark.parametrize('make,shape,kw', SN_CASES)
def test_parametrizations_spectral_norm(make, shape, kw):
    PT, PL = torch.nn.utils.parametrizations, lt.nn.utils.parametrizations
    tm, lm = _pair(make, lambda m: PT.spectral_norm(m, **kw), lambda m: PL.spectral_norm(m, **kw))
    assert list(lm.state_dict())[-3:] == ['parametrizations.weight.original', 'parametrizations.weight.0._u', 'parametrizations.weight.0._v']
    for step in range(3):
        _fwd_bwd(tm, lm, RNG.standard_normal(shape))
        _close(lm.parametrizations.weight[0]._u, tm.parametrizations.weight[0]._u, 1e-10)
    tm.eval(); lm.eval()
    _fwd_bwd(tm, lm, RNG.standard_normal(shape))
    d = kw.get('dim', 1 if 'Transpose' in type(lm).__name__ else 0)
    # A few power iterations only estimate σ, so the normalised weight's largest singular value is near 1 by an amount
    # that depends on the draw: it must be the one torch's weight has, not a bound that some seeds miss.
    top = lambda w: np.linalg.svd(np.moveaxis(_np(w), d, 0).reshape(w.shape[d], -1), compute_uv=False)[0]
    np.testing.assert_allclose(top(lm.weight), top(tm.weight), rtol=1e-6)

def test_parametrizations_spectral_norm_1d_and_errors():
    for fn in (lambda lib: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), name='nothing'),
               lambda lib: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), dim=3),
               lambda lib: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0)):
        check_same_error(fn)
    tm, lm = _pair(lambda lib: lib.nn.Linear(3, 4), lambda m: torch.nn.utils.parametrizations.spectral_norm(m, 'bias'),
                   lambda m: lt.nn.utils.parametrizations.spectral_norm(m, 'bias'))
    _fwd_bwd(tm, lm, RNG.standard_normal((2, 3)))

# ---------------------------------------------------------------- lazy convolutions
LAZY = [('LazyConv1d', (4, 3), {}, (2, 5, 9)), ('LazyConv2d', (6, 3), {'padding': 1, 'groups': 2}, (2, 4, 6, 6)),
        ('LazyConv3d', (2, 2), {'stride': 2, 'padding_mode': 'reflect', 'padding': 1}, (1, 3, 5, 5, 5)),
        ('LazyConv2d', (3, 3), {'bias': False}, (3, 6, 6)),
        ('LazyConvTranspose1d', (4, 3), {'stride': 2, 'output_padding': 1}, (2, 3, 5)),
        ('LazyConvTranspose2d', (4, 3), {'groups': 2, 'dilation': 2}, (2, 6, 4, 4)),
        ('LazyConvTranspose3d', (2, 2), {'stride': 2}, (1, 3, 3, 3, 3))]

@pytest.mark.parametrize('name,args,kw,shape', LAZY)
def test_lazy_conv(name, args, kw, shape):
    tm, lm = getattr(torch.nn, name)(*args, **kw), getattr(lt.nn, name)(*args, **kw)
    assert lm.has_uninitialized_params()
    x = RNG.standard_normal(shape).astype(np.float32)
    tm(torch.tensor(x)); lm(lt.tensor(x))
    assert type(lm).__name__ == type(tm).__name__ and type(lm).__module__ == 'lit_torch.nn.modules.conv'
    assert lm.in_channels == tm.in_channels and tuple(lm.weight.shape) == tuple(tm.weight.shape)
    assert list(lm.state_dict()) == list(tm.state_dict()) and repr(lm) == repr(tm)
    lm.load_state_dict(to_lt_sd(tm.state_dict()))
    _fwd_bwd(tm.double(), lm.double(), x.astype(np.float64))

def test_lazy_conv_load_state_dict_and_errors():
    t = torch.nn.Conv2d(3, 4, 3)
    l = lt.nn.LazyConv2d(4, 3)
    l.load_state_dict(to_lt_sd(t.state_dict()))
    assert tuple(l.weight.shape) == (4, 3, 3, 3)
    check_same_error(lambda lib: lib.nn.LazyConv2d(4, 3)(lib.randn(3, 5)))
    check_same_error(lambda lib: lib.nn.LazyConv2d(4, 3, groups=2)(lib.randn(1, 3, 5, 5)))
