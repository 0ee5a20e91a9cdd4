"""The pointwise, reduction and product ops of nbs/03c_pointwise, 03d_reduce and 03e_products against PyTorch, for what
the OpInfo driver (tests/test_opinfo.py) does not cover: second derivatives in float64, promotion with Python numbers,
the in-place variants (version counters, leaves, views, node names), `out=`, the argument types the Python binding
refuses, the methods torch has, extreme inputs of the special functions, and the same ops on an emulated GPU."""
import math, warnings
import numpy as np
import pytest
import torch
import lit_torch as lt
import lit_torch.ops as ops
from op_helpers import check_op, check_gradcheck, check_same_error, make_inputs

# ---------------------------------------------------------------- gradcheck and gradgradcheck, float64

# name: (fn(lib, *inputs), shapes, input range or None for standard normal)
UNARY = {
    'erf': (lambda m, x: m.erf(x), None), 'erfc': (lambda m, x: m.erfc(x), None),
    'erfinv': (lambda m, x: m.erfinv(x), (-0.9, 0.9)), 'lgamma': (lambda m, x: m.lgamma(x), (0.2, 6)),
    'lgamma_neg': (lambda m, x: m.lgamma(x), (-2.9, -2.1)), 'digamma': (lambda m, x: m.digamma(x), (0.3, 5)),
    'polygamma2': (lambda m, x: m.polygamma(2, x), (0.3, 5)), 'i0': (lambda m, x: m.i0(x), (-25, 25)),
    'tan': (lambda m, x: m.tan(x), (-1.2, 1.2)), 'asin': (lambda m, x: m.asin(x), (-0.9, 0.9)),
    'acos': (lambda m, x: m.acos(x), (-0.9, 0.9)), 'atan': (lambda m, x: m.atan(x), None),
    'sinh': (lambda m, x: m.sinh(x), None), 'cosh': (lambda m, x: m.cosh(x), None), 'asinh': (lambda m, x: m.asinh(x), None),
    'acosh': (lambda m, x: m.acosh(x), (1.2, 4)), 'atanh': (lambda m, x: m.atanh(x), (-0.9, 0.9)),
    'log2': (lambda m, x: m.log2(x), (0.1, 5)), 'log10': (lambda m, x: m.log10(x), (0.1, 5)),
    'exp2': (lambda m, x: m.exp2(x), None), 'sinc': (lambda m, x: m.sinc(x), None), 'logit': (lambda m, x: m.logit(x), (0.05, 0.95)),
    'logit_eps': (lambda m, x: m.logit(x, eps=0.01), (0.05, 0.95)), 'reciprocal': (lambda m, x: m.reciprocal(x), (0.5, 3)),
    'square': (lambda m, x: m.square(x), None), 'deg2rad': (lambda m, x: m.deg2rad(x), None), 'frac': (lambda m, x: m.frac(x), None),
    'nan_to_num': (lambda m, x: m.nan_to_num(x), None), 'mvlgamma': (lambda m, x: m.mvlgamma(x, 3), (1.5, 4)),
    'cumprod': (lambda m, x: m.cumprod(x, 1), None), 'logcumsumexp': (lambda m, x: m.logcumsumexp(x, 1), None),
    'cummax': (lambda m, x: m.cummax(x, 0).values, None), 'nansum': (lambda m, x: m.nansum(x, 1), None),
    'nanmean': (lambda m, x: m.nanmean(x, 0), None), 'var_mean': (lambda m, x: m.var_mean(x, 1)[0] * m.var_mean(x, 1)[1], None),
    'std_mean': (lambda m, x: m.std_mean(x, 0, correction=0)[0], None), 'aminmax': (lambda m, x: m.aminmax(x, dim=1).max, None),
    'trace': (lambda m, x: m.trace(x), None),
}

@pytest.mark.parametrize('name', list(UNARY))
def test_unary_matches_torch_and_differentiates_twice(name):
    fn, bounds = UNARY[name]
    low, high = bounds or (None, None)
    check_op(fn, [(3, 4)], low=low, high=high, atol=1e-5, rtol=1e-5, grad_atol=1e-4, grad_rtol=1e-4)
    check_gradcheck(fn, [(3, 4)], gradgrad=True, low=low, high=high)

BINARY = {
    'atan2': lambda m, a, b: m.atan2(a, b), 'hypot': lambda m, a, b: m.hypot(a, b),
    'copysign': lambda m, a, b: m.copysign(a, b), 'fmod': lambda m, a, b: m.fmod(a, b + 3),
    'logaddexp': lambda m, a, b: m.logaddexp(a, b), 'logaddexp2': lambda m, a, b: m.logaddexp2(a, b),
    'xlogy': lambda m, a, b: m.xlogy(a, b.abs() + 0.1), 'float_power': lambda m, a, b: m.float_power(a.abs() + 0.1, b),
    'ldexp': lambda m, a, b: m.ldexp(a, b), 'fmax': lambda m, a, b: m.fmax(a, b), 'fmin': lambda m, a, b: m.fmin(a, b),
    'lerp': lambda m, a, b: m.lerp(a, b, 0.3), 'lerp_tensor': lambda m, a, b: m.lerp(a, b, b.sigmoid()),
    'addcmul': lambda m, a, b: m.addcmul(a, a, b, value=0.5), 'addcdiv': lambda m, a, b: m.addcdiv(a, b, b.abs() + 1, value=2),
    'cross': lambda m, a, b: m.cross(a[..., :3], b[..., :3], dim=-1), 'kron': lambda m, a, b: m.kron(a, b),
    'inner': lambda m, a, b: m.inner(a, b), 'addr': lambda m, a, b: m.addr(a.t() @ b, a[0], b[1], beta=0.5, alpha=2),
    'addmm': lambda m, a, b: m.addmm(b, a, a.t() @ b, beta=0.3, alpha=1.7),
    'addbmm': lambda m, a, b: m.addbmm(b, m.stack([a, a * 2]), m.stack([a.t() @ b] * 2)),
    'baddbmm': lambda m, a, b: m.baddbmm(b, m.stack([a, a * 2]), m.stack([a.t() @ b] * 2), alpha=0.5),
    'addmv': lambda m, a, b: m.addmv(b[:, 0], a, b[0]),
}
NO_GRADGRAD = {'fmax', 'fmin', 'fmod'}  # piecewise: torch and finite differences disagree at the kinks

@pytest.mark.parametrize('name', list(BINARY))
def test_binary_matches_torch_and_differentiates_twice(name):
    shapes = [(4, 4), (4, 4)] if name not in ('lerp', 'lerp_tensor') else [(4, 4), (1, 4)]
    check_op(BINARY[name], shapes)
    check_gradcheck(BINARY[name], shapes, gradgrad=name not in NO_GRADGRAD)

@pytest.mark.parametrize('name', ['atan2', 'hypot', 'logaddexp', 'copysign', 'xlogy', 'lerp_tensor'])
def test_binary_broadcasts_gradients(name):
    check_op(BINARY[name], [(3, 1, 4), (2, 4)] if name != 'lerp_tensor' else [(3, 2, 4), (2, 4)])

def test_cumprod_second_derivative_through_zeros():
    x = lt.tensor([[2., 0., 3., 0.5], [1.5, -1., 0., 2.]], dtype=lt.float64, requires_grad=True)
    assert lt.autograd.gradcheck(lambda t: t.cumprod(1), (x,)) and lt.autograd.gradgradcheck(lambda t: t.cumprod(1), (x,))
    check_op(lambda m, t: m.cumprod(t, 1), arrays=[x.detach().numpy().astype(np.float32)])

# ---------------------------------------------------------------- special functions at the edges of their domains

EDGES = {
    'erf': [-6, -1e-20, 0, 1e-8, 0.46875, 0.5, 3.9, 4.1, 6, np.inf, -np.inf, np.nan],
    'erfc': [-6, -0.47, 0, 0.46, 0.47, 3.9, 4.1, 10, 26, 30, np.inf, -np.inf, np.nan],
    'erfinv': [-1, -0.999999, -0.5, -1e-10, 0, 0.3, 0.5, 0.9, 1 - 1e-9, 1 - 1e-15, 1, 1.5, np.nan],
    'lgamma': [-np.inf, -5, -4.5, -1e-10, 0, 1e-300, 1e-8, 0.5, 1, 2, 2.5, 10, 171.5, 1e10, np.inf, np.nan],
    'digamma': [-np.inf, -4.5, -1.5, -1e-8, -0., 0., 1e-8, 0.5, 1, 1.4616321449683622, 10, 1e10, np.inf, np.nan],
    'i0': [-700, -30, -20.1, -20, -1, 0, 1e-8, 0.5, 15, 19.99, 20.01, 100, 700, np.nan],
    'sinc': [-1e10, -2, -0.5, 0, 1e-20, 1, 3.5, np.inf, np.nan],
    'logit': [0, 1e-10, 0.5, 1 - 1e-10, 1, -1, 2, np.nan],
}

@pytest.mark.parametrize('name', list(EDGES))
def test_special_functions_at_the_edges(name):
    v = np.array(EDGES[name], dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # NumPy's RuntimeWarnings must not leak: PyTorch is silent
        ours = getattr(lt, name)(lt.tensor(v)).numpy()
    theirs = getattr(torch, name)(torch.tensor(v)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-15, equal_nan=True)

@pytest.mark.parametrize('n', [1, 2, 3, 4, 6])
def test_polygamma_orders(n):
    x = np.concatenate([np.linspace(0.05, 40, 60), np.linspace(-4.95, -0.05, 30) + 0.013])
    ours = lt.polygamma(n, lt.tensor(x)).numpy()
    theirs = torch.polygamma(n, torch.tensor(x)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-9)

def test_float32_special_functions_round_from_float64():
    x = np.linspace(-0.99, 0.99, 101).astype(np.float32)
    for name in ('erf', 'erfc', 'erfinv'):
        ours = getattr(lt, name)(lt.tensor(x))
        assert ours.dtype == lt.float32
        np.testing.assert_allclose(ours.numpy(), getattr(torch, name)(torch.tensor(x)).numpy(), rtol=2e-6, atol=1e-6)

# ---------------------------------------------------------------- promotion with Python numbers and integer inputs

PROMOTION = [
    ('copysign', lambda m: m.copysign(m.tensor([1, -2]), 2.5)), ('copysign_int', lambda m: m.copysign(m.tensor([1, -2]), -1)),
    ('fmod_int', lambda m: m.fmod(m.tensor([7, -7]), 3)), ('fmod_float', lambda m: m.fmod(m.tensor([7, -7]), 2.5)),
    ('xlogy_number_first', lambda m: m.xlogy(2, m.tensor([1, 3]))), ('xlogy_half', lambda m: m.xlogy(m.tensor([1., 2.], dtype=m.float16), 3)),
    ('float_power', lambda m: m.float_power(m.tensor([2, 3]), 2)), ('float_power_number', lambda m: m.float_power(2, m.tensor([1., 2.]))),
    ('atan2_int', lambda m: m.atan2(m.tensor([1, 2]), m.tensor([3, 4]))), ('atan2_mixed', lambda m: m.atan2(m.tensor([1.]), m.tensor([2.], dtype=m.float64))),
    ('ldexp_int', lambda m: m.ldexp(m.tensor([3]), m.tensor([2]))), ('ldexp_double', lambda m: m.ldexp(m.tensor([3.], dtype=m.float64), m.tensor([2]))),
    ('erf_int', lambda m: m.erf(m.tensor([0, 1]))), ('erf_half', lambda m: m.erf(m.tensor([0.5], dtype=m.float16))),
    ('lgamma_bool', lambda m: m.lgamma(m.tensor([True, False]))), ('floor_int', lambda m: m.floor(m.tensor([3, -2]))),
    ('round_decimals', lambda m: m.round(m.tensor([1.2345, -2.5]), decimals=2)), ('round_neg_decimals', lambda m: m.round(m.tensor([1250., 1350.]), decimals=-2)),
    ('square_bool', lambda m: m.square(m.tensor([True, False]))), ('sgn_int', lambda m: m.sgn(m.tensor([-3, 0, 2]))),
    ('signbit_int', lambda m: m.signbit(m.tensor([-3, 0, 2]))), ('heaviside', lambda m: m.heaviside(m.tensor([-1, 0, 2]), m.tensor([7]))),
    ('gcd_mixed', lambda m: m.gcd(m.tensor([12], dtype=m.int32), m.tensor([18]))), ('shift_int8', lambda m: m.tensor([64], dtype=m.int8) << 1),
    ('shift_number_first', lambda m: 3 << m.tensor([1, 2])), ('rshift_wide', lambda m: m.tensor([-9, 9]) >> m.tensor([70, 70])),
    ('addcmul_int', lambda m: m.addcmul(m.tensor([1, 2]), m.tensor([3, 4]), m.tensor([5, 6]), value=2)),
    ('addcmul_mixed', lambda m: m.addcmul(m.tensor([1, 2]), m.tensor([3., 4.]), m.tensor([5, 6]))),
    ('addcdiv_float', lambda m: m.addcdiv(m.tensor([1.]), m.tensor([3]), m.tensor([2.]))),
    ('lerp_number', lambda m: m.lerp(m.tensor([1., 2.]), m.tensor([3., 5.]), 2)),
    ('addmm_int_scalars', lambda m: m.addmm(m.tensor([[1, 2]]), m.tensor([[1, 2], [3, 4]]), m.tensor([[1, 0], [0, 1]]), beta=2, alpha=3)),
    ('addmv_float_scalar_int', lambda m: m.addmv(m.tensor([1, 2]), m.tensor([[1, 2], [3, 4]]), m.tensor([1, 1]), alpha=1.6)),
    ('addr_promotes', lambda m: m.addr(m.zeros(2, 3), m.ones(2), m.ones(3, dtype=m.float64))),
    ('addr_bool', lambda m: m.addr(m.tensor([[True, False, False]] * 2), m.tensor([True, False]), m.tensor([False, True, True]))),
    ('outer_mixed', lambda m: m.outer(m.tensor([1, 2]), m.tensor([0.5]))), ('kron_int_float', lambda m: m.kron(m.tensor([1, 2]), m.tensor([[0.5]]))),
    ('inner_scalar', lambda m: m.inner(m.tensor(2.), m.tensor([[1, 2]]))), ('trace_int', lambda m: m.trace(m.tensor([[1, 2], [3, 4]]))),
    ('cumprod_bool', lambda m: m.cumprod(m.tensor([True, True, False]), 0)), ('cumprod_half', lambda m: m.cumprod(m.ones(3, dtype=m.float16) * 1.5, 0)),
    ('cumprod_dtype', lambda m: m.cumprod(m.tensor([1, 2, 3]), 0, dtype=m.float32)), ('nansum_int', lambda m: m.nansum(m.tensor([1, 2]))),
    ('bincount_weights32', lambda m: m.bincount(m.tensor([0, 2]), m.tensor([0.5, 1.]))),
    ('bincount_weights_int', lambda m: m.bincount(m.tensor([0, 2]), m.tensor([1, 2]))),
    ('count_nonzero', lambda m: m.count_nonzero(m.tensor([[0, 1], [2, 0]]), dim=(0, 1))),
    ('isclose_int', lambda m: m.isclose(m.tensor([100, 101]), m.tensor([100, 100]), rtol=0.02)),
    ('nan_to_num_int', lambda m: m.nan_to_num(m.tensor([1, 2]))), ('angle_int', lambda m: m.angle(m.tensor([-1, 2]))),
]

def _version(t): return t._version if isinstance(t, torch.Tensor) else t._version[0]

def _compare(t, l):
    if isinstance(t, (tuple, list)):
        for a, b in zip(t, l): _compare(a, b)
        return
    assert repr(l.dtype) == repr(t.dtype), (l.dtype, t.dtype)
    assert tuple(l.shape) == tuple(t.shape), (l.shape, t.shape)
    np.testing.assert_allclose(l.numpy().astype(np.float64), t.numpy().astype(np.float64), rtol=1e-6, atol=1e-7)

@pytest.mark.parametrize('name,fn', PROMOTION, ids=[n for n, _ in PROMOTION])
def test_dtype_promotion_and_values(name, fn):
    _compare(fn(torch), fn(lt))

# ---------------------------------------------------------------- the methods and in-place variants torch has

NEW_FUNCTIONS = """acos acosh addbmm addcdiv addcmul addmm addmv addr allclose aminmax angle arccos arccosh arcsin arcsinh arctan
arctan2 arctanh asin asinh atan atan2 atanh baddbmm bincount bitwise_left_shift bitwise_right_shift ceil copysign cosh
count_nonzero cross cummax cummin cumprod deg2rad digamma erf erfc erfinv exp2 fix float_power floor fmax fmin fmod frac frexp
gcd ger heaviside histc hypot i0 inner isclose isneginf isposinf isreal kron lcm ldexp lerp lgamma log10 log2 logaddexp
logaddexp2 logcumsumexp logit multiply mvlgamma nan_to_num nanmean nansum negative nextafter outer polygamma positive rad2deg
reciprocal round rsub sgn signbit sinc sinh square std_mean tan trace tril_indices triu_indices trunc var_mean vdot xlogy""".split()
OLD_FUNCTIONS = """abs absolute neg sign exp expm1 log log1p sqrt rsqrt sin cos tanh sigmoid relu pow remainder floor_divide divide
true_divide eq ne lt le gt ge greater greater_equal less less_equal not_equal logical_and logical_or logical_xor logical_not
bitwise_and bitwise_or bitwise_xor bitwise_not cumsum mul sub add div clamp clip equal""".split()

def test_new_functions_are_top_level():
    for name in NEW_FUNCTIONS: assert getattr(lt, name) is getattr(ops, name), name

@pytest.mark.parametrize('name', NEW_FUNCTIONS + OLD_FUNCTIONS)
def test_methods_and_inplace_variants_that_torch_has(name):
    for attr in (name, name + '_'):
        if hasattr(torch.Tensor, attr) and not attr.startswith(('tril_indices', 'triu_indices')):
            assert hasattr(lt.Tensor, attr), f'lit_torch.Tensor lacks {attr}'

def test_operators_torch_has():
    for name in ('__iand__', '__ior__', '__ixor__', '__imod__', '__ipow__', '__ilshift__', '__irshift__', '__ifloordiv__',
                 '__lshift__', '__rshift__', '__rlshift__', '__rrshift__', '__pos__', '__rdiv__', '__div__', '__idiv__'):
        assert hasattr(lt.Tensor, name), name

INPLACE = [  # (method, args as lambdas of the library, input range)
    ('exp_', (), None), ('sigmoid_', (), None), ('abs_', (), None), ('cos_', (), None), ('log_', (), (0.1, 3)), ('sin_', (), None),
    ('sqrt_', (), (0.1, 3)), ('tanh_', (), None), ('erf_', (), None), ('erfinv_', (), (-0.9, 0.9)), ('lgamma_', (), (0.5, 3)),
    ('digamma_', (), (0.5, 3)), ('tan_', (), (-1, 1)), ('atan2_', (lambda m: m.ones(3, 4) * 0.5,), None),
    ('pow_', (2,), None), ('pow_', (lambda m: m.ones(4) * 1.5,), (0.1, 2)), ('remainder_', (1.5,), None),
    ('fmod_', (lambda m: m.ones(4) * 0.7,), None), ('xlogy_', (lambda m: m.ones(4) * 2.,), None),
    ('lerp_', (lambda m: m.ones(3, 4), 0.25), None), ('addcmul_', (lambda m: m.ones(4) * 2, lambda m: m.ones(3, 1) * 3), None),
    ('addcdiv_', (lambda m: m.ones(4) * 2, lambda m: m.ones(3, 1) * 4), None), ('logit_', (), (0.1, 0.9)),
    ('nan_to_num_', (), None), ('clamp_', (-0.5, 0.5), None), ('round_', (), None), ('frac_', (), None), ('sgn_', (), None),
    ('hypot_', (lambda m: m.ones(4),), None), ('copysign_', (-1.,), None), ('cumsum_', (1,), None), ('cumprod_', (0,), None),
    ('eq_', (0.5,), None), ('lt_', (lambda m: m.zeros(4),), None), ('polygamma_', (1,), (0.5, 3)), ('mvlgamma_', (2,), (1, 3)),
    ('square_', (), None), ('reciprocal_', (), (0.5, 2)), ('neg_', (), None), ('negative_', (), None), ('multiply_', (3,), None),
    ('addmm_', (lambda m: m.ones(3, 2), lambda m: m.ones(2, 4)), None), ('addr_', (lambda m: m.ones(3), lambda m: m.ones(4)), None),
]

@pytest.mark.parametrize('method,args,bounds', INPLACE, ids=[f'{m}{i}' for i, (m, _, _) in enumerate(INPLACE)])
def test_inplace_matches_torch_with_and_without_a_graph(method, args, bounds):
    low, high = bounds or (None, None)
    a, = make_inputs([(3, 4)], low=low, high=high)
    for record in (False, True):
        results = []
        for m in (torch, lt):
            leaf = m.tensor(a, requires_grad=record)
            x = leaf * 1 if record else leaf
            view = x[1:]
            version = _version(x)
            out = getattr(x, method)(*[v(m) if callable(v) else v for v in args])
            assert out is x
            assert _version(x) > version
            if record:
                x.sum().backward() if x.requires_grad else None
                g = leaf.grad
                if isinstance(g, torch.Tensor) and g._is_zerotensor(): g = torch.zeros_like(leaf)  # torch's gradient of sgn
                results.append((x.detach().numpy().copy(), view.detach().numpy().copy(),
                                None if g is None else g.numpy().copy(), None if x.grad_fn is None else x.grad_fn.name()))
            else: results.append((x.numpy().copy(), view.numpy().copy(), None, None))
        (tx, tv, tg, tn), (lx, lv, lg, ln) = results
        np.testing.assert_allclose(lx, tx, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(lv, tv, rtol=1e-5, atol=1e-6)  # the view sees the change
        if tg is not None: np.testing.assert_allclose(lg, tg, rtol=1e-4, atol=1e-5)
        assert ln == tn or tn is None, (ln, tn)

@pytest.mark.parametrize('method', ['erf_', 'exp2_', 'atan2_', 'cumprod_', 'lerp_', 'addmm_'])
def test_inplace_on_a_leaf_that_requires_grad_is_an_error(method):
    args = {'atan2_': lambda m: (m.ones(2, 2),), 'cumprod_': lambda m: (0,), 'lerp_': lambda m: (m.ones(2, 2), 0.5),
            'addmm_': lambda m: (m.ones(2, 2), m.ones(2, 2))}.get(method, lambda m: ())
    err = check_same_error(lambda m: getattr(m.ones(2, 2, requires_grad=True), method)(*args(m)))
    assert 'leaf Variable' in str(err)

@pytest.mark.parametrize('make', [lambda m: m.tensor([1, 2]).erf_(), lambda m: m.tensor([1, 2]).atan2_(m.tensor([1., 1.])),
                                  lambda m: m.tensor([True]).exp2_(), lambda m: m.ones(3).hypot_(m.ones(2, 3)),
                                  lambda m: m.tensor([1., 2.]).float_power_(2)])
def test_inplace_result_that_does_not_fit_is_an_error(make):
    check_same_error(make)

def test_augmented_assignment_operators():
    got = []
    for m in (torch, lt):
        i = m.tensor([1, 2, 12])
        v = i[1:]
        i <<= 2; i %= 5; i |= 8; i ^= 1; i &= 14; i >>= 1; i **= 2; i //= 3
        assert v.tolist() == i.tolist()[1:]  # every one of them in place: the view sees it
        got.append(i.tolist())
    assert got[0] == got[1]

def test_inplace_comparison_takes_a_zero_gradient_node():
    for m in (torch, lt):
        x = m.tensor([1., 2., 3.], requires_grad=True)
        y = x * 2
        y.ge_(4)
        assert y.grad_fn.name() == 'GeBackward0'
        (y * x).sum().backward()
        assert x.grad.tolist() == [0., 1., 1.]  # only through the second factor

# ---------------------------------------------------------------- out=

@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
def test_out_writes_casts_bumps_and_returns_out():
    for name, call in [('add', lambda m, o: m.add(m.ones(3), 2, alpha=3, out=o)), ('mul', lambda m, o: m.mul(m.ones(3), 2, out=o)),
                       ('exp', lambda m, o: m.exp(m.zeros(3), out=o)), ('erf', lambda m, o: m.erf(m.ones(3), out=o)),
                       ('atan2', lambda m, o: m.atan2(m.ones(3), m.ones(3), out=o)),
                       ('matmul', lambda m, o: m.matmul(m.ones(3, 2, dtype=m.float64), m.ones(2, dtype=m.float64), out=o)),
                       ('cumprod', lambda m, o: m.cumprod(m.ones(3), 0, out=o)),
                       ('addmm', lambda m, o: m.addmm(m.ones(3, dtype=m.float64), m.ones(3, 2, dtype=m.float64), m.ones(2, 3, dtype=m.float64), out=o)[0]),
                       ('sum', lambda m, o: m.sum(m.ones(3, 2), 1, out=o)), ('eq', lambda m, o: m.eq(m.ones(3), 1, out=o))]:
        got = []
        for m in (torch, lt):
            o = m.zeros(3, dtype=m.float64)
            r = call(m, o)
            assert r is o or name == 'addmm'
            got.append((o.tolist(), str(o.dtype), _version(o)))
        np.testing.assert_allclose(got[1][0], got[0][0], rtol=1e-6, err_msg=name)  # torch computes erf in out's dtype, exp in the input's
        assert got[0][1] == got[1][1], (name, got)
        assert got[1][2] >= 1, name

def test_out_errors_and_resize():
    check_same_error(lambda m: m.exp(m.ones(2), out=m.zeros(2, dtype=m.int64)))
    check_same_error(lambda m: m.mul(m.ones(2, requires_grad=True), 2, out=m.zeros(2)))
    check_same_error(lambda m: m.bitwise_left_shift(m.tensor([1]), 2, out=m.zeros(1, dtype=m.bool)))
    for exact in (lambda m, o: m.mm(m.ones(2, 2), m.ones(2, 2), out=o), lambda m, o: m.addmm(m.ones(2, 2), m.ones(2, 2), m.ones(2, 2), out=o),
                  lambda m, o: m.cross(m.ones(3), m.ones(3), dim=0, out=o), lambda m, o: m.logcumsumexp(m.ones(2), 0, out=o),
                  lambda m, o: m.clamp(m.ones(2), 0, 1, out=o), lambda m, o: m.softmax(m.ones(2), 0, out=o),
                  lambda m, o: m.histc(m.ones(2), out=o), lambda m, o: m.amax(m.ones(2, 2), 0, out=o)):
        check_same_error(lambda m: exact(m, m.empty(0, dtype=m.float64)))  # these want out in exactly the result's dtype
    for m in (torch, lt):
        o = m.zeros(5)
        with pytest.warns(UserWarning, match='resized'): m.sqrt(m.ones(2), out=o)
        assert tuple(o.shape) == (2,)
        e = m.empty(0)
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            m.sqrt(m.ones(2, 3), out=e)  # an empty out is resized silently
        assert tuple(e.shape) == (2, 3)
    with lt.no_grad(): lt.exp(lt.ones(2, requires_grad=True), out=lt.zeros(2))  # no graph: allowed

def test_out_with_a_pair_of_tensors():
    for m in (torch, lt):
        v, i = m.empty(0), m.empty(0, dtype=m.int64)
        m.cummax(m.tensor([1., 3., 2.]), 0, out=(v, i))
        assert (v.tolist(), i.tolist()) == ([1., 3., 3.], [0, 1, 1])
        lo, hi = m.empty(0), m.empty(0)
        m.aminmax(m.tensor([[1., 3.], [0., 2.]]), dim=1, out=(lo, hi))
        assert (lo.tolist(), hi.tolist()) == ([1., 0.], [3., 2.])

# ---------------------------------------------------------------- the Python binding refuses what torch's refuses

REFUSED = [
    lambda m: m.atan2(m.ones(2), 2.), lambda m: m.hypot(2., m.ones(2)), lambda m: m.logaddexp(m.ones(2), 1),
    lambda m: m.eq(2, m.ones(2)), lambda m: m.maximum(m.ones(2), 2), lambda m: m.logical_and(m.ones(2), 1),
    lambda m: m.remainder(2, 3), lambda m: m.pow(2, 3), lambda m: m.copysign(2, m.ones(2)), lambda m: m.fmod(2, m.ones(2)),
    lambda m: m.xlogy(2, 3), lambda m: m.clamp_min(2, m.ones(2)), lambda m: m.exp(2.), lambda m: m.gcd(m.tensor([2]), 4),
    lambda m: m.isclose(m.ones(2), 1.), lambda m: m.bitwise_left_shift(2, 3), lambda m: m.rsub(2, m.ones(2)),
    lambda m: m.addmm(2, m.ones(2, 2), m.ones(2, 2)), lambda m: m.erf(m.ones(2), out=3),
]

@pytest.mark.parametrize('i', range(len(REFUSED)))
def test_binding_raises_torchs_error_type(i):
    check_same_error(REFUSED[i])

ERRORS = [
    lambda m: m.hypot(m.tensor([1]), m.tensor([2])), lambda m: m.logaddexp(m.tensor([1]), m.tensor([2])),
    lambda m: m.gcd(m.ones(2), m.ones(2)), lambda m: m.tensor([1.]) << 1, lambda m: m.frac(m.tensor([1])),
    lambda m: m.floor(m.tensor([True])), lambda m: m.round(m.tensor([1]), decimals=1), lambda m: m.frexp(m.tensor([1])),
    lambda m: m.polygamma(-1, m.ones(2)), lambda m: m.mvlgamma(m.ones(2), 0), lambda m: m.lerp(m.ones(2), m.ones(2, dtype=m.float64), 0.5),
    lambda m: m.addcdiv(m.tensor([1]), m.tensor([1]), m.tensor([2])), lambda m: m.isclose(m.ones(2), m.ones(2, dtype=m.float64)),
    lambda m: m.heaviside(m.ones(2), m.ones(2, dtype=m.float64)), lambda m: m.nanmean(m.tensor([1, 2])),
    lambda m: m.bincount(m.tensor([-1])), lambda m: m.bincount(m.ones(2)), lambda m: m.histc(m.tensor([1, 2])),
    lambda m: m.aminmax(m.ones(0)), lambda m: m.addmm(m.ones(2, 2), m.ones(2, 3), m.ones(2, 2)),
    lambda m: m.addmm(m.ones(2, 2), m.ones(2), m.ones(2, 2)), lambda m: m.addmm(m.ones(2, 2), m.ones(2, 2, dtype=m.float64), m.ones(2, 2)),
    lambda m: m.addmv(m.ones(2), m.ones(2, 3), m.ones(2)), lambda m: m.baddbmm(m.ones(2, 2), m.ones(3, 2, 2), m.ones(2, 2, 2)),
    lambda m: m.addr(m.zeros(2, 2, dtype=m.int64), m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64), alpha=0.5),
    lambda m: m.outer(m.ones(2, 2), m.ones(2)), lambda m: m.cross(m.ones(2, 4), m.ones(2, 4), dim=1),
    lambda m: m.cross(m.ones(2, 3), m.ones(2, 3, dtype=m.float64), dim=1), lambda m: m.trace(m.ones(3)),
    lambda m: m.trace(m.ones(2, 2, dtype=m.bool)), lambda m: m.vdot(m.ones(2), m.ones(2, dtype=m.float64)),
    lambda m: m.inner(m.ones(2, 3), m.ones(2, 4)), lambda m: m.tril_indices(-1, 2),
    lambda m: m.heaviside(m.ones(2, requires_grad=True), m.ones(2)).sum().backward(),
]

@pytest.mark.parametrize('i', range(len(ERRORS)))
def test_bad_input_raises_torchs_error_type(i):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check_same_error(ERRORS[i])

# ---------------------------------------------------------------- node names

NODES = {
    'erf': lambda m, x: m.erf(x), 'erfinv': lambda m, x: m.erfinv(x * 0.1), 'lgamma': lambda m, x: m.lgamma(x),
    'digamma': lambda m, x: m.digamma(x), 'polygamma': lambda m, x: m.polygamma(2, x), 'i0': lambda m, x: m.i0(x),
    'tan': lambda m, x: m.tan(x), 'asinh': lambda m, x: m.asinh(x), 'floor': lambda m, x: m.floor(x),
    'round': lambda m, x: m.round(x), 'round_decimals': lambda m, x: m.round(x, decimals=2), 'frac': lambda m, x: m.frac(x),
    'sgn': lambda m, x: m.sgn(x), 'reciprocal': lambda m, x: m.reciprocal(x), 'logit': lambda m, x: m.logit(x),
    'nan_to_num': lambda m, x: m.nan_to_num(x), 'atan2': lambda m, x: m.atan2(x, x), 'hypot': lambda m, x: m.hypot(x, x),
    'copysign': lambda m, x: m.copysign(x, x), 'fmod': lambda m, x: m.fmod(x, x), 'logaddexp': lambda m, x: m.logaddexp(x, x),
    'xlogy': lambda m, x: m.xlogy(x, x), 'fmax': lambda m, x: m.fmax(x, x), 'nextafter': lambda m, x: m.nextafter(x, x),
    'lerp': lambda m, x: m.lerp(x, x, 0.5), 'lerp_tensor': lambda m, x: m.lerp(x, x, x), 'addcmul': lambda m, x: m.addcmul(x, x, x),
    'addcdiv': lambda m, x: m.addcdiv(x, x, x), 'cumprod': lambda m, x: m.cumprod(x, 0), 'cummax': lambda m, x: m.cummax(x, 0)[0],
    'logcumsumexp': lambda m, x: m.logcumsumexp(x, 0), 'aminmax': lambda m, x: m.aminmax(x)[0],
    'addmm': lambda m, x: m.addmm(x, x, x), 'addmv': lambda m, x: m.addmv(x[0], x, x[0]), 'addr': lambda m, x: m.addr(x, x[0], x[1]),
    'baddbmm': lambda m, x: m.baddbmm(x, x[None], x[None]), 'addbmm': lambda m, x: m.addbmm(x, x[None], x[None]),
    'cross': lambda m, x: m.cross(x, x, dim=0), 'trace': lambda m, x: m.trace(x), 'vdot': lambda m, x: m.vdot(x[0], x[1]),
    'outer': lambda m, x: m.outer(x[0], x[1]),
}

@pytest.mark.parametrize('name', list(NODES))
def test_node_names(name):
    names = [NODES[name](m, m.ones(3, 3, requires_grad=True) * 0.5).grad_fn.name() for m in (torch, lt)]
    assert names[1] == names[0]

def test_arithmetic_takes_two_numbers():
    for f in ('add', 'sub', 'mul', 'div', 'floor_divide', 'multiply', 'true_divide'):
        t, l = getattr(torch, f)(2, 3), getattr(lt, f)(2, 3)
        assert (l.item(), repr(l.dtype), l.ndim) == (t.item(), repr(t.dtype), 0), f

def test_mvlgamma_outside_its_domain_is_not_checked():
    _compare(torch.mvlgamma(torch.tensor([1., 0.2, 3.]), 3), lt.mvlgamma(lt.tensor([1., 0.2, 3.]), 3))

# ---------------------------------------------------------------- on a GPU, or the emulated one (make test-cuda-emulated)
# (tests/conftest.py's `fake_cupy` fixture looks for `_cupy_module` on the package, which the layout moved to lit_torch._C:
#  these run where `lt.cuda.is_available()`, i.e. on a GPU or under LIT_TORCH_EMULATE_CUDA=1.)
on_gpu = pytest.mark.skipif(not lt.cuda.is_available(), reason='no GPU: CuPy or a device is missing (LIT_TORCH_EMULATE_CUDA=1 runs these without one)')

GPU_OPS = {
    'erf_erfinv_erfc': (lambda m, x: m.erfinv(m.erf(x) * 0.9) + m.erfc(x), [(3, 4)]),
    'gamma': (lambda m, x: m.lgamma(x.abs() + 0.5) + m.digamma(x.abs() + 0.5) + m.polygamma(1, x.abs() + 0.5), [(3, 4)]),
    'i0_sinc_logit': (lambda m, x: m.i0(x) + m.sinc(x) + m.logit(x.sigmoid()), [(3, 4)]),
    'binary': (lambda m, a, b: m.atan2(a, b) + m.hypot(a, b) + m.logaddexp(a, b) + m.xlogy(a, b.abs()) + m.fmax(a, b), [(3, 4), (4,)]),
    'ternary': (lambda m, a, b: m.lerp(a, b, 0.3) + m.addcdiv(a, a, b.abs() + 1) + m.copysign(a, b), [(3, 4), (3, 4)]),
    'scans': (lambda m, x: m.cumprod(x, 1) + m.cummax(x, 1)[0] + m.logcumsumexp(x, 0), [(3, 4)]),
    'nan_reductions': (lambda m, x: m.nansum(x, 1) + m.nanmean(x, 1) + m.var_mean(x, 1)[0] + m.aminmax(x, dim=1).min, [(3, 4)]),
    'products': (lambda m, a, b: m.addmm(a, a, b) + m.kron(a[:2, :2], b[:1, :2]).sum() + m.trace(b) + m.outer(a[0], b[0]), [(4, 4), (4, 4)]),
    'cross_inner': (lambda m, a, b: m.cross(a, b, dim=1).sum() + m.inner(a, b).sum(), [(2, 3), (2, 3)]),
}

@on_gpu
@pytest.mark.parametrize('name', list(GPU_OPS))
def test_on_a_gpu(name):
    fn, shapes = GPU_OPS[name]
    check_op(fn, shapes, device='cuda:0')

@on_gpu
def test_counting_ops_on_a_gpu():
    x = lt.tensor([1., 2., 2., 5.], device='cuda:0')
    assert lt.histc(x, bins=4).cpu().tolist() == torch.histc(torch.tensor([1., 2., 2., 5.]), bins=4).tolist()
    assert lt.bincount(lt.tensor([0, 2, 2], device='cuda:0')).cpu().tolist() == [1, 0, 2]
    assert lt.count_nonzero(x - 2).cpu().item() == 2
    assert lt.tril_indices(3, 3, device='cuda:0').device == lt.device('cuda:0')

# ---------------------------------------------------------------- bugs once found in nbs/03_ops, now fixed (tests/test_ops_bugs.py has more)

def test_sign_of_nan_is_zero():
    assert lt.sign(lt.tensor([float('nan')])).item() == torch.sign(torch.tensor([float('nan')])).item() == 0.

def test_all_any_with_tuple_dims():
    x = np.array([[True, False], [True, True]])
    assert lt.all(lt.tensor(x), dim=(0, 1)).item() == bool(torch.all(torch.tensor(x), dim=(0, 1)))

def test_prod_bool_dtype_bool():
    assert lt.prod(lt.tensor([True, False]), dtype=lt.bool).dtype == lt.bool

def test_half_cumsum_accumulates_in_float():
    assert lt.cumsum(lt.ones(5000, dtype=lt.float16), 0)[-1].item() == torch.cumsum(torch.ones(5000, dtype=torch.float16), 0)[-1].item() == 5000.

def test_amax_of_empty_along_a_dim():
    assert tuple(lt.amax(lt.ones(5, 0, 5), 0).shape) == tuple(torch.amax(torch.ones(5, 0, 5), 0).shape) == (0, 5)
