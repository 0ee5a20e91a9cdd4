"Differential tests of lit_torch.nn.functional against torch.nn.functional: values, gradients, gradcheck, options, errors."
import math, warnings
import numpy as np
import pytest
import torch
import torch.nn.functional as TF
import lit_torch as lt
import lit_torch.nn.functional as LF
from op_helpers import check_op, check_gradcheck, check_same_error, make_inputs

def F(lib): return TF if lib is torch else LF

def ints(*shape, high, low=0, seed=0):
    return np.random.default_rng(seed).integers(low, high, shape).astype(np.int64)

# ---------------------------------------------------------------- linear, activations

@pytest.mark.parametrize('xshape', [(4, 3), (2, 5, 3), (3,)])
@pytest.mark.parametrize('bias', [True, False])
def test_linear(xshape, bias):
    shapes = [xshape, (6, 3)] + ([(6,)] if bias else [])
    check_op(lambda m, x, w, *b: F(m).linear(x, w, *b), shapes)

def test_linear_gradcheck():
    check_gradcheck(lambda m, x, w, b: F(m).linear(x, w, b), [(2, 3, 4), (2, 4), (2,)], gradgrad=True)

ACTS = {
    'relu': lambda m, x: F(m).relu(x),
    'gelu': lambda m, x: F(m).gelu(x),
    'gelu_tanh': lambda m, x: F(m).gelu(x, approximate='tanh'),
    'silu': lambda m, x: F(m).silu(x),
    'tanh': lambda m, x: F(m).tanh(x),
    'sigmoid': lambda m, x: F(m).sigmoid(x),
    'softmax0': lambda m, x: F(m).softmax(x, 0),
    'softmax-1': lambda m, x: F(m).softmax(x, dim=-1),
    'log_softmax': lambda m, x: F(m).log_softmax(x, 1),
    'softmax_dtype': lambda m, x: F(m).softmax(x, 1, dtype=m.float64),
}

@pytest.mark.parametrize('name', list(ACTS))
def test_activation(name):
    check_op(ACTS[name], [(4, 5)])
    check_op(ACTS[name], arrays=[np.linspace(-8, 8, 40, dtype=np.float32).reshape(5, 8) + 1e-3])

@pytest.mark.parametrize('name', [n for n in ACTS if n != 'relu'])
def test_activation_gradcheck(name):
    check_gradcheck(ACTS[name], [(2, 3)], gradgrad=True)

def test_gelu_float32_by_blocks():
    "GELU on more than one 64 K block (the direct Φ route): values and gradients as torch's, specials as the erf route."
    x = np.random.default_rng(3).standard_normal((300, 513)).astype(np.float32) * 3
    check_op(lambda m, x: F(m).gelu(x), arrays=[x])
    exact = TF.gelu(torch.tensor(x, dtype=torch.float64)).numpy()
    assert np.abs(LF.gelu(lt.tensor(x)).numpy() - exact).max() < 5e-7  # torch's float32 GELU is off by 1.1e-6 here
    specials = np.array([0., -0., np.inf, -np.inf, np.nan, -12., 12.], np.float32)
    big = np.concatenate([x.reshape(-1), specials])
    l = LF.gelu(lt.tensor(big)).numpy()[-7:]
    old = LF.gelu(lt.tensor(specials.astype(np.float64))).numpy()  # float64 goes through _erf
    np.testing.assert_array_equal(l, old.astype(np.float32))

def test_gelu_float64_precise():
    x = np.linspace(-9, 9, 1001)
    np.testing.assert_allclose(LF.gelu(lt.tensor(x)).numpy(), TF.gelu(torch.tensor(x)).numpy(), rtol=1e-14, atol=1e-15)

def test_inplace_activations():
    for m in (torch, lt):
        x = m.tensor([-1., 2., -3.])
        assert F(m).relu(x, inplace=True) is x and x.tolist() == [0., 2., 0.]
    check_op(lambda m, x: F(m).relu(x * 1, inplace=True), [(3, 4)])
    check_op(lambda m, x: F(m).silu(x * 1, inplace=True), [(3, 4)])
    check_op(lambda m, x: F(m).relu_(x * 1), [(3, 4)])

def test_softmax_implicit_dim():
    for shape in [(4,), (2, 3), (2, 3, 4), (2, 3, 4, 5)]:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            check_op(lambda m, x: F(m).softmax(x), [shape])
            check_op(lambda m, x: F(m).log_softmax(x), [shape])

def test_activation_errors():
    check_same_error(lambda m: F(m).gelu(m.randn(3), approximate='exact'))
    check_same_error(lambda m: F(m).softmax(m.tensor([1, 2]), 0))

# ---------------------------------------------------------------- dropout

def test_dropout_statistics_and_gradient():
    lt.manual_seed(0)
    x = lt.randn(200, 100, requires_grad=True)
    y = LF.dropout(x, 0.3)
    kept = y.detach().numpy() != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(y.detach().numpy()[kept], x.detach().numpy()[kept] / 0.7, rtol=1e-6)
    g = lt.randn(200, 100)
    y.backward(g)
    np.testing.assert_allclose(x.grad.numpy(), np.where(kept, g.numpy() / 0.7, 0), rtol=1e-6)

def test_dropout_reproducible_and_modes():
    x = lt.randn(50)
    lt.manual_seed(3); a = LF.dropout(x)
    lt.manual_seed(3); b = LF.dropout(x)
    assert a.tolist() == b.tolist()
    assert LF.dropout(x, training=False) is x and LF.dropout(x, 0.0) is x
    assert not LF.dropout(x, 1.0).numpy().any()
    y = x.clone()
    assert LF.dropout(y, 0.5, inplace=True) is y
    assert ((y.numpy() == 0) | np.isclose(y.numpy(), 2 * x.numpy())).all()

def test_dropout_errors():
    check_same_error(lambda m: F(m).dropout(m.randn(3), 1.5))
    check_same_error(lambda m: F(m).dropout(m.randn(3), -0.1))

def test_dropout_gradcheck():
    def f(m, x):
        m.manual_seed(1)
        return F(m).dropout(x, 0.4)
    check_gradcheck(f, [(3, 4)], gradgrad=True)

# ---------------------------------------------------------------- layer norm

@pytest.mark.parametrize('shape,ns', [((4, 6), (6,)), ((2, 3, 4, 5), (4, 5)), ((3, 5), [5]), ((7,), (7,))])
@pytest.mark.parametrize('affine', ['both', 'weight', 'none'])
def test_layer_norm(shape, ns, affine):
    nsh = tuple(ns)
    shapes = [shape] + [nsh] * {'both': 2, 'weight': 1, 'none': 0}[affine]
    check_op(lambda m, x, *wb: F(m).layer_norm(x, ns, *wb, eps=1e-3), shapes)

def test_layer_norm_bias_only():
    check_op(lambda m, x, b: F(m).layer_norm(x, (5,), None, b), [(3, 5), (5,)])

def test_layer_norm_gradcheck():
    check_gradcheck(lambda m, x, w, b: F(m).layer_norm(x, (2, 3), w, b), [(2, 2, 3), (2, 3), (2, 3)], gradgrad=True)
    check_gradcheck(lambda m, x: F(m).layer_norm(x, (4,)), [(3, 4)], gradgrad=True)

def test_layer_norm_errors():
    check_same_error(lambda m: F(m).layer_norm(m.randn(3, 4), (5,)))
    check_same_error(lambda m: F(m).layer_norm(m.randn(3, 4), 4))
    check_same_error(lambda m: F(m).layer_norm(m.randn(3, 4), (4,), m.ones(5)))
    check_same_error(lambda m: F(m).layer_norm(m.randn(3, 4), (4,), None, m.ones(3)))

# ---------------------------------------------------------------- embedding

@pytest.mark.parametrize('kw', [{}, {'padding_idx': 2}, {'padding_idx': -1}, {'scale_grad_by_freq': True},
                                {'padding_idx': 0, 'scale_grad_by_freq': True}])
def test_embedding(kw):
    idx = np.array([[0, 2, 2, 5], [6, 0, 1, 2]], dtype=np.int64)
    check_op(lambda m, i, w: F(m).embedding(i, w, **kw), arrays=[idx, make_inputs([(7, 3)])[0]])

def test_embedding_int32_and_1d():
    check_op(lambda m, i, w: F(m).embedding(i, w), arrays=[np.array([3, 1, 3], dtype=np.int32), make_inputs([(4, 5)])[0]])

def test_embedding_max_norm():
    w = make_inputs([(6, 4)])[0] * 3
    idx = np.array([0, 1, 1, 4], dtype=np.int64)
    tw, lw = torch.tensor(w), lt.tensor(w)
    to = TF.embedding(torch.tensor(idx), tw, max_norm=1.5)
    lo = LF.embedding(lt.tensor(idx), lw, max_norm=1.5)
    np.testing.assert_allclose(lo.numpy(), to.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(lw.numpy(), tw.numpy(), rtol=1e-5, atol=1e-6)  # renormalized in place

def test_embedding_gradcheck():
    idx = np.array([[0, 2, 2], [3, 0, 1]], dtype=np.int64)
    w = make_inputs([(4, 3)], dtype=np.float64)[0]
    check_gradcheck(lambda m, i, w: F(m).embedding(i, w), arrays=[idx, w], gradgrad=True)

def test_embedding_double_backward_vs_torch():
    "padding_idx changes the gradient away from the true derivative, so compare with torch."
    idx = np.array([[0, 2, 2], [3, 0, 1]], dtype=np.int64)
    w0, v0 = make_inputs([(4, 3), (2, 3, 3)])
    res = {}
    for m in (torch, lt):
        w, v = m.tensor(w0, requires_grad=True), m.tensor(v0, requires_grad=True)
        out = F(m).embedding(m.tensor(idx), w, padding_idx=1)
        gw, = m.autograd.grad((out * v).sum(), w, create_graph=True)
        (gw * gw).sum().backward()
        res[m] = v.grad.numpy()
    np.testing.assert_allclose(res[lt], res[torch], rtol=1e-5, atol=1e-6)

def test_embedding_scaled_grad_is_differentiable():
    "With scale_grad_by_freq the weight gradient is a linear map of the output gradient; check its own derivative."
    idx = lt.tensor([[0, 2, 2], [3, 0, 1]])
    w = lt.tensor(make_inputs([(4, 3)], dtype=np.float64)[0], requires_grad=True)
    def gw(v):
        out = LF.embedding(idx, w, padding_idx=3, scale_grad_by_freq=True)
        return lt.autograd.grad((out * v).sum(), w, create_graph=True)[0]
    assert lt.autograd.gradcheck(gw, (lt.tensor(make_inputs([(2, 3, 3)], dtype=np.float64)[0], requires_grad=True),))

def test_embedding_errors():
    check_same_error(lambda m: F(m).embedding(m.tensor([5]), m.randn(4, 3)))
    check_same_error(lambda m: F(m).embedding(m.tensor([1.]), m.randn(4, 3)))
    check_same_error(lambda m: F(m).embedding(m.tensor([1]), m.randn(4, 3), padding_idx=5))

# ---------------------------------------------------------------- convolution

CONV2D = [
    dict(),
    dict(stride=2),
    dict(stride=(2, 1), padding=(1, 2)),
    dict(padding=1, dilation=2),
    dict(padding='same'),
    dict(padding='same', dilation=(1, 2)),
    dict(padding='valid'),
    dict(groups=2, padding=1),
    dict(groups=4, stride=2, padding=1),
]

@pytest.mark.parametrize('kw', CONV2D, ids=str)
@pytest.mark.parametrize('bias', [True, False])
def test_conv2d(kw, bias):
    g = kw.get('groups', 1)
    shapes = [(2, 4, 7, 8), (6 if g != 4 else 8, 4 // g, 3, 3)] + ([(6 if g != 4 else 8,)] if bias else [])
    check_op(lambda m, x, w, *b: F(m).conv2d(x, w, *b, **kw), shapes, atol=1e-4, grad_atol=1e-3)

@pytest.mark.parametrize('ksize', [(2, 2), (2, 3), (4, 1)])
def test_conv2d_same_even_kernel(ksize):
    check_op(lambda m, x, w, b: F(m).conv2d(x, w, b, padding='same'), [(2, 3, 6, 5), (4, 3) + ksize, (4,)], atol=1e-4, grad_atol=1e-3)

def test_conv2d_unbatched_and_1x1():
    check_op(lambda m, x, w: F(m).conv2d(x, w), [(3, 5, 5), (4, 3, 3, 3)], atol=1e-4, grad_atol=1e-3)
    check_op(lambda m, x, w, b: F(m).conv2d(x, w, b), [(2, 3, 5, 5), (4, 3, 1, 1), (4,)], atol=1e-4, grad_atol=1e-3)

def test_conv2d_realistic():
    check_op(lambda m, x, w, b: F(m).conv2d(x, w, b, padding=1), [(8, 3, 32, 32), (16, 3, 3, 3), (16,)], atol=1e-4, grad_atol=2e-3)

CONV1D = [dict(), dict(stride=2, padding=1), dict(dilation=2, padding='same'), dict(groups=2), dict(padding='same')]

@pytest.mark.parametrize('kw', CONV1D, ids=str)
def test_conv1d(kw):
    g = kw.get('groups', 1)
    check_op(lambda m, x, w, b: F(m).conv1d(x, w, b, **kw), [(3, 4, 9), (6, 4 // g, 4), (6,)], atol=1e-4, grad_atol=1e-3)
    check_op(lambda m, x, w: F(m).conv1d(x, w, **kw), [(4, 9), (6, 4 // g, 3)], atol=1e-4, grad_atol=1e-3)

def test_conv3d():
    check_op(lambda m, x, w, b: F(m).conv3d(x, w, b, stride=(1, 2, 1), padding=1), [(2, 2, 4, 5, 4), (3, 2, 2, 3, 2), (3,)],
             atol=1e-4, grad_atol=1e-3)

@pytest.mark.parametrize('kw', [dict(stride=2, padding=1, groups=2), dict(padding='same', dilation=2)], ids=str)
def test_conv_gradcheck(kw):
    check_gradcheck(lambda m, x, w, b: F(m).conv2d(x, w, b, **kw), [(1, 2, 5, 4), (2, 2 // kw.get('groups', 1), 3, 2), (2,)],
                    gradgrad=True)
    check_gradcheck(lambda m, x, w: F(m).conv1d(x, w, **kw), [(2, 2, 6), (2, 2 // kw.get('groups', 1), 3)], gradgrad=True)

def test_conv_double_backward_vs_torch():
    "A gradient penalty: d/dw of |d loss/dx|², against torch."
    x0, w0 = make_inputs([(2, 3, 6, 6), (4, 3, 3, 3)])
    out = {}
    for m in (torch, lt):
        x, w = m.tensor(x0, requires_grad=True), m.tensor(w0, requires_grad=True)
        y = F(m).conv2d(x, w, stride=2, padding=1)
        gx, = m.autograd.grad((y * y).sum(), x, create_graph=True)
        (gx * gx).sum().backward()
        out[m] = w.grad.numpy() if m is lt else w.grad.detach().numpy()
    np.testing.assert_allclose(out[lt], out[torch], rtol=1e-3, atol=1e-2)

def test_conv_errors():
    check_same_error(lambda m: F(m).conv2d(m.randn(2, 4, 8, 8), m.randn(32, 3, 3, 3)))
    e = check_same_error(lambda m: F(m).conv2d(m.randn(2, 4, 8, 8), m.randn(32, 3, 3, 3)))
    assert str(e) == "Given groups=1, weight of size [32, 3, 3, 3], expected input[2, 4, 8, 8] to have 3 channels, but got 4 channels instead"
    check_same_error(lambda m: F(m).conv2d(m.randn(2, 4, 8, 8), m.randn(3, 2, 3, 3), groups=2))
    check_same_error(lambda m: F(m).conv2d(m.randn(2, 5, 8, 8), m.randn(4, 2, 3, 3), groups=2))
    check_same_error(lambda m: F(m).conv2d(m.randn(2, 3, 2, 2), m.randn(4, 3, 3, 3)))
    check_same_error(lambda m: F(m).conv2d(m.randn(2, 3), m.randn(4, 3, 3, 3)))
    check_same_error(lambda m: F(m).conv1d(m.randn(2, 3, 4, 4), m.randn(2, 3, 3)))
    check_same_error(lambda m: F(m).conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3, 3), stride=2, padding='same'))
    check_same_error(lambda m: F(m).conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3, 3), padding='full'))
    check_same_error(lambda m: F(m).conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3, 3), padding=-1))
    check_same_error(lambda m: F(m).conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3, 3), stride=0))
    check_same_error(lambda m: F(m).conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3, 3), m.randn(5)))
    check_same_error(lambda m: F(m).conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3)))
    check_same_error(lambda m: F(m).conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3, 3, dtype=m.float64)))

# ---------------------------------------------------------------- pooling

MAXPOOL = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=(2, 3), stride=(1, 2)),
           dict(kernel_size=3, stride=2, ceil_mode=True), dict(kernel_size=2, dilation=2), dict(kernel_size=3, stride=1, padding=1),
           dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, dilation=1)]

@pytest.mark.parametrize('kw', MAXPOOL, ids=str)
def test_max_pool2d(kw):
    check_op(lambda m, x: F(m).max_pool2d(x, **kw), [(2, 3, 7, 8)])
    check_op(lambda m, x: F(m).max_pool2d(x, **kw), [(3, 6, 7)])
    check_op(lambda m, x: F(m).max_pool2d(x, return_indices=True, **kw), [(2, 3, 7, 8)])

def test_max_pool_ties_and_nan():
    a = np.array([[[[1., 1., 0.], [1., 1., 0.], [0., 0., 0.]]]], dtype=np.float32)
    check_op(lambda m, x: F(m).max_pool2d(x, 2, 1, return_indices=True), arrays=[a])
    b = a.copy(); b[0, 0, 1, 1] = np.nan
    for m in (torch, lt):
        assert np.isnan(F(m).max_pool2d(m.tensor(b), 2).numpy()).all()

@pytest.mark.parametrize('kw', MAXPOOL, ids=str)
def test_max_pool2d_ties_nan_and_nonfinite_grads(kw):
    """Integer-valued inputs (many ties), NaNs, and an output gradient with inf and NaN: values and indices bit for bit
    as torch's, the input gradient to an ulp (a non-finite gradient must reach only its winner, never the window's losers)."""
    rng = np.random.default_rng(7)
    a = rng.integers(-1, 2, (2, 3, 7, 8)).astype(np.float32)
    a[rng.random(a.shape) < 0.1] = np.nan
    res = {}
    for m in (torch, lt):
        x = m.tensor(a, requires_grad=True)
        y, i = F(m).max_pool2d(x, return_indices=True, **kw)
        g = np.random.default_rng(8).standard_normal(tuple(y.shape)).astype(np.float32)
        g.reshape(-1)[::5], g.reshape(-1)[1::7] = np.inf, np.nan
        y.backward(m.tensor(g))
        res[m] = [y.detach().numpy(), i.numpy(), x.grad.numpy()]
    for ours, theirs in zip(res[lt][:2], res[torch][:2]): np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_allclose(res[lt][2], res[torch][2], rtol=1e-6, atol=1e-6)  # overlapping windows add in another order

@pytest.mark.parametrize('kw', [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)], ids=str)
def test_max_pool1d(kw):
    check_op(lambda m, x: F(m).max_pool1d(x, **kw), [(2, 3, 9)])

AVGPOOL = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
           dict(kernel_size=(2, 3), stride=(1, 2), padding=(1, 1)), dict(kernel_size=3, stride=2, ceil_mode=True),
           dict(kernel_size=3, stride=2, padding=1, ceil_mode=True), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
           dict(kernel_size=2, divisor_override=3)]

@pytest.mark.parametrize('kw', AVGPOOL, ids=str)
def test_avg_pool2d(kw):
    check_op(lambda m, x: F(m).avg_pool2d(x, **kw), [(2, 3, 7, 8)])
    check_op(lambda m, x: F(m).avg_pool2d(x, **kw), [(3, 6, 7)])

def test_avg_pool1d():
    check_op(lambda m, x: F(m).avg_pool1d(x, 3, 2, 1, count_include_pad=False), [(2, 3, 9)])

@pytest.mark.parametrize('size', [1, 2, (3, 2), (5, 7), (None, 3), (4, None), (8, 8)], ids=str)
def test_adaptive_avg_pool2d(size):
    check_op(lambda m, x: F(m).adaptive_avg_pool2d(x, size), [(2, 3, 8, 6)])
    check_op(lambda m, x: F(m).adaptive_avg_pool2d(x, size), [(3, 7, 5)])

def test_adaptive_avg_pool1d():
    check_op(lambda m, x: F(m).adaptive_avg_pool1d(x, 4), [(2, 3, 7)])

@pytest.mark.parametrize('name', ['max', 'max_ceil', 'avg', 'avg_nopad', 'adaptive'])
def test_pool_gradcheck(name):
    fn = {'max': lambda m, x: F(m).max_pool2d(x, 2, 1),
          'max_ceil': lambda m, x: F(m).max_pool2d(x, 3, 2, 1, ceil_mode=True),
          'avg': lambda m, x: F(m).avg_pool2d(x, 3, 2, 1),
          'avg_nopad': lambda m, x: F(m).avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
          'adaptive': lambda m, x: F(m).adaptive_avg_pool2d(x, (2, 3))}[name]
    check_gradcheck(fn, [(1, 2, 5, 4)], gradgrad=True)

def test_pool_errors():
    check_same_error(lambda m: F(m).max_pool2d(m.randn(2, 4, 8, 8), 3, padding=2))
    check_same_error(lambda m: F(m).max_pool2d(m.randn(1, 1, 2, 2), 3))
    check_same_error(lambda m: F(m).max_pool2d(m.randn(2, 2), 3))
    check_same_error(lambda m: F(m).avg_pool2d(m.randn(2, 4, 8, 8), 3, padding=2))
    check_same_error(lambda m: F(m).adaptive_avg_pool2d(m.randn(2, 4, 8, 8), (3,)))
    check_same_error(lambda m: F(m).adaptive_avg_pool2d(m.randn(2, 2), 3))

# ---------------------------------------------------------------- losses

CE = [dict(), dict(reduction='sum'), dict(reduction='none'), dict(ignore_index=1), dict(label_smoothing=0.2),
      dict(weight=True), dict(weight=True, ignore_index=2, label_smoothing=0.1), dict(weight=True, reduction='none', label_smoothing=0.3),
      dict(weight=True, reduction='sum', ignore_index=0)]

def _ce(kw, fn='cross_entropy'):
    kw = dict(kw)
    use_w = kw.pop('weight', False)
    if use_w: return lambda m, x, t, w: getattr(F(m), fn)(x, t, weight=w, **kw)
    return lambda m, x, t: getattr(F(m), fn)(x, t, **kw)

@pytest.mark.parametrize('kw', CE, ids=str)
@pytest.mark.parametrize('shape', [(6, 4), (3, 4, 5), (2, 4, 3, 2)], ids=str)
def test_cross_entropy(kw, shape):
    x = make_inputs([shape])[0]
    t = ints(*((shape[0],) + shape[2:]), high=shape[1])
    arrays = [x, t] + ([np.random.default_rng(2).uniform(0.5, 2, shape[1]).astype(np.float32)] if kw.get('weight') else [])
    rg = [True, False, False][:len(arrays)]
    check_op(_ce(kw), arrays=arrays, requires_grad=rg)
    if not kw.get('label_smoothing'):
        check_op(_ce(kw, 'nll_loss'), arrays=arrays, requires_grad=rg)

def test_cross_entropy_ignored_target_values():
    t = np.array([0, -100, 3, -100], dtype=np.int64)
    x = make_inputs([(4, 4)])[0]
    check_op(lambda m, x, t: F(m).cross_entropy(x, t), arrays=[x, t])
    check_op(lambda m, x, t: F(m).cross_entropy(x, t, label_smoothing=0.1, reduction='none'), arrays=[x, t])
    check_op(lambda m, x, t: F(m).nll_loss(x, t, ignore_index=3), arrays=[x, np.array([0, 1, 3, 2])])

def test_cross_entropy_all_ignored_is_nan():
    for m in (torch, lt):
        assert math.isnan(F(m).cross_entropy(m.randn(2, 3), m.tensor([-100, -100])).item())

def test_cross_entropy_unbatched():
    x = make_inputs([(5,)])[0]
    for red in ('mean', 'none', 'sum'):
        check_op(lambda m, x, t: F(m).cross_entropy(x, t, reduction=red), arrays=[x, np.array(3, dtype=np.int64)])
        check_op(lambda m, x, t: F(m).nll_loss(x, t, reduction=red), arrays=[x, np.array(3, dtype=np.int64)])

@pytest.mark.parametrize('kw', [dict(), dict(reduction='sum'), dict(reduction='none'), dict(label_smoothing=0.2),
                                dict(weight=True), dict(weight=True, label_smoothing=0.1, reduction='none')], ids=str)
@pytest.mark.parametrize('shape', [(5, 4), (2, 4, 3), (4,)], ids=str)
def test_cross_entropy_probabilities(kw, shape):
    x = make_inputs([shape])[0]
    p = np.random.default_rng(3).dirichlet(np.ones(shape[0] if len(shape) == 1 else shape[1]), size=shape[:1] + shape[2:] if len(shape) > 1 else None)
    p = (np.moveaxis(p, -1, 1) if len(shape) > 2 else p).astype(np.float32)
    arrays = [x, p] + ([np.random.default_rng(2).uniform(0.5, 2, p.shape[0 if len(shape) == 1 else 1]).astype(np.float32)] if kw.get('weight') else [])
    check_op(_ce(kw), arrays=arrays, requires_grad=[True, True, False][:len(arrays)])

@pytest.mark.parametrize('kw', [dict(), dict(weight=True, ignore_index=1, label_smoothing=0.2), dict(reduction='none', label_smoothing=0.1)], ids=str)
def test_cross_entropy_gradcheck(kw):
    x = make_inputs([(3, 4, 2)], dtype=np.float64)[0]
    t = np.array([[0, 1], [3, 1], [2, 2]], dtype=np.int64)
    arrays = [x, t] + ([np.array([0.5, 1., 2., 1.5])] if kw.get('weight') else [])
    fn = _ce(kw)
    inputs = [lt.tensor(x, requires_grad=True), lt.tensor(t)] + [lt.tensor(a) for a in arrays[2:]]
    f = lambda x: fn(lt, x, *inputs[1:])
    assert lt.autograd.gradcheck(f, inputs[:1])
    assert lt.autograd.gradgradcheck(f, inputs[:1])
    if not kw.get('label_smoothing'):
        g = lambda x: _ce(kw, 'nll_loss')(lt, x, *inputs[1:])
        assert lt.autograd.gradcheck(g, inputs[:1]) and lt.autograd.gradgradcheck(g, inputs[:1])

def test_cross_entropy_probabilities_gradcheck():
    x, p = make_inputs([(3, 4), (3, 4)], dtype=np.float64, low=0.1, high=1)
    check_gradcheck(lambda m, x, p: F(m).cross_entropy(x, p, label_smoothing=0.1), arrays=[x, p], gradgrad=True)

def test_cross_entropy_double_backward_vs_torch():
    x0 = make_inputs([(4, 5)])[0]
    t0 = ints(4, high=5)
    res = {}
    for m in (torch, lt):
        x = m.tensor(x0, requires_grad=True)
        gx, = m.autograd.grad(F(m).cross_entropy(x, m.tensor(t0), label_smoothing=0.1), x, create_graph=True)
        (gx * gx).sum().backward()
        res[m] = x.grad.numpy()
    np.testing.assert_allclose(res[lt], res[torch], rtol=1e-4, atol=1e-6)

def test_loss_errors():
    x3 = lambda m: m.randn(3, 4)
    check_same_error(lambda m: F(m).cross_entropy(x3(m), m.tensor([0, 1, 2]), reduction='foo'))
    check_same_error(lambda m: F(m).nll_loss(x3(m), m.tensor([0, 1, 2]), reduction='foo'))
    check_same_error(lambda m: F(m).mse_loss(x3(m), x3(m), reduction='foo'))
    check_same_error(lambda m: F(m).l1_loss(x3(m), x3(m), reduction='foo'))
    check_same_error(lambda m: F(m).binary_cross_entropy_with_logits(x3(m), x3(m), reduction='foo'))
    check_same_error(lambda m: F(m).cross_entropy(x3(m), m.tensor([0, 1, 5])))
    check_same_error(lambda m: F(m).nll_loss(x3(m), m.tensor([0, 1, -2])))
    check_same_error(lambda m: F(m).cross_entropy(x3(m), m.tensor([0, 1])))
    check_same_error(lambda m: F(m).cross_entropy(x3(m), m.rand(3, 5)))
    check_same_error(lambda m: F(m).cross_entropy(x3(m), m.tensor([0, 1, 2], dtype=m.int32)))
    check_same_error(lambda m: F(m).nll_loss(m.randn(3, 4, 5), m.zeros(3, 6, dtype=m.int64)))
    check_same_error(lambda m: F(m).cross_entropy(x3(m), m.tensor([0, 1, 2]), weight=m.ones(3)))
    check_same_error(lambda m: F(m).cross_entropy(x3(m), m.tensor([0, 1, 2]), label_smoothing=1.5))
    check_same_error(lambda m: F(m).binary_cross_entropy_with_logits(m.randn(3), m.rand(4)))
    check_same_error(lambda m: F(m).mse_loss(m.randn(3, 2), m.randn(3, 2), weight=m.rand(3)))

@pytest.mark.parametrize('name', ['mse_loss', 'l1_loss'])
@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
def test_regression_losses(name, reduction):
    check_op(lambda m, x, t: getattr(F(m), name)(x, t, reduction=reduction), [(3, 4), (3, 4)])
    check_op(lambda m, x, t, w: getattr(F(m), name)(x, t, reduction=reduction, weight=w), [(3, 4), (3, 4), (3, 4)], low=0.1, high=2)
    check_gradcheck(lambda m, x, t: getattr(F(m), name)(x, t, reduction=reduction), [(2, 3), (2, 3)], gradgrad=name == 'mse_loss')

def test_regression_losses_broadcast_warns():
    with pytest.warns(UserWarning):
        check_op(lambda m, x, t: F(m).mse_loss(x, t), [(3, 4), (4,)])

def test_legacy_reduction_flags():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for sa, r in [(False, None), (None, False), (True, True)]:
            check_op(lambda m, x, t: F(m).mse_loss(x, t, size_average=sa, reduce=r), [(3, 4), (3, 4)])

BCE = [(None, None, 'mean'), (None, None, 'sum'), (None, None, 'none'), ((3, 4), None, 'mean'), ((4,), None, 'sum'),
       (None, (4,), 'mean'), ((3, 4), (4,), 'none')]

@pytest.mark.parametrize('wshape,pwshape,reduction', BCE, ids=str)
def test_bce_with_logits(wshape, pwshape, reduction):
    x, t = make_inputs([(3, 4)])[0] * 5, np.random.default_rng(1).uniform(0, 1, (3, 4)).astype(np.float32)
    names = [n for n, s in (('weight', wshape), ('pos_weight', pwshape)) if s is not None]
    ws = [np.random.default_rng(i + 5).uniform(0.2, 3, s).astype(np.float32) for i, s in enumerate(s for s in (wshape, pwshape) if s is not None)]
    fn = lambda m, x, t, *w: F(m).binary_cross_entropy_with_logits(x, t, reduction=reduction, **dict(zip(names, w)))
    check_op(fn, arrays=[x, t] + ws, requires_grad=[True, True] + [False] * len(ws))

def test_bce_with_logits_extreme_and_gradcheck():
    x = np.array([-100., -20., -1e-3, 1e-3, 30., 100.], dtype=np.float32)
    t = np.array([0., 1., 0.5, 1., 0., 1.], dtype=np.float32)
    check_op(lambda m, x, t: F(m).binary_cross_entropy_with_logits(x, t, reduction='none'), arrays=[x, t])
    x, t, pw = make_inputs([(2, 3), (2, 3), (3,)], dtype=np.float64, low=0.1, high=1)
    check_gradcheck(lambda m, x, t: F(m).binary_cross_entropy_with_logits(x, t, pos_weight=m.tensor(pw)), arrays=[x, t], gradgrad=True)

def test_binary_cross_entropy():
    x, t, w = make_inputs([(3, 4), (3, 4), (3, 4)], low=0.05, high=0.95)
    for red in ('mean', 'sum', 'none'):
        check_op(lambda m, x, t: F(m).binary_cross_entropy(x, t, reduction=red), arrays=[x, t])
    check_op(lambda m, x, t, w: F(m).binary_cross_entropy(x, t, weight=w), arrays=[x, t, w], requires_grad=[True, True, False])

def test_one_hot_reexport():
    assert LF.one_hot.__module__ == 'lit_torch.nn.functional'  # defined where torch keeps it
    assert LF.one_hot(lt.tensor([1, 0]), 3).tolist() == TF.one_hot(torch.tensor([1, 0]), 3).tolist()

def test_public_names():
    import lit_torch.nn.functional as mod
    for name in mod.__all__:
        assert hasattr(TF, name) or name[0].isupper(), name
