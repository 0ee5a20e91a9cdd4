"Differential tests of lit_torch.ops against PyTorch: forward, gradients, second derivatives, dtypes, errors."
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st
import lit_torch as lt
import lit_torch.ops as ops
from op_helpers import check_op, check_gradcheck, check_same_error, make_inputs

def ns(lib):
    "The namespace holding the torch.* functions: torch itself, or lit_torch.ops until lit_torch re-exports them."
    return ops if lib is lt else lib

FAST = settings(max_examples=25, deadline=None)

# ---------------------------------------------------------------- arithmetic

BINARY = {
    'add': lambda m, a, b: a + b,
    'sub': lambda m, a, b: a - b,
    'sub_alpha': lambda m, a, b: ns(m).sub(a, b, alpha=2.5),
    'mul': lambda m, a, b: a * b,
    'div': lambda m, a, b: a / b,
    'pow': lambda m, a, b: a.abs() ** b,
    'maximum': lambda m, a, b: ns(m).maximum(a, b),
    'minimum': lambda m, a, b: ns(m).minimum(a, b),
    'max2': lambda m, a, b: ns(m).max(a, b),
    'remainder': lambda m, a, b: ns(m).remainder(a, b),
    'where': lambda m, a, b: ns(m).where(a > b, a, b),
}

@pytest.mark.parametrize('name', list(BINARY))
@pytest.mark.parametrize('shapes', [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (2, 3))])
def test_binary(name, shapes):
    check_op(BINARY[name], shapes)

@pytest.mark.parametrize('name', [n for n in BINARY if n != 'remainder'])
def test_binary_gradcheck(name):
    gradgrad = name not in ('maximum', 'minimum', 'max2', 'where')
    check_gradcheck(BINARY[name], [(2, 3), (3,)], gradgrad=True)

def test_remainder_grad_formula():
    # away from the jumps of floor(a/b), the finite differences are well defined
    a, b = np.array([5.3, -2.7, 7.1]), np.array([2.0, 1.5, -3.0])
    check_gradcheck(lambda m, x, y: ns(m).remainder(x, y), arrays=[a, b])

@st.composite
def broadcastable(draw):
    "Two shapes that broadcast, of up to 3 dims, sizes up to 3 (hypothesis)."
    nd = draw(st.integers(0, 3))
    full = draw(st.lists(st.integers(1, 3), min_size=nd, max_size=nd))
    def sub_shape():
        keep = draw(st.integers(0, nd))
        return tuple(n if draw(st.booleans()) else 1 for n in full[nd - keep:])
    return sub_shape(), sub_shape()

@pytest.mark.parametrize('name', ['add', 'sub', 'mul', 'div', 'pow', 'maximum', 'minimum', 'where'])
@FAST
@given(shapes=broadcastable())
def test_binary_broadcast_hypothesis(name, shapes):
    check_op(BINARY[name], shapes)

COMPARISONS = ['eq', 'ne', 'lt', 'le', 'gt', 'ge']

@pytest.mark.parametrize('name', COMPARISONS)
@FAST
@given(shapes=broadcastable())
def test_comparison_hypothesis(name, shapes):
    a, b = make_inputs(shapes)
    b = np.where(np.random.default_rng(0).random(b.shape) < 0.3, 0.5, b).astype(np.float32)
    a = np.where(a > 0, 0.5, a).astype(np.float32)  # some ties
    t = getattr(torch, name)(torch.tensor(a), torch.tensor(b))
    l = getattr(ops, name)(lt.tensor(a), lt.tensor(b))
    assert l.dtype == lt.bool and np.array_equal(l.numpy(), t.numpy())

def test_comparison_operators_and_no_grad():
    x = lt.tensor([1., 2., 3.], requires_grad=True)
    for op in ('__eq__', '__ne__', '__lt__', '__le__', '__gt__', '__ge__'):
        r = getattr(x, op)(2.)
        assert r.dtype == lt.bool and r.grad_fn is None and not r.requires_grad
        assert r.tolist() == getattr(torch.tensor([1., 2., 3.]), op)(2.).tolist()
    assert len({x, x * 1, x}) == 2
    assert (x == None) is False and (x != None) is True

@pytest.mark.parametrize('op', ['&', '|', '^'])
def test_bitwise_bool(op):
    a, b = [True, False, True, False], [True, True, False, False]
    t = eval(f'torch.tensor(a) {op} torch.tensor(b)')
    l = eval(f'lt.tensor(a) {op} lt.tensor(b)')
    assert l.tolist() == t.tolist() and l.dtype == lt.bool
    assert (~lt.tensor(a)).tolist() == (~torch.tensor(a)).tolist()
    assert eval(f'lt.tensor([3, 5]) {op} 6').tolist() == eval(f'torch.tensor([3, 5]) {op} 6').tolist()

@pytest.mark.parametrize('name', ['logical_and', 'logical_or', 'logical_xor'])
def test_logical(name):
    a, b = [1., 0., 2., 0.], [True, True, False, False]
    assert getattr(ops, name)(lt.tensor(a), lt.tensor(b)).tolist() == getattr(torch, name)(torch.tensor(a), torch.tensor(b)).tolist()
    assert ops.logical_not(lt.tensor(a)).tolist() == torch.logical_not(torch.tensor(a)).tolist()

def test_isnan_isfinite():
    v = [1., float('nan'), float('inf'), -float('inf')]
    for name in ('isnan', 'isinf', 'isfinite'):
        assert getattr(lt.tensor(v), name)().tolist() == getattr(torch.tensor(v), name)().tolist()

UNARY_ARITH = {
    'neg': lambda m, x: -x, 'abs': lambda m, x: x.abs(), 'sign': lambda m, x: x.sign(),
    'rsub': lambda m, x: 2 - x, 'rdiv': lambda m, x: 3 / x, 'rpow': lambda m, x: 2 ** x, 'pow2': lambda m, x: x ** 2,
    'pow_half': lambda m, x: x.abs() ** 0.5, 'pow0': lambda m, x: x ** 0, 'pow_neg': lambda m, x: x ** -2,
    'rem_scalar': lambda m, x: x % 0.7, 'div_scalar': lambda m, x: x / 4,
}

@pytest.mark.parametrize('name', list(UNARY_ARITH))
def test_unary_arith(name):
    check_op(UNARY_ARITH[name], [(3, 4)])
    if name not in ('sign', 'rem_scalar'): check_gradcheck(UNARY_ARITH[name], [(2, 3)], gradgrad=True)

@pytest.mark.parametrize('mode', ['trunc', 'floor'])
def test_div_rounding(mode):
    check_op(lambda m, a, b: ns(m).div(a * 5, b, rounding_mode=mode), [(3, 4), (4,)])
    ai, bi = [-7, 7, -8, 9, 0], [2, -2, 3, 3, 5]
    assert ops.div(lt.tensor(ai), lt.tensor(bi), rounding_mode=mode).tolist() == torch.div(torch.tensor(ai), torch.tensor(bi), rounding_mode=mode).tolist()
    assert ops.div(lt.tensor(ai), lt.tensor(bi), rounding_mode=mode).dtype == lt.int64

def test_int_division_and_floor_remainder():
    ai, bi = [-7, 7, -8, 9], [2, -2, 3, 3]
    T, L = (torch.tensor(ai), torch.tensor(bi)), (lt.tensor(ai), lt.tensor(bi))
    assert (L[0] / L[1]).dtype == lt.float32
    np.testing.assert_allclose((L[0] / L[1]).numpy(), (T[0] / T[1]).numpy())
    assert (L[0] // L[1]).tolist() == (T[0] // T[1]).tolist()
    assert (L[0] % L[1]).tolist() == (T[0] % T[1]).tolist()
    assert (7 // L[1]).tolist() == (7 // T[1]).tolist() and (7 % L[1]).tolist() == (7 % T[1]).tolist()
    assert (L[0] % 3).tolist() == (T[0] % 3).tolist()
    x = np.array([-3.5, 3.5, 2.25], np.float32)
    assert (lt.tensor(x) % -2).tolist() == (torch.tensor(x) % -2).tolist()
    assert (lt.tensor(x) // 2).tolist() == (torch.tensor(x) // 2).tolist()

# ---------------------------------------------------------------- dtype promotion

DTYPES = ['bool', 'int32', 'int64', 'float32', 'float64']
SCALARS = [True, 2, 2.5]

def _pair(dt, shape=(3,)):
    v = np.array([1, 2, 3][:shape[0]] if shape else 2).astype(dt)
    return torch.tensor(v), lt.tensor(v)

@pytest.mark.parametrize('op', ['+', '-', '*', '/', '**', '//', '%', '<', '==', '&'])
@pytest.mark.parametrize('da', DTYPES)
@pytest.mark.parametrize('db', DTYPES + SCALARS + ['0d-float64', '0d-int64'])
def test_promotion(op, da, db):
    ta, la = _pair(da)
    if isinstance(db, str) and db.startswith('0d'): tb, lb = _pair(db[3:], ())
    elif isinstance(db, str): tb, lb = _pair(db)
    else: tb = lb = db
    f = lambda a, b: eval(f'a {op} b')
    try: want = f(ta, tb)
    except Exception as e:
        with pytest.raises(Exception): f(la, lb)
        return
    got = f(la, lb)
    assert repr(got.dtype) == repr(want.dtype), (got.dtype, want.dtype)
    np.testing.assert_allclose(got.numpy().astype(np.float64), want.numpy().astype(np.float64), rtol=1e-6)

@pytest.mark.parametrize('op', ['+', '-', '*', '/', '**', '//', '%', '<', '=='])
@pytest.mark.parametrize('da', DTYPES)
@pytest.mark.parametrize('scalar', SCALARS)
def test_promotion_reflected(op, da, scalar):
    "A number on the left: `2 - x`, `2.5 ** x`."
    ta, la = _pair(da)
    f = lambda b: eval(f'scalar {op} b')
    try: want = f(ta)
    except Exception:
        with pytest.raises(Exception): f(la)
        return
    got = f(la)
    assert repr(got.dtype) == repr(want.dtype), (got.dtype, want.dtype)
    np.testing.assert_allclose(got.numpy().astype(np.float64), want.numpy().astype(np.float64), rtol=1e-6)

@pytest.mark.parametrize('dt', ['bool', 'int64', 'int32', 'float64'])
@pytest.mark.parametrize('name', ['exp', 'log1p', 'sqrt', 'sigmoid', 'tanh', 'sin', 'relu', 'abs', 'sign', 'cumsum', 'prod', 'amax', 'argmax'])
def test_unary_dtypes(dt, name):
    v = np.array([1, 2, 3]).astype(dt)
    args = (0,) if name == 'cumsum' else ()
    try: want = getattr(torch.tensor(v), name)(*args)
    except Exception as e:
        check_same_error(lambda m: getattr(m.tensor(v), name)(*args))
        return
    got = getattr(lt.tensor(v), name)(*args)
    assert repr(got.dtype) == repr(want.dtype)
    np.testing.assert_allclose(got.numpy().astype(np.float64), want.numpy().astype(np.float64), rtol=1e-6)

def test_where_and_clamp_dtypes():
    c = [True, False, True]
    for x, y in [(1., 0), (1, 0), (torch.tensor([1, 2, 3]), 0.5), (torch.tensor([1, 2, 3], dtype=torch.int32), torch.tensor(2))]:
        lx, ly = [lt.tensor(v.numpy()) if isinstance(v, torch.Tensor) else v for v in (x, y)]
        assert repr(ops.where(lt.tensor(c), lx, ly).dtype) == repr(torch.where(torch.tensor(c), x, y).dtype)
    assert repr(lt.tensor([1, 5]).clamp(0.5, 2.5).dtype) == repr(torch.tensor([1, 5]).clamp(0.5, 2.5).dtype)
    assert lt.tensor([1, 5]).clamp(0, 2).tolist() == [1, 2]

# ---------------------------------------------------------------- elementwise math

POSITIVE = {'log': lambda m, x: x.log(), 'sqrt': lambda m, x: x.sqrt(), 'rsqrt': lambda m, x: x.rsqrt(), 'log1p': lambda m, x: x.log1p()}
ANY = {'exp': lambda m, x: x.exp(), 'expm1': lambda m, x: x.expm1(), 'sin': lambda m, x: x.sin(), 'cos': lambda m, x: x.cos(),
       'tanh': lambda m, x: x.tanh(), 'sigmoid': lambda m, x: x.sigmoid(), 'relu': lambda m, x: x.relu(),
       'fn_exp': lambda m, x: ns(m).exp(x), 'fn_sigmoid': lambda m, x: ns(m).sigmoid(x), 'fn_tanh': lambda m, x: ns(m).tanh(x),
       'fn_relu': lambda m, x: ns(m).relu(x)}

@pytest.mark.parametrize('name', list(POSITIVE))
def test_unary_positive(name):
    check_op(POSITIVE[name], [(3, 4)], low=0.1, high=3.)
    check_gradcheck(POSITIVE[name], [(2, 3)], gradgrad=True, low=0.1, high=3.)

@pytest.mark.parametrize('name', list(ANY))
def test_unary(name):
    check_op(ANY[name], [(3, 4)])
    check_gradcheck(ANY[name], [(2, 3)], gradgrad=True)

def test_saved_output_double_backward_matches_torch():
    v = np.array([0.3, -1.2, 2.0])
    for f in ('exp', 'tanh', 'sigmoid', 'sqrt'):
        tx, lx = torch.tensor(np.abs(v), requires_grad=True), lt.tensor(np.abs(v), requires_grad=True)
        tg, = torch.autograd.grad(getattr(tx, f)().sum(), tx, create_graph=True)
        lg, = lt.autograd.grad(getattr(lx, f)().sum(), lx, create_graph=True)
        np.testing.assert_allclose(lt.autograd.grad(lg.sum(), lx)[0].numpy(), torch.autograd.grad(tg.sum(), tx)[0].numpy(), rtol=1e-10)

CLAMPS = {
    'both': lambda m, x: x.clamp(-0.5, 0.5), 'min': lambda m, x: x.clamp(min=0.), 'max': lambda m, x: x.clamp(max=0.),
    'clip': lambda m, x: ns(m).clip(x, -0.3, 1.), 'clamp_min': lambda m, x: x.clamp_min(0.2), 'clamp_max': lambda m, x: x.clamp_max(0.2),
    'inverted': lambda m, x: x.clamp(0.5, -0.5),
}

@pytest.mark.parametrize('name', list(CLAMPS))
def test_clamp(name):
    check_op(CLAMPS[name], [(4, 5)])
    check_gradcheck(CLAMPS[name], [(3, 3)], gradgrad=True)

@pytest.mark.parametrize('fn', [lambda m, x, lo, hi: x.clamp(lo, hi), lambda m, x, lo, hi: x.clamp(min=lo),
                                lambda m, x, lo, hi: x.clamp(max=hi), lambda m, x, lo, hi: ns(m).clamp(x, hi, lo)])
def test_clamp_tensor_bounds(fn):
    check_op(fn, [(3, 4), (4,), (3, 1)])
    check_gradcheck(fn, [(3, 4), (4,), (3, 1)])

def test_clamp_ties_and_names():
    v = [-1., 0., 0.5, 1., 2.]
    for lo, hi in [(0., 1.), (0., None), (None, 1.)]:
        tx, lx = torch.tensor(v, requires_grad=True), lt.tensor(v, requires_grad=True)
        tx.clamp(lo, hi).sum().backward(); lx.clamp(lo, hi).sum().backward()
        assert lx.grad.tolist() == tx.grad.tolist()
        assert lx.clamp(lo, hi).grad_fn.name() == tx.clamp(lo, hi).grad_fn.name()
    check_same_error(lambda m: m.tensor([1.]).clamp())

@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16'])
@pytest.mark.parametrize('fn', [lambda m, x: x.relu().sqrt(), lambda m, x: x.clamp(min=0.).sqrt(), lambda m, x: x.clamp(-1., 0.).neg().sqrt(),
                                lambda m, x: ns(m).max(x, 1).values.relu().sqrt(), lambda m, x: x[0, 0].relu().sqrt()],
                         ids=['relu', 'clamp_min', 'clamp_both', 'max_dim', 'relu_0d'])
@pytest.mark.parametrize('n', [4, 500])  # small gradients and large ones take different paths in ops._keep_where
def test_masked_gradient_is_zero_where_upstream_is_infinite(fn, dtype, n):
    "Where an op stops the gradient (relu at 0, clamp outside its bounds, max's losers), it is 0 even if the upstream one is inf: torch masks, it doesn't multiply."
    v = np.random.default_rng(0).standard_normal((2, n))
    v[:, ::3] = 0; v[1] = 0. - np.abs(v[1])  # zeros (+0: clamp and relu of -0 differ in sign from torch's) everywhere, and row 1's max is 0
    tx, lx = torch.tensor(v, dtype=getattr(torch, dtype), requires_grad=True), lt.tensor(v, dtype=getattr(lt, dtype), requires_grad=True)
    fn(torch, tx).sum().backward()
    with np.errstate(divide='ignore', invalid='ignore'): fn(lt, lx).sum().backward()
    assert not np.isnan(lx.grad.numpy()).any()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol={'float16': 1e-3, 'float32': 1e-6, 'float64': 1e-12}[dtype], atol=0)

def test_masked_gradient_double_backward():
    "The mask is linear in the gradient: second derivatives through relu and max(dim) still match torch."
    check_gradcheck(lambda m, x: (x.relu() * x).sum(0), [(3, 4)], gradgrad=True)
    check_gradcheck(lambda m, x: ns(m).max(x * x, 1).values, [(3, 4)], gradgrad=True)
    for f in (lambda m, x: (x.relu() ** 2).sum(), lambda m, x: (ns(m).max(x, 0).values ** 3).sum()):
        tx, lx = [lib.tensor(make_inputs([(3, 4)])[0], requires_grad=True) for lib in (torch, lt)]
        (tg,), (lg,) = torch.autograd.grad(f(torch, tx), tx, create_graph=True), lt.autograd.grad(f(lt, lx), lx, create_graph=True)
        (tg * tg).sum().backward(); (lg * lg).sum().backward()
        np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-5)

def test_maximum_ties():
    a, b = [1., 2., 3.], [2., 2., 2.]
    for f in ('maximum', 'minimum'):
        ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
        la, lb = lt.tensor(a, requires_grad=True), lt.tensor(b, requires_grad=True)
        getattr(torch, f)(ta, tb).sum().backward(); getattr(ops, f)(la, lb).sum().backward()
        assert (la.grad.tolist(), lb.grad.tolist()) == (ta.grad.tolist(), tb.grad.tolist())

@pytest.mark.parametrize('shapes', [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), (3, 1)), ((2, 1), (1, 3), ())])
def test_where(shapes):
    cond = np.random.default_rng(3).random(shapes[0]) > 0.5
    f = lambda m, x, y: ns(m).where(m.tensor(cond), x, y)
    check_op(f, shapes[1:])
    check_gradcheck(f, shapes[1:], gradgrad=True)
    check_op(lambda m, x: ns(m).where(m.tensor(cond), x, 0.), shapes[1:2])
    check_op(lambda m, x: ns(m).where(m.tensor(cond), 1., x), shapes[1:2])

def test_where_single_argument():
    c = np.array([[True, False], [False, True]])
    assert [t.tolist() for t in ops.where(lt.tensor(c))] == [t.tolist() for t in torch.where(torch.tensor(c))]

@pytest.mark.parametrize('mask_shape', [(3, 4), (4,), (3, 1)])
def test_masked_fill(mask_shape):
    mask = np.random.default_rng(4).random(mask_shape) > 0.5
    check_op(lambda m, x: x.masked_fill(m.tensor(mask), -1.5), [(3, 4)])
    check_op(lambda m, x, v: x.masked_fill(m.tensor(mask), v), [(3, 4), ()])
    check_gradcheck(lambda m, x, v: x.masked_fill(m.tensor(mask), v), [(3, 4), ()], gradgrad=True)
    assert lt.tensor([1, 2]).masked_fill(lt.tensor([True, False]), 2.7).tolist() == torch.tensor([1, 2]).masked_fill(torch.tensor([True, False]), 2.7).tolist()

# ---------------------------------------------------------------- reductions

REDUCTIONS = {
    'mean': lambda m, x: x.mean(), 'mean1': lambda m, x: x.mean(1), 'mean_neg_keep': lambda m, x: x.mean(-1, keepdim=True),
    'mean_dims': lambda m, x: x.mean((0, 2)), 'mean_dtype': lambda m, x: x.mean(dtype=m.float64),
    'var': lambda m, x: x.var(), 'var1': lambda m, x: x.var(1), 'var_biased': lambda m, x: x.var(1, unbiased=False),
    'var_corr': lambda m, x: x.var(dim=(0, 1), correction=2, keepdim=True), 'var_legacy': lambda m, x: x.var(False),
    'std': lambda m, x: x.std(), 'std_keep': lambda m, x: x.std(-1, keepdim=True), 'std_corr0': lambda m, x: ns(m).std(x, 0, correction=0),
    'prod': lambda m, x: x.prod(), 'prod1': lambda m, x: x.prod(1), 'prod_keep': lambda m, x: x.prod(-1, keepdim=True),
    'cumsum': lambda m, x: x.cumsum(1), 'cumsum_neg': lambda m, x: ns(m).cumsum(x, -1), 'cumsum_dtype': lambda m, x: x.cumsum(0, dtype=m.float64),
    'logsumexp': lambda m, x: x.logsumexp(1), 'logsumexp_keep': lambda m, x: ns(m).logsumexp(x, (0, 2), keepdim=True),
    'amax': lambda m, x: x.amax(), 'amax1': lambda m, x: x.amax(1), 'amin_keep': lambda m, x: x.amin((0, -1), keepdim=True),
    'max': lambda m, x: x.max(), 'min': lambda m, x: x.min(), 'max_dim': lambda m, x: x.max(1), 'min_dim_keep': lambda m, x: x.min(-1, keepdim=True),
    'max_fn': lambda m, x: ns(m).max(x, 0), 'max_values': lambda m, x: x.max(dim=2).values, 'sum_then_mean': lambda m, x: (x * 2).sum(0).mean(),
}

@pytest.mark.parametrize('name', list(REDUCTIONS))
def test_reduction(name):
    check_op(REDUCTIONS[name], [(2, 3, 4)])
    check_gradcheck(REDUCTIONS[name], [(2, 2, 3)], gradgrad=True)

def test_max_dim_return_type_and_indices():
    v = np.array([[1., 5., 5.], [3., 2., 0.]], np.float32)
    t, l = torch.tensor(v).max(1), lt.tensor(v).max(1)
    assert l.indices.tolist() == t.indices.tolist() and l.values.tolist() == t.values.tolist()
    assert repr(l).startswith('torch.return_types.max(') and l.indices.dtype == lt.int64
    for f in ('argmax', 'argmin'):
        for kw in [{}, {'dim': 1}, {'dim': 0, 'keepdim': True}, {'dim': -1}]:
            assert getattr(lt.tensor(v), f)(**kw).tolist() == getattr(torch.tensor(v), f)(**kw).tolist()

def test_max_ties_gradients():
    v = [[1., 5., 5.], [3., 3., 0.]]
    for f in [lambda x: x.max(1).values, lambda x: x.amax(1), lambda x: x.max(), lambda x: x.min(), lambda x: x.amin(0)]:
        tx, lx = torch.tensor(v, requires_grad=True), lt.tensor(v, requires_grad=True)
        f(tx).sum().backward(); f(lx).sum().backward()
        assert lx.grad.tolist() == tx.grad.tolist()

def test_prod_with_zeros():
    for v in ([[2., 0., 4.], [0., 5., 0.]], [[1., 2.], [3., 4.]], [[0., 1.], [2., 3.]]):
        for dim in (None, 0, 1):
            tx, lx = torch.tensor(v, requires_grad=True), lt.tensor(v, requires_grad=True)
            (tx.prod() if dim is None else tx.prod(dim)).sum().backward()
            (lx.prod() if dim is None else lx.prod(dim)).sum().backward()
            assert lx.grad.tolist() == tx.grad.tolist(), (v, dim)

def test_reduction_dtypes_and_errors():
    assert lt.tensor([1, 2]).prod().dtype == lt.int64 and lt.tensor([True]).cumsum(0).dtype == lt.int64
    assert lt.tensor([1, 2], dtype=lt.int32).cumsum(0).dtype == lt.int64
    check_same_error(lambda m: m.tensor([1, 2]).mean())
    check_same_error(lambda m: m.tensor([1, 2]).var())
    check_same_error(lambda m: m.tensor([1., 2]).mean(2))
    check_same_error(lambda m: m.ones(2, 3).prod(dim=(0, 1)))
    assert lt.tensor([1, 2]).mean(dtype=lt.float64).item() == 1.5

def test_var_single_element_and_logsumexp_inf():
    assert np.isnan(lt.tensor([1.]).var().item()) and np.isnan(torch.tensor([1.]).var().item())
    v = [[float('-inf')] * 3, [1., 2., float('inf')]]
    np.testing.assert_array_equal(lt.tensor(v).logsumexp(1).numpy(), torch.tensor(v).logsumexp(1).numpy())
    check_op(lambda m, x: x.logsumexp(0), arrays=[np.array([1000., 1000.5, -1000.], np.float32)])

def test_full_reductions_hold_arrays():
    "Reducing over every dim gives a 0-d array, as torch's .numpy() does, not the NumPy scalar NumPy's ufuncs return."
    x = lt.tensor(make_inputs([(3, 4)])[0])
    for f in (lambda m, x: m.tensor(2.) ** m.tensor(3.), lambda m, x: x.std(), lambda m, x: x.var(), lambda m, x: 2 ** x.sum(),
              lambda m, x: x.abs().sum() ** x.mean(), lambda m, x: x.std(correction=0), lambda m, x: x.prod(), lambda m, x: x.amax()):
        out, ref = f(lt, x), f(torch, torch.tensor(x.numpy()))
        assert type(out.numpy()) is np.ndarray and out.numpy().shape == () and out.numpy().flags.writeable
        np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5)

def test_all_any():
    v = [[1, 0, 2], [3, 4, 5]]
    for f in ('all', 'any'):
        for kw in [{}, {'dim': 1}, {'dim': 0, 'keepdim': True}]:
            assert getattr(lt.tensor(v), f)(**kw).tolist() == getattr(torch.tensor(v), f)(**kw).tolist()

# ---------------------------------------------------------------- softmax

SOFTMAX = {
    'softmax': lambda m, x: x.softmax(-1), 'softmax0': lambda m, x: m.softmax(x, 0) if m is torch else ops.softmax(x, 0),
    'log_softmax': lambda m, x: x.log_softmax(1), 'log_softmax_neg': lambda m, x: ns(m).log_softmax(x, -2),
    'softmax_dtype': lambda m, x: x.softmax(1, dtype=m.float64),
}

@pytest.mark.parametrize('name', list(SOFTMAX))
def test_softmax(name):
    check_op(SOFTMAX[name], [(2, 3, 4)])
    check_gradcheck(SOFTMAX[name], [(2, 3)], gradgrad=True)

def test_softmax_stable_and_errors():
    v = np.array([[1000., 1000., -1000.], [-np.inf, 0., 0.]], np.float32)
    np.testing.assert_allclose(lt.tensor(v).softmax(1).numpy(), torch.tensor(v).softmax(1).numpy())
    np.testing.assert_allclose(lt.tensor(v).log_softmax(1).numpy(), torch.tensor(v).log_softmax(1).numpy())
    check_same_error(lambda m: m.tensor([1, 2]).softmax(0))
    check_same_error(lambda m: m.ones(2, 3).softmax(2))

def _max_err(v, exact):
    "The largest difference from `exact`, where two infinities of one sign agree."
    with np.errstate(invalid='ignore'): return np.nan_to_num(np.abs(v - exact), posinf=0.).max()

@pytest.mark.parametrize('shape,dtype', [((96, 20000), 'float32'), ((4, 40, 9000), 'float32'), ((40, 17000), 'float64')])
def test_softmax_in_row_blocks(shape, dtype):
    "Inputs over 4 MB go a block of rows at a time: against torch, and bit for bit against the one-pass formula."
    rng = np.random.default_rng(0)
    a, g = (rng.standard_normal(shape).astype(dtype) * 4 for _ in range(2))
    a[1, ..., :] = -np.inf; a[1, ..., 0] = 0   # a row with a single finite logit
    assert ops._rows_at_once(a, a.ndim - 1) > 0
    shifted = a - a.max(-1, keepdims=True)
    with np.errstate(invalid='ignore'): plain = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    gT = np.ascontiguousarray(g.swapaxes(0, -1)).swapaxes(0, -1)  # a non-contiguous gradient takes the same path
    for fn, ref in ((lambda x: x.log_softmax(-1), plain), (lambda x: x.softmax(-1), np.exp(shifted) / np.exp(shifted).sum(-1, keepdims=True))):
        x, tx = lt.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        t64 = torch.tensor(a, dtype=torch.float64, requires_grad=True)
        y, ty, y64 = fn(x), fn(tx), fn(t64)
        y.backward(lt.tensor(gT)); ty.backward(torch.tensor(g)); y64.backward(torch.tensor(g, dtype=torch.float64))
        assert np.array_equal(y.detach().numpy(), ref)
        for ours, theirs, exact in ((y.detach(), ty.detach(), y64.detach()), (x.grad, tx.grad, t64.grad)):
            exact = exact.numpy()
            slack = 1e-12 * np.abs(exact[np.isfinite(exact)]).max()
            assert _max_err(ours.numpy(), exact) <= 2 * _max_err(theirs.numpy(), exact) + slack  # no worse than torch's own rounding

# ---------------------------------------------------------------- matrix products

MATMUL_SHAPES = [((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)),
                 ((5, 2, 3), (5, 3, 4)), ((2, 1, 2, 3), (3, 3, 2)), ((4, 2, 3), (3,)), ((3,), (2, 3, 4))]

@pytest.mark.parametrize('shapes', MATMUL_SHAPES)
def test_matmul(shapes):
    check_op(lambda m, a, b: a @ b, shapes, atol=1e-5)
    check_gradcheck(lambda m, a, b: ns(m).matmul(a, b), shapes, gradgrad=True)

def test_matmul_node_names_and_products():
    r = lambda *s: lt.randn(*s, requires_grad=True)
    assert (r(3) @ r(3)).grad_fn.name() == 'DotBackward0' and (r(2, 3) @ r(3)).grad_fn.name() == 'MvBackward0'
    assert (r(2, 3) @ r(3, 4)).grad_fn.name() == 'MmBackward0' and ops.bmm(r(2, 2, 3), r(2, 3, 4)).grad_fn.name() == 'BmmBackward0'
    check_op(lambda m, a, b: ns(m).mm(a, b), [(2, 3), (3, 4)])
    check_op(lambda m, a, b: ns(m).bmm(a, b), [(2, 2, 3), (2, 3, 4)])
    check_op(lambda m, a, b: ns(m).dot(a, b), [(3,), (3,)])
    check_op(lambda m, a, b: ns(m).mv(a, b), [(2, 3), (3,)])
    check_gradcheck(lambda m, a, b: ns(m).bmm(a, b), [(2, 2, 3), (2, 3, 2)], gradgrad=True)
    a = np.arange(6, dtype=np.int64).reshape(2, 3)
    assert (lt.tensor(a) @ lt.tensor(a.T)).tolist() == (torch.tensor(a) @ torch.tensor(a.T)).tolist()

@pytest.mark.parametrize('fn', [
    lambda m: m.ones(2, 3) @ m.ones(4, 5), lambda m: m.ones(3) @ m.ones(4), lambda m: m.ones(2, 3) @ m.ones(4),
    lambda m: m.ones(3) @ m.ones(4, 5), lambda m: m.ones(2, 2, 3) @ m.ones(4, 5), lambda m: m.ones(2, 2, 3) @ m.ones(3, 3, 5),
    lambda m: ns(m).mm(m.ones(2, 3), m.ones(4, 5)), lambda m: ns(m).mm(m.ones(3), m.ones(3, 5)),
    lambda m: ns(m).bmm(m.ones(2, 2, 3), m.ones(2, 4, 5)), lambda m: ns(m).bmm(m.ones(2, 3), m.ones(3, 5)),
    lambda m: m.ones(2, 3) @ m.ones(3, 5, dtype=m.float64), lambda m: m.ones(2, 3) @ m.ones(3, 5, device='cpu:1'),
    lambda m: m.ones(()) @ m.ones(3),
])
def test_matmul_errors(fn):
    if 'cpu:1' in str(fn.__code__.co_consts):
        with pytest.raises(RuntimeError, match='cpu:1'): fn(lt)
        return
    e = check_same_error(fn)
    torch_msg = None
    try: fn(torch)
    except Exception as t: torch_msg = str(t)
    if 'mat1 and mat2' in torch_msg or 'inconsistent' in torch_msg or 'size mismatch' in torch_msg: assert str(e) == torch_msg

EINSUMS = [('bhqd,bhkd->bhqk', [(2, 3, 4, 5), (2, 3, 6, 5)]), ('bhqk,bhkd->bhqd', [(2, 3, 4, 6), (2, 3, 6, 5)]),
           ('ij,jk->ik', [(3, 4), (4, 5)]), ('bij,bjk->bik', [(2, 3, 4), (2, 4, 5)]), ('...ij,...jk->...ik', [(2, 3, 4), (4, 5)]),
           ('...ij,...jk->...ik', [(2, 1, 3, 4), (3, 4, 2)]), ('ij,jk', [(3, 4), (4, 5)]), ('i,i->', [(4,), (4,)]),
           ('i,j->ij', [(3,), (4,)]), ('ij->ji', [(3, 4)]), ('ij->', [(3, 4)]), ('bij,bkj->bik', [(1, 3, 4), (3, 2, 4)]),
           ('ijk,k->i', [(2, 3, 4), (4,)]), ('ij,jk,kl->il', [(2, 3), (3, 4), (4, 2)]), ('i j , j k -> i k', [(2, 3), (3, 4)])]

@pytest.mark.parametrize('eq,shapes', EINSUMS)
def test_einsum(eq, shapes):
    f = lambda m, *xs: ns(m).einsum(eq, *xs)
    check_op(f, shapes, atol=1e-5)
    small = [tuple(min(n, 3) for n in s) for s in shapes]
    if eq.startswith('...ij,...jk->...ik') and shapes[0] == (2, 1, 3, 4): small = [(2, 1, 2, 3), (3, 3, 2)]
    check_gradcheck(f, small, gradgrad=len(shapes) <= 2)

def test_einsum_list_and_errors():
    a, b = make_inputs([(2, 3), (3, 4)])
    assert np.allclose(ops.einsum('ij,jk->ik', [lt.tensor(a), lt.tensor(b)]).numpy(), torch.einsum('ij,jk->ik', [torch.tensor(a), torch.tensor(b)]).numpy())
    check_same_error(lambda m: ns(m).einsum('ij,jk->ik', m.ones(2, 3), m.ones(4, 5)))
    check_same_error(lambda m: ns(m).einsum('ij,jk->ik', m.ones(2, 3)))
    check_same_error(lambda m: ns(m).einsum('ijk,jk->ik', m.ones(2, 3), m.ones(3, 4)))

# ---------------------------------------------------------------- conversions

def test_to_and_casts():
    check_op(lambda m, x: x.double() * 2, [(2, 3)])
    check_op(lambda m, x: x.to(m.float64).sum(), [(2, 3)])
    check_op(lambda m, x: x.half().float() * 3, [(2, 3)], atol=1e-2, rtol=1e-2)
    check_op(lambda m, x: x.to('cpu', m.float64, copy=True), [(2, 3)])
    check_op(lambda m, x, y: x.type_as(y), arrays=[np.ones(3, np.float32), np.ones(2, np.float64)])
    check_gradcheck(lambda m, x: (x * 1).to(m.float64) * x, [(2, 3)], gradgrad=True)
    x = lt.tensor([1.5, -2.5], requires_grad=True)
    for name in ('long', 'int', 'bool', 'short', 'byte', 'char'):
        tx = getattr(torch.tensor([1.5, -2.5], requires_grad=True), name)()
        lx = getattr(x, name)()
        assert repr(lx.dtype) == repr(tx.dtype) and lx.tolist() == tx.tolist() and lx.requires_grad == tx.requires_grad
    assert x.to('cpu') is x and x.to(lt.float32) is x and x.to(x) is x and x.float() is x and x.cpu() is x
    assert x.to('cpu', copy=True) is not x and x.clone() is not x

def test_to_device():
    x = lt.tensor([1., 2.], requires_grad=True)
    y = x.to('cpu:1')
    assert str(y.device) == 'cpu:1' and y.grad_fn.name() == 'ToCopyBackward0'
    z = y.to(lt.device('cpu', 2), lt.float64)
    (z * z).sum().backward()
    assert x.grad.device == x.device and x.grad.dtype == lt.float32 and x.grad.tolist() == [2., 4.]
    assert y.cpu().device == lt.device('cpu')
    with pytest.raises(RuntimeError, match='cpu:99'): x.to('cpu:99')
    if not lt.cuda.is_available():
        with pytest.raises(RuntimeError): x.cuda()
    with pytest.raises(RuntimeError, match='cpu:1'): x + y

def test_clone_contiguous_data_new():
    check_op(lambda m, x: x.clone() * 2, [(2, 3)])
    check_gradcheck(lambda m, x: x.clone() * x, [(2, 3)], gradgrad=True)
    x = lt.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    assert x.contiguous() is x and x.clone().grad_fn.name() == 'CloneBackward0'
    nc = x.detach()
    nc._data = x._data.T
    assert not nc.is_contiguous() and nc.contiguous().is_contiguous() and nc.contiguous().tolist() == [[1., 3.], [2., 4.]]
    d = x.data
    assert not d.requires_grad and d._data is x._data and d._version is not x._version
    x.data = lt.tensor([[5., 6.], [7., 8.]])
    assert x.tolist() == [[5., 6.], [7., 8.]] and x.requires_grad
    t, l = torch.tensor([1, 2]), lt.tensor([1, 2])
    for f in [lambda v: v.new_zeros(2, 3), lambda v: v.new_ones((2,)), lambda v: v.new_full((2,), 3.5), lambda v: v.new_tensor([1.5]),
              lambda v: v.new_empty(2).shape, lambda v: v.new_zeros(2, dtype=v.dtype)]:
        a, b = f(t), f(l)
        if hasattr(a, 'dtype'): assert repr(b.dtype) == repr(a.dtype) and b.tolist() == a.tolist()
        else: assert tuple(a) == tuple(b)

# ---------------------------------------------------------------- in-place

INPLACE = {
    'add_': lambda x, y: x.add_(y), 'add_alpha': lambda x, y: x.add_(y, alpha=-2), 'sub_': lambda x, y: x.sub_(y),
    'mul_': lambda x, y: x.mul_(y), 'div_': lambda x, y: x.div_(y), 'div_floor': lambda x, y: x.div_(y, rounding_mode='floor'),
    'clamp_': lambda x, y: x.clamp_(-0.5, 0.5), 'clamp_min_': lambda x, y: x.clamp_min_(0.), 'clamp_max_': lambda x, y: x.clamp_max_(0.),
    'iadd': lambda x, y: x.__iadd__(y), 'isub': lambda x, y: x.__isub__(y), 'imul': lambda x, y: x.__imul__(y), 'itruediv': lambda x, y: x.__itruediv__(y),
    'zero_': lambda x, y: x.zero_(), 'fill_': lambda x, y: x.fill_(1.5), 'copy_': lambda x, y: x.copy_(y),
    'masked_fill_': lambda x, y: x.masked_fill_(y > 0, 2.), 'add_scalar': lambda x, y: x.add_(3), 'mul_scalar': lambda x, y: x.mul_(0.5),
}

@pytest.mark.parametrize('name', list(INPLACE))
def test_inplace_no_grad(name):
    a, b = make_inputs([(3, 4), (4,)])
    ta, la = torch.tensor(a), lt.tensor(a)
    v0 = la._version[0]
    tr, lr = INPLACE[name](ta, torch.tensor(b)), INPLACE[name](la, lt.tensor(b))
    assert lr is la and la._version[0] == v0 + 1
    np.testing.assert_allclose(la.numpy(), ta.numpy(), rtol=1e-6)
    la, lw = lt.tensor(a), lt.tensor(a, requires_grad=True)
    with lt.no_grad(): INPLACE[name](lw, lt.tensor(b))
    assert lw.is_leaf and lw.requires_grad
    np.testing.assert_allclose(lw.detach().numpy(), ta.numpy(), rtol=1e-6)

@pytest.mark.parametrize('name', list(INPLACE))
def test_inplace_graph(name):
    "On a non-leaf: forward and gradients (to x and to the other operand) match torch."
    check_op(lambda m, x, y: INPLACE[name](x * 1, y) * x, [(3, 4), (4,)])
    check_op(lambda m, x, y: INPLACE[name](m.zeros(3, 4), y) * 1 + x, [(3, 4), (4,)])  # a fresh tensor, receiving the graph of y
    if name not in ('div_floor',):
        check_gradcheck(lambda m, x, y: INPLACE[name](x * 1, y) * x, [(2, 3), (3,)], gradgrad=name not in ('clamp_', 'clamp_min_', 'clamp_max_', 'masked_fill_'))

def test_inplace_node_names():
    x = torch.rand(2, requires_grad=True)
    l = lt.tensor(x.detach().numpy(), requires_grad=True)
    for name in ('add_', 'sub_', 'mul_', 'div_', 'zero_', 'fill_', 'copy_', 'clamp_'):
        t_node = type(INPLACE[name](x * 1, x * 2).grad_fn).__name__
        l_node = type(INPLACE[name](l * 1, l * 2).grad_fn).__name__
        assert l_node == t_node, (name, l_node, t_node)

def test_inplace_errors():
    check_same_error(lambda m: m.ones(2, requires_grad=True).add_(1))
    check_same_error(lambda m: m.ones(2, requires_grad=True).mul_(2))
    check_same_error(lambda m: m.ones(2, dtype=m.int64).add_(1.5))
    check_same_error(lambda m: m.ones(2, dtype=m.int64).div_(2))
    check_same_error(lambda m: m.ones(2, dtype=m.bool).add_(1))
    check_same_error(lambda m: m.ones(2).add_(m.ones(3, 2)))
    check_same_error(lambda m: m.ones(2).copy_(m.ones(3)))
    e = check_same_error(lambda m: m.ones(2, dtype=m.int64).add_(1.5))
    assert str(e) == "result type Float can't be cast to the desired output type Long"
    check_same_error(lambda m: m.ones(2, 3, requires_grad=True).t().mul_(2))
    check_same_error(lambda m: m.ones(2, 3, requires_grad=True)[0].add_(1))
    import operator
    with pytest.raises(RuntimeError, match='a leaf Variable that requires grad'): operator.iadd(lt.ones(2, requires_grad=True), 1)

def _version_error(m):
    x = m.tensor([0.5, -1.0, 2.0], requires_grad=True)
    a = x * 1
    b = a.sigmoid()
    b.mul_(2)
    b.sum().backward()

def _version_error_saved_input(m):
    x = m.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = x * 1
    z = y * y
    y.add_(1)
    z.sum().backward()

@pytest.mark.parametrize('fn', [_version_error, _version_error_saved_input])
def test_version_counter_error(fn):
    e = check_same_error(fn)
    assert 'modified by an inplace operation' in str(e)

def test_inplace_not_saved_is_fine():
    for m in (torch, lt):
        x = m.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = x * 2  # MulBackward0 saves x and the number, not y
        z = y + 2  # AddBackward0 saves nothing
        y.add_(1)
        (z * 1).sum().backward()
        assert x.grad is not None

def test_copy_cross_dtype_and_device():
    s = lt.tensor([1.5, 2.5], dtype=lt.float64, requires_grad=True)
    t = lt.zeros(3, 2, device='cpu:1').copy_(s)
    assert t.device == lt.device('cpu:1') and t.dtype == lt.float32 and t.grad_fn.name() == 'CopyBackwards'
    (t * 2).sum().backward()
    assert s.grad.dtype == lt.float64 and s.grad.tolist() == [6., 6.]
    assert lt.zeros(2, dtype=lt.int64).copy_(lt.tensor([1.7, -2.7])).tolist() == torch.zeros(2, dtype=torch.int64).copy_(torch.tensor([1.7, -2.7])).tolist()

def test_inplace_on_full_reduction_result():
    x = lt.ones(2, 3)
    s = x.sum()
    s.add_(1)
    assert s.item() == 7.

def test_fill_with_tensor_value_grad():
    check_op(lambda m, x, v: (x * 1).fill_(v) * x, [(2, 3), ()])

def test_device_mismatch_errors():
    a, b = lt.ones(2), lt.ones(2, device='cpu:1')
    for f in [lambda: a - b, lambda: a / b, lambda: ops.maximum(a, b), lambda: a < b, lambda: ops.where(a > 0, a, b), lambda: a ** b]:
        with pytest.raises(RuntimeError, match='cpu:1'): f()

@pytest.mark.parametrize('fn', [lambda m: m.ones(2, 3) - m.ones(3, 2), lambda m: m.ones(2, 3) / m.ones(4),
                                lambda m: ns(m).maximum(m.ones(2), m.ones(3)), lambda m: m.ones(2) < m.ones(3),
                                lambda m: m.tensor([True]) - m.tensor([True]), lambda m: m.tensor([2]) ** -1,
                                lambda m: ns(m).div(m.tensor([1]), 0, rounding_mode='floor'),
                                lambda m: ns(m).where(m.ones(2), 1., 0.), lambda m: m.ones(2).masked_fill(m.tensor([1, 0]), 0.),
                                lambda m: m.ones(2) & m.ones(2), lambda m: ~m.ones(2), lambda m: m.tensor([True]).abs()])
def test_errors(fn):
    check_same_error(fn)

def test_floor_divide_not_differentiable():
    e = check_same_error(lambda m: (m.ones(2, requires_grad=True) // 1).sum().backward())
    assert 'floor_divide' in str(e)

def test_node_names():
    import importlib
    cases = {
        'sub': lambda m, x, y: x - y, 'rsub': lambda m, x, y: 2 - x, 'div': lambda m, x, y: x / y,
        'divmode': lambda m, x, y: ns(m).div(x, y, rounding_mode='floor'), 'rem': lambda m, x, y: x % y, 'rem_s': lambda m, x, y: x % 2,
        'pow': lambda m, x, y: x ** y, 'pow_s': lambda m, x, y: x ** 2, 'rpow': lambda m, x, y: 2 ** x, 'abs': lambda m, x, y: x.abs(),
        'sign': lambda m, x, y: x.sign(), 'exp': lambda m, x, y: x.exp(), 'expm1': lambda m, x, y: x.expm1(), 'log': lambda m, x, y: x.log(),
        'log1p': lambda m, x, y: x.log1p(), 'sqrt': lambda m, x, y: x.sqrt(), 'rsqrt': lambda m, x, y: x.rsqrt(), 'sin': lambda m, x, y: x.sin(),
        'cos': lambda m, x, y: x.cos(), 'tanh': lambda m, x, y: x.tanh(), 'sigmoid': lambda m, x, y: x.sigmoid(), 'relu': lambda m, x, y: x.relu(),
        'clamp': lambda m, x, y: x.clamp(0.1, 0.5), 'clampT': lambda m, x, y: x.clamp(y), 'maximum': lambda m, x, y: ns(m).maximum(x, y),
        'minimum': lambda m, x, y: ns(m).minimum(x, y), 'where': lambda m, x, y: ns(m).where(x > y, x, y),
        'masked_fill': lambda m, x, y: x.masked_fill(x > 0.5, 0.), 'mean': lambda m, x, y: x.mean(), 'mean_d': lambda m, x, y: x.mean(0),
        'var': lambda m, x, y: x.var(), 'std': lambda m, x, y: x.std(0), 'prod': lambda m, x, y: x.prod(), 'prod_d': lambda m, x, y: x.prod(0),
        'cumsum': lambda m, x, y: x.cumsum(0), 'lse': lambda m, x, y: x.logsumexp(0), 'amax': lambda m, x, y: x.amax(), 'amin': lambda m, x, y: x.amin(),
        'max': lambda m, x, y: x.max(), 'max_d': lambda m, x, y: x.max(0)[0], 'min': lambda m, x, y: x.min(), 'min_d': lambda m, x, y: x.min(0)[0],
        'softmax': lambda m, x, y: x.softmax(0), 'log_softmax': lambda m, x, y: x.log_softmax(0), 'mv': lambda m, x, y: x @ y,
        'to': lambda m, x, y: x.float(), 'clone': lambda m, x, y: x.clone(),
    }
    x, y = np.random.default_rng(0).random((3, 3)) + 0.5, np.random.default_rng(1).random(3) + 0.5
    for name, f in cases.items():
        t = f(torch, torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)).grad_fn.name()
        l = f(lt, lt.tensor(x, requires_grad=True), lt.tensor(y, requires_grad=True)).grad_fn.name()
        assert l == t, (name, l, t)


def test_bfloat16_reductions_add_in_float32():
    "NumPy adds ml_dtypes' bfloat16 in bfloat16 (1,000 ones: 256); torch adds in float32, and so must sum, mean and softmax."
    a = np.random.default_rng(0).random((3, 1000)).astype(np.float32)
    for f in (lambda t: t.sum(), lambda t: t.sum(1), lambda t: t.mean(-1), lambda t: t.softmax(-1), lambda t: t.log_softmax(1)):
        ours = f(lt.tensor(a).to(lt.bfloat16)).float().numpy()
        theirs = f(torch.tensor(a).to(torch.bfloat16)).float().numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-2, atol=1e-5)
