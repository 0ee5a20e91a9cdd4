"""The second round of nn layers against PyTorch: activations, dropouts, normalizations, distances, losses (CTC
included), Bilinear, EmbeddingBag and the lazy modules. Forward values and every gradient on seeded random inputs,
for every option; float64 gradchecks of the new ops; the error types PyTorch raises; reprs and state_dict keys.

Each module test builds the layer in both libraries from the same arguments, loads torch's state_dict into
lit_torch's, runs the same float64 inputs (random, never zeros), backpropagates the same random weights and
compares outputs, input gradients, parameter gradients and buffers.
"""
import math, warnings
import numpy as np
import pytest
import torch
import lit_torch as lt
from op_helpers import check_op, check_gradcheck, check_same_error

pytestmark = pytest.mark.filterwarnings('ignore')

def _np(t):
    if isinstance(t, torch.Tensor) and t.is_sparse: t = t.to_dense()  # Embedding(sparse=True): lit_torch's gradient is dense
    return None if t is None else t.detach().cpu().numpy()

def run_module(make, inputs, train=True, atol=1e-10, rtol=1e-8, float32=False, rg=None):
    """The module `make(lib)` on both libraries, torch's weights in lit_torch's: outputs, input and parameter gradients, buffers.
    The float inputs require grad (only the first `rg` of them if given: a loss's target may not)."""
    mt, ml = make(torch), make(lt)
    sd = mt.state_dict()
    assert list(ml.state_dict()) == list(sd)
    ml.load_state_dict({k: lt.tensor(v.numpy()) for k, v in sd.items()})
    if not float32: mt, ml = mt.double(), ml.double()
    mt.train(train); ml.train(train)
    need = [isinstance(a, np.ndarray) and a.dtype.kind == 'f' and (rg is None or i < rg) for i, a in enumerate(inputs)]
    it = [torch.tensor(a, requires_grad=n) if isinstance(a, np.ndarray) else a for a, n in zip(inputs, need)]
    il = [lt.tensor(a, requires_grad=n) if isinstance(a, np.ndarray) else a for a, n in zip(inputs, need)]
    yt, yl = mt(*it), ml(*il)
    assert repr(yl.dtype) == repr(yt.dtype) and tuple(yl.shape) == tuple(yt.shape)
    np.testing.assert_allclose(_np(yl), _np(yt), atol=atol, rtol=rtol)
    w = np.random.default_rng(5).standard_normal(tuple(yt.shape))
    if yt.requires_grad:
        (yt * torch.tensor(w, dtype=yt.dtype)).sum().backward(); (yl * lt.tensor(w, dtype=yl.dtype)).sum().backward()
        for a, b in zip(it, il):
            if isinstance(a, torch.Tensor) and a.requires_grad:
                np.testing.assert_allclose(_np(b.grad), _np(a.grad), atol=atol * 10, rtol=rtol * 10)
        for (n, p), (_, q) in zip(mt.named_parameters(), ml.named_parameters()):
            np.testing.assert_allclose(_np(q.grad), _np(p.grad), atol=atol * 10, rtol=rtol * 10, err_msg=n)
    for k, v in mt.state_dict().items(): np.testing.assert_allclose(_np(ml.state_dict()[k]), _np(v), atol=atol, rtol=rtol, err_msg=k)
    assert repr(ml) == repr(mt)
    return mt, ml

rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4, 5)) * 3

# ------------------------------------------------------------------------------------------------ activations
ACTIVATIONS = [
    ('Threshold', (0.3, -2.)), ('ReLU', ()), ('RReLU', (0.1, 0.4)), ('Hardtanh', (-0.7, 1.3)),
    ('ReLU6', ()), ('Sigmoid', ()), ('Hardsigmoid', ()), ('Tanh', ()), ('SiLU', ()), ('Mish', ()), ('Hardswish', ()), ('ELU', (0.6,)),
    ('CELU', (1.7,)), ('SELU', ()), ('GLU', (1,)), ('GLU', ()), ('GELU', ()), ('GELU', ('tanh',)), ('Hardshrink', (0.8,)),
    ('LeakyReLU', (0.3,)), ('LogSigmoid', ()), ('Softplus', ()), ('Softplus', (2., 1.)), ('Softshrink', (0.6,)), ('PReLU', ()),
    ('PReLU', (4, 0.1)), ('Softsign', ()), ('Tanhshrink', ()), ('Softmin', (1,)), ('Softmax', (2,)), ('Softmax2d', ()), ('LogSoftmax', (0,)),
]

@pytest.mark.parametrize('name,args', ACTIVATIONS, ids=[f'{n}{a}' for n, a in ACTIVATIONS])
def test_activation_modules(name, args):
    x = X[:, :4, :4] if name == 'GLU' and args == () else X
    run_module(lambda m: getattr(m.nn, name)(*args), [x * 1.], train=False)

INPLACE = [('relu', {}), ('relu6', {}), ('hardtanh', {'min_val': -0.5}), ('elu', {'alpha': 0.5}), ('selu', {}), ('celu', {'alpha': 2.}),
           ('leaky_relu', {'negative_slope': 0.2}), ('rrelu', {}), ('threshold', {'threshold': 0.1, 'value': 3.}), ('hardsigmoid', {}),
           ('hardswish', {}), ('silu', {}), ('mish', {})]

@pytest.mark.parametrize('name,kw', INPLACE, ids=[n for n, _ in INPLACE])
def test_inplace_flag(name, kw):
    "F.x(inplace=True) writes into its input, also through autograd (a non-leaf), and the gradient is the out-of-place one."
    def f(m, a):
        b = a * 1.
        out = getattr(m.nn.functional, name)(b, **kw, inplace=True)
        assert out is b
        return out
    check_op(f, [(4, 6)], atol=1e-6)

@pytest.mark.parametrize('name', ['relu_', 'leaky_relu_', 'elu_', 'selu_', 'celu_', 'rrelu_', 'hardtanh_'])
def test_functional_inplace_variants(name):
    a = X.copy()
    t, l = torch.tensor(a), lt.tensor(a)
    getattr(torch.nn.functional, name)(t); getattr(lt.nn.functional, name)(l)
    np.testing.assert_allclose(l.numpy(), t.numpy(), rtol=1e-12)

@pytest.mark.parametrize('name,args', [('selu', ()), ('celu', (0.7,)), ('rrelu', (0.1, 0.3)), ('threshold', (0.2, 5.)), ('hardshrink', (0.4,)),
                                       ('prelu', None), ('relu_', ())])
def test_top_level_ops(name, args):
    a = X.copy()
    if name == 'prelu':
        w = np.array([0.1, 0.2, 0.3, 0.4])
        check_op(lambda m, x, w: m.prelu(x, w), arrays=[a, w])
        return
    if name == 'relu_':
        t, l = torch.tensor(a), lt.tensor(a); torch.relu_(t); lt.relu_(l)
        np.testing.assert_array_equal(l.numpy(), t.numpy()); return
    check_op(lambda m, x: getattr(m, name)(x * 1., *args), arrays=[a])
    if name in ('selu', 'celu', 'threshold'):
        t, l = torch.tensor(a), lt.tensor(a); getattr(torch, name + '_')(t, *args); getattr(lt, name + '_')(l, *args)
        np.testing.assert_allclose(l.numpy(), t.numpy(), rtol=1e-12)

def test_tensor_methods():
    a, w = X.copy(), np.array([0.5, 0.1, 0.2, 0.3])
    np.testing.assert_allclose(lt.tensor(a).hardshrink(0.4).numpy(), torch.tensor(a).hardshrink(0.4).numpy())
    np.testing.assert_allclose(lt.tensor(a).prelu(lt.tensor(w)).numpy(), torch.tensor(a).prelu(torch.tensor(w)).numpy())

@pytest.mark.parametrize('fn', ['elu', 'selu', 'celu', 'softplus', 'logsigmoid', 'mish', 'hardswish', 'hardsigmoid', 'hardtanh', 'leaky_relu',
                                'softshrink', 'hardshrink', 'threshold', 'glu', 'softmin', 'softsign', 'tanhshrink', 'gelu', 'silu'])
def test_activation_gradcheck(fn):
    f = {'threshold': lambda m, x: m.nn.functional.threshold(x, 0.2, -1.), 'softmin': lambda m, x: m.nn.functional.softmin(x, 1),
         'glu': lambda m, x: m.nn.functional.glu(x, 1)}.get(fn, lambda m, x: getattr(m.nn.functional, fn)(x))
    smooth = fn in ('elu', 'selu', 'celu', 'softplus', 'logsigmoid', 'mish', 'glu', 'softmin', 'softsign', 'tanhshrink', 'gelu', 'silu')
    check_gradcheck(f, [(3, 4)], gradgrad=smooth)

def test_rrelu_training_slopes_and_backward():
    x = lt.tensor(-np.abs(X) - 0.1, requires_grad=True)
    y = lt.nn.functional.rrelu(x, 0.2, 0.5, training=True)
    slope = (y / x).detach().numpy()
    assert (slope >= 0.2).all() and (slope < 0.5).all() and np.unique(slope).size > 10
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slope, rtol=1e-12)

def test_gelu_zero_dim():
    for approx in ('none', 'tanh'):
        check_op(lambda m, x: m.nn.functional.gelu(x, approximate=approx), arrays=[np.array(0.7, np.float32)])
        check_op(lambda m, x: m.nn.functional.gelu(x, approximate=approx), arrays=[np.array(-1.3)])

@pytest.mark.parametrize('call', [
    lambda m: m.nn.functional.elu(m.tensor([1, 2])), lambda m: m.nn.functional.glu(m.tensor(1.)), lambda m: m.nn.functional.glu(m.randn(2, 3)),
    lambda m: m.nn.functional.softshrink(m.randn(3), -1.), lambda m: m.nn.functional.rrelu(m.randn(3), 0.5, 0.1, True),
    lambda m: m.nn.functional.prelu(m.randn(2, 3), m.randn(2)), lambda m: m.nn.functional.prelu(m.randn(2, 3), m.randn(3, 1)),
    lambda m: m.nn.functional.hardtanh(m.randn(3), 2., 1.), lambda m: m.nn.Softmax2d()(m.randn(3, 4)),
    lambda m: m.nn.Hardtanh(1., 0.5), lambda m: m.nn.functional.elu(m.randn(3, requires_grad=True), inplace=True),
    lambda m: m.nn.functional.mish(m.tensor([1, 2]))])
def test_activation_errors(call): check_same_error(call)

# ------------------------------------------------------------------------------------------------ dropout
@pytest.mark.parametrize('name,shape', [('Dropout', (20, 30)), ('Dropout1d', (8, 10, 30)), ('Dropout2d', (8, 10, 6, 6)),
                                        ('Dropout3d', (4, 10, 3, 4, 5)), ('AlphaDropout', (40, 50)), ('FeatureAlphaDropout', (20, 10, 30))])
def test_dropout_modules(name, shape):
    x = np.random.default_rng(1).standard_normal(shape)
    run_module(lambda m: getattr(m.nn, name)(0.3), [x], train=False)  # eval: the identity in both
    lt.manual_seed(0)
    ml = getattr(lt.nn, name)(0.3)
    xl = lt.tensor(x, requires_grad=True)
    y = ml(xl); y.sum().backward()
    yn, g = y.detach().numpy(), xl.grad.numpy()
    mult = g.reshape(shape)
    feature = name in ('Dropout1d', 'Dropout2d', 'Dropout3d', 'FeatureAlphaDropout')
    draws = shape[0] * shape[1] if feature else int(np.prod(shape))
    if feature:  # one draw per (sample, channel)
        flat = mult.reshape(shape[0], shape[1], -1)
        assert (flat == flat[..., :1]).all()
    if 'Alpha' in name:  # mean 0 and variance 1 kept (within 5 sigma of the draws); dropped values at alpha' (scaled, shifted)
        assert abs(yn.mean()) < 5 / math.sqrt(draws) and abs(yn.var() - 1) < 10 / math.sqrt(draws)
        a = 1 / math.sqrt((1.7580993408473766 ** 2 * 0.3 + 1) * 0.7)
        np.testing.assert_allclose(np.unique(np.round(mult, 10)), [0., round(a, 10)])
    else:
        np.testing.assert_allclose(np.unique(mult), [0., 1 / 0.7]); np.testing.assert_allclose(yn, x * mult, rtol=1e-12)
        assert abs((mult == 0).mean() - 0.3) < 5 * math.sqrt(0.21 / draws)

def test_dropout_unbatched_and_errors():
    y = lt.nn.functional.dropout1d(lt.ones(16, 50), 0.5)
    assert (y.numpy() == y.numpy()[:, :1]).all()
    y = lt.nn.functional.dropout3d(lt.ones(16, 3, 4, 5), 0.5)
    assert (y.numpy().reshape(16, -1) == y.numpy().reshape(16, -1)[:, :1]).all()
    for call in (lambda m: m.nn.functional.dropout1d(m.ones(2, 3, 4, 5)), lambda m: m.nn.functional.alpha_dropout(m.ones(3), 1.2),
                 lambda m: m.nn.Dropout2d(-0.1), lambda m: m.feature_dropout(m.ones(3), 0.5, True), lambda m: m.dropout(m.ones(3), 1.5, True)):
        check_same_error(call)
    for p in (0., 1.):
        for f in ('dropout', 'alpha_dropout', 'feature_alpha_dropout', 'feature_dropout'):
            t, l = getattr(torch, f)(torch.ones(3, 4), p, True), getattr(lt, f)(lt.ones(3, 4), p, True)
            np.testing.assert_array_equal(l.numpy(), t.numpy())

# ------------------------------------------------------------------------------------------------ normalization
X4 = rng.standard_normal((3, 6, 4, 5)) * 2 + 1

@pytest.mark.parametrize('make,shape', [
    (lambda m: m.nn.GroupNorm(3, 6), (3, 6, 4, 5)), (lambda m: m.nn.GroupNorm(1, 6, eps=1e-3, affine=False), (3, 6, 7)),
    (lambda m: m.nn.GroupNorm(6, 6, bias=False), (2, 6)), (lambda m: m.nn.GroupNorm(2, 4), (0, 4, 3)),
    (lambda m: m.nn.RMSNorm(5), (3, 6, 5)), (lambda m: m.nn.RMSNorm((4, 5), eps=1e-2, elementwise_affine=False), (3, 4, 5)),
    (lambda m: m.nn.LocalResponseNorm(3), (3, 6, 5)), (lambda m: m.nn.LocalResponseNorm(4, 0.5, 0.6, 2.), (2, 6, 4, 5)),
    (lambda m: m.nn.LocalResponseNorm(2, 1e-2), (2, 6, 2, 3, 3)), (lambda m: m.nn.CrossMapLRN2d(3, 0.4, 0.7, 1.5), (2, 6, 3, 3)),
    (lambda m: m.nn.CrossMapLRN2d(5, 0.4, 0.7, 1.5), (2, 9, 3, 3)), (lambda m: m.nn.LayerNorm((4, 5), bias=False), (3, 4, 5))],
    ids=['gn', 'gn1_noaffine', 'gn_nobias', 'gn_empty', 'rms', 'rms2', 'lrn3d', 'lrn4d', 'lrn5d', 'crossmap3', 'crossmap5', 'ln_nobias'])
def test_normalization_modules(make, shape):
    x = np.random.default_rng(2).standard_normal(shape) * 2 + 0.5
    mt, ml = make(torch), make(lt)
    for (_, p), (_, q) in zip(mt.named_parameters(), ml.named_parameters()):  # random affine parameters, not ones/zeros
        v = np.random.default_rng(3).standard_normal(tuple(p.shape)); p.data = torch.tensor(v, dtype=p.dtype); q.data = lt.tensor(v, dtype=q.dtype)
    run_module(lambda m: mt if m is torch else ml, [x])

INSTANCE = [('InstanceNorm1d', (4, 3, 9), {}), ('InstanceNorm1d', (3, 9), {'affine': True}), ('InstanceNorm2d', (2, 3, 4, 5), {'track_running_stats': True}),
            ('InstanceNorm2d', (2, 3, 4, 5), {'affine': True, 'track_running_stats': True, 'momentum': None}),
            ('InstanceNorm3d', (2, 3, 2, 3, 4), {'affine': True, 'bias': False}), ('InstanceNorm3d', (3, 2, 3, 4), {'eps': 1e-2})]

@pytest.mark.parametrize('name,shape,kw', INSTANCE)
@pytest.mark.parametrize('train', [True, False])
def test_instance_norm(name, shape, kw, train):
    x = np.random.default_rng(4).standard_normal(shape) * 2 + 1
    mt, ml = run_module(lambda m: getattr(m.nn, name)(3, **kw), [x], train=train)
    if kw.get('track_running_stats') and train:  # a second step moves the statistics again
        run_module(lambda m: mt if m is torch else ml, [x * 0.5 + 2], train=True)

def test_instance_norm_functional_and_errors():
    check_op(lambda m, x, w, b: m.nn.functional.instance_norm(x, weight=w, bias=b, eps=1e-3), [(2, 3, 7), (3,), (3,)])
    check_gradcheck(lambda m, x: m.nn.functional.instance_norm(x), [(2, 3, 5)])
    for call in (lambda m: m.nn.functional.instance_norm(m.randn(2, 3, 1)), lambda m: m.nn.InstanceNorm1d(3)(m.randn(2, 3, 4, 5)),
                 lambda m: m.nn.InstanceNorm2d(3, affine=True)(m.randn(2, 4, 5, 5))):
        check_same_error(call)
    with pytest.warns(UserWarning, match='does not match num_features'): lt.nn.InstanceNorm1d(3)(lt.randn(2, 4, 5))

@pytest.mark.parametrize('fn', [lambda m, x, w, b: m.nn.functional.group_norm(x, 2, w, b), lambda m, x, w, b: m.group_norm(x, 2, w, b),
                                lambda m, x, w, b: m.nn.functional.rms_norm(x, (5,)) * w.sum() + b.sum(),
                                lambda m, x, w, b: m.nn.functional.local_response_norm(x, 3, 0.2, 0.7, 1.2) * b.sum()])
def test_norm_functionals(fn):
    check_op(fn, [(3, 4, 5), (4,), (4,)], atol=1e-5)
    check_gradcheck(fn, [(3, 4, 5), (4,), (4,)])

def test_norm_errors():
    for call in (lambda m: m.nn.functional.group_norm(m.randn(2, 6, 3), 4), lambda m: m.nn.functional.group_norm(m.randn(2, 6), 3, m.ones(5)),
                 lambda m: m.nn.functional.group_norm(m.randn(1, 2), 2), lambda m: m.nn.functional.group_norm(m.randn(3), 1),
                 lambda m: m.nn.GroupNorm(4, 6), lambda m: m.nn.functional.rms_norm(m.randn(2, 3), (4,)),
                 lambda m: m.nn.functional.rms_norm(m.randn(2, 3), (3,), m.ones(2)), lambda m: m.nn.functional.local_response_norm(m.randn(2, 3), 2),
                 lambda m: m.nn.CrossMapLRN2d(3)(m.randn(2, 3, 4))):
        check_same_error(call)

@pytest.mark.parametrize('shape', [(0, 5), (0, 5, 9), (0, 3, 4, 4)])
def test_batchnorm_empty_batch(shape):
    name = {2: 'BatchNorm1d', 3: 'BatchNorm1d', 4: 'BatchNorm2d'}[len(shape)]
    for train in (True, False):
        mt, ml = run_module(lambda m: getattr(m.nn, name)(shape[1]), [np.zeros(shape)], train=train)
        assert int(ml.num_batches_tracked) == int(mt.num_batches_tracked)

# ------------------------------------------------------------------------------------------------ distances
@pytest.mark.parametrize('p', [1., 1.5, 2., 3., math.inf, 0.5])
def test_pairwise_distance(p):
    check_op(lambda m, a, b: m.nn.functional.pairwise_distance(a, b, p, 1e-3), [(5, 4), (5, 4)])
    check_op(lambda m, a, b: m.nn.PairwiseDistance(p, keepdim=True)(a, b), [(3, 5, 4), (4,)])
    check_gradcheck(lambda m, a, b: m.nn.functional.pairwise_distance(a, b, p), [(3, 4), (3, 4)], gradgrad=p in (1.5, 2., 3.))

@pytest.mark.parametrize('p', [0., 1., 2., 0.7, 3., math.inf])
def test_pdist(p):
    check_op(lambda m, a: m.nn.functional.pdist(a, p), [(6, 3)], grad_atol=1e-3)
    if p: check_gradcheck(lambda m, a: m.pdist(a, p), [(5, 3)])

@pytest.mark.parametrize('dim', [0, 1, -1])
def test_cosine_similarity_and_normalize(dim):
    check_op(lambda m, a, b: m.nn.functional.cosine_similarity(a, b, dim), [(4, 5), (4, 5)])
    check_op(lambda m, a, b: m.nn.CosineSimilarity(dim, 1e-3)(a, b), [(3, 4, 5), (4, 5)])
    check_gradcheck(lambda m, a, b: m.cosine_similarity(a, b, dim), [(3, 4), (3, 4)], gradgrad=True)
    for p in (1., 2., 3.):
        check_op(lambda m, a: m.nn.functional.normalize(a, p, dim), [(4, 5)])
        check_gradcheck(lambda m, a: m.nn.functional.normalize(a, p, dim), [(3, 4)])

def test_distance_zero_vectors():
    "The norm's subgradient at 0 is 0: a zero difference or a zero vector gives a finite gradient, as in torch."
    z = np.zeros((2, 3)); z[1] = [1., 2., 3.]
    check_op(lambda m, a: m.nn.functional.pairwise_distance(a, a * 1., eps=0.), arrays=[z])
    check_op(lambda m, a: m.nn.functional.normalize(a), arrays=[z])
    check_op(lambda m, a, b: m.nn.functional.cosine_similarity(a, b), arrays=[z, np.ones((2, 3))])

# ------------------------------------------------------------------------------------------------ losses
R = np.random.default_rng(7)
A, B = R.standard_normal((6, 5)), R.standard_normal((6, 5))
P = R.uniform(0.05, 0.95, (6, 5))
Y = np.sign(R.standard_normal(6))
LAB = R.integers(0, 5, 6)

LOSSES = [
    ('SmoothL1Loss', {}, (A, B)), ('SmoothL1Loss', {'beta': 0.3, 'reduction': 'sum'}, (A, B)), ('SmoothL1Loss', {'beta': 0.}, (A, B)),
    ('HuberLoss', {'delta': 0.5, 'reduction': 'none'}, (A, B)), ('HuberLoss', {}, (A, B)),
    ('BCELoss', {}, (P, P[::-1].copy())), ('BCELoss', {'weight': torch.rand(5, dtype=torch.float64), 'reduction': 'sum'}, (P, P[::-1].copy())),
    ('KLDivLoss', {'reduction': 'batchmean'}, (A, P)), ('KLDivLoss', {'reduction': 'sum', 'log_target': True}, (A, B)), ('KLDivLoss', {}, (A, P)),
    ('PoissonNLLLoss', {}, (A, np.abs(B) * 3)), ('PoissonNLLLoss', {'log_input': False, 'full': True, 'reduction': 'none'}, (P * 3, np.abs(B) * 3)),
    ('GaussianNLLLoss', {}, (A, B, P)), ('GaussianNLLLoss', {'full': True, 'reduction': 'sum'}, (A, B, P[:, :1])),
    ('SoftMarginLoss', {}, (A, np.sign(B))), ('MultiLabelSoftMarginLoss', {'weight': torch.rand(5, dtype=torch.float64)}, (A, (B > 0) * 1.)),
    ('MultiMarginLoss', {}, (A, LAB)), ('MultiMarginLoss', {'p': 2, 'margin': 0.4, 'weight': torch.rand(5, dtype=torch.float64), 'reduction': 'none'}, (A, LAB)),
    ('MultiLabelMarginLoss', {}, (A, np.array([[1, 3, -1, 0, 0]] * 3 + [[4, 4, 2, -1, 3]] * 3))),
    ('HingeEmbeddingLoss', {'margin': 0.7}, (A, np.sign(B))), ('MarginRankingLoss', {'margin': 0.2, 'reduction': 'sum'}, (A[:, 0], B[:, 0], Y)),
    ('CosineEmbeddingLoss', {'margin': 0.3}, (A, B, Y)), ('TripletMarginLoss', {}, (A, B, A[::-1].copy())),
    ('TripletMarginLoss', {'margin': 0.5, 'p': 1.5, 'swap': True, 'reduction': 'none'}, (A, B, A[::-1].copy())),
    ('TripletMarginWithDistanceLoss', {'swap': True}, (A, B, A[::-1].copy())), ('NLLLoss', {'ignore_index': 2}, (A, LAB)),
    ('CrossEntropyLoss', {'label_smoothing': 0.1, 'weight': torch.rand(5, dtype=torch.float64)}, (A, LAB)), ('L1Loss', {}, (A, B)),
    ('MSELoss', {'reduction': 'sum'}, (A, B)), ('BCEWithLogitsLoss', {'pos_weight': torch.rand(5, dtype=torch.float64) + 0.5}, (A, P)),
]

@pytest.mark.parametrize('name,kw,args', LOSSES, ids=[f'{n}-{"-".join(kw)}' for n, kw, _ in LOSSES])
def test_loss_modules(name, kw, args):
    mk = lambda m: getattr(m.nn, name)(**{k: (lt.tensor(v.numpy()) if m is lt and isinstance(v, torch.Tensor) else v) for k, v in kw.items()})
    n = 3 if 'Triplet' in name or name == 'GaussianNLLLoss' else 2 if name in ('MarginRankingLoss', 'CosineEmbeddingLoss', 'KLDivLoss', 'BCELoss') else 1
    run_module(mk, list(args), rg=n)

def test_triplet_with_custom_distance():
    f = lambda m, a, p, n: m.nn.functional.triplet_margin_with_distance_loss(
        a, p, n, distance_function=lambda x, y: 1 - m.nn.functional.cosine_similarity(x, y), margin=0.4, reduction='sum')
    check_op(f, [(5, 3), (5, 3), (5, 3)])

def test_linear_cross_entropy():
    for kw in ({}, {'bias': True, 'label_smoothing': 0.2}, {'out_features': (2,), 'reduction': 'sum'}, {'ignore_index': 1}):
        tgt = R.integers(0, 4, (6, 2)) if 'out_features' in kw else R.integers(0, 4, 6)
        run_module(lambda m: m.nn.LinearCrossEntropyLoss(5, 4, **kw), [A, tgt])
    check_same_error(lambda m: m.nn.LinearCrossEntropyLoss(5, 4, label_smoothing=2.))

@pytest.mark.parametrize('fn', [
    lambda m, a, b: m.nn.functional.smooth_l1_loss(a, b, beta=0.6), lambda m, a, b: m.nn.functional.huber_loss(a, b, delta=0.4, weight=b.abs()),
    lambda m, a, b: m.nn.functional.kl_div(a, b.softmax(1), reduction='batchmean'), lambda m, a, b: m.kl_div(a, b, 2, log_target=True),
    lambda m, a, b: m.nn.functional.poisson_nll_loss(a, b.abs() * 3, full=True), lambda m, a, b: m.nn.functional.gaussian_nll_loss(a, b, a.abs() + 0.1),
    lambda m, a, b: m.nn.functional.soft_margin_loss(a, b.detach().sign()), lambda m, a, b: m.nn.functional.multilabel_soft_margin_loss(a, (b > 0).to(a.dtype)),
    lambda m, a, b: m.nn.functional.binary_cross_entropy(a.sigmoid(), b.sigmoid()), lambda m, a, b: m.margin_ranking_loss(a, b, b.sign(), 0.1, 1),
    lambda m, a, b: m.hinge_embedding_loss(a, b.sign(), 0.5, 2), lambda m, a, b: m.cosine_embedding_loss(a, b, a[:, 0].sign(), 0.2, 0),
    lambda m, a, b: m.triplet_margin_loss(a, b, b * 2 - a, 1., 2., 1e-6, True, 1),
    lambda m, a, b: m.poisson_nll_loss(a, b.abs(), True, False, 1e-8, 1)],
    ids=['smooth_l1', 'huber_w', 'kl', 'kl_top', 'poisson', 'gaussian', 'soft_margin', 'mlsm', 'bce', 'ranking', 'hinge', 'cos_emb', 'triplet', 'poisson_top'])
def test_loss_functionals(fn):
    check_op(fn, [(4, 5), (4, 5)], atol=1e-5)
    check_gradcheck(fn, [(4, 5), (4, 5)])

def test_loss_errors():
    for call in (lambda m: m.nn.functional.smooth_l1_loss(m.randn(3), m.randn(3), beta=-1.), lambda m: m.nn.functional.huber_loss(m.randn(3), m.randn(3), delta=0.),
                 lambda m: m.nn.functional.binary_cross_entropy(m.tensor([1.5]), m.tensor([1.])), lambda m: m.nn.functional.binary_cross_entropy(m.rand(3), m.rand(2)),
                 lambda m: m.nn.functional.multi_margin_loss(m.randn(2, 3), m.tensor([1, 2, 0])), lambda m: m.nn.functional.multi_margin_loss(m.randn(2, 3, 4), m.tensor([1, 2])),
                 lambda m: m.nn.functional.multi_margin_loss(m.randn(2, 3), m.tensor([1, 2]), p=3), lambda m: m.nn.functional.multi_margin_loss(m.randn(2, 3), m.tensor([1, 5])),
                 lambda m: m.nn.functional.multilabel_margin_loss(m.randn(4), m.tensor([3, 0, -1])), lambda m: m.nn.functional.multilabel_margin_loss(m.randn(4), m.tensor([5, -1, 0, 0])),
                 lambda m: m.nn.functional.cosine_embedding_loss(m.randn(2, 3), m.randn(2, 3), m.ones(2, 1)),
                 lambda m: m.nn.functional.triplet_margin_loss(m.randn(2, 3), m.randn(3), m.randn(2, 3)),
                 lambda m: m.nn.functional.triplet_margin_loss(m.randn(2, 3), m.randn(2, 3), m.randn(2, 3), margin=0.),
                 lambda m: m.nn.functional.margin_ranking_loss(m.randn(4), m.randn(4), m.randn(2, 2)),
                 lambda m: m.nn.functional.gaussian_nll_loss(m.randn(3, 2), m.randn(3, 2), m.ones(2)),
                 lambda m: m.nn.functional.gaussian_nll_loss(m.randn(3, 2), m.randn(3, 2), -m.ones(3, 2)),
                 lambda m: m.nn.MultiMarginLoss(p=3), lambda m: m.nn.TripletMarginLoss(margin=-1.), lambda m: m.nn.HuberLoss(delta='a'),
                 lambda m: m.nn.functional.kl_div(m.randn(3), m.randn(3), reduction='avg')):
        check_same_error(call)

def test_cross_entropy_all_ignored_has_zero_gradient():
    for f in (lambda m, x: m.nn.functional.cross_entropy(x, m.tensor([-100, -100])), lambda m, x: m.nn.functional.nll_loss(x, m.tensor([3, 3]), ignore_index=3),
              lambda m, x: m.nn.functional.cross_entropy(x, m.tensor([-100, -100]), label_smoothing=0.3)):
        xt = torch.randn(2, 4, requires_grad=True)
        xl = lt.tensor(xt.detach().numpy(), requires_grad=True)
        lt_, ll_ = f(torch, xt), f(lt, xl)
        assert math.isnan(lt_.item()) and math.isnan(ll_.item())
        lt_.backward(); ll_.backward()
        np.testing.assert_array_equal(xl.grad.numpy(), xt.grad.numpy())

# ------------------------------------------------------------------------------------------------ CTC
def _ctc_inputs(seed, T=20, N=4, C=7, S=6, dtype=np.float64):
    r = np.random.default_rng(seed)
    lp = np.log(r.dirichlet(np.ones(C), (T, N))).astype(dtype)
    il = r.integers(T // 2, T + 1, N); il[0] = T
    tl = r.integers(1, S + 1, N)
    tg = r.integers(1, C, (N, S))
    return lp, tg, il, tl

@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
@pytest.mark.parametrize('layout', ['padded', 'concatenated', 'lists'])
@pytest.mark.parametrize('dtype', [np.float64, np.float32])
def test_ctc_loss(reduction, layout, dtype):
    lp, tg, il, tl = _ctc_inputs(0, dtype=dtype)
    if layout == 'concatenated': tg = np.concatenate([tg[n, :tl[n]] for n in range(len(tl))])
    def f(m):
        x = m.tensor(lp, requires_grad=True)
        lens = (list(il), list(tl)) if layout == 'lists' else (m.tensor(il), m.tensor(tl))
        y = m.nn.CTCLoss(blank=0, reduction=reduction)(x, m.tensor(tg), *lens)
        (y * m.tensor(np.linspace(0.5, 1.5, y.numel()).reshape(tuple(y.shape)), dtype=y.dtype)).sum().backward()
        return _np(y), _np(x.grad)
    (yt, gt), (yl, gl) = f(torch), f(lt)
    tol = 1e-10 if dtype == np.float64 else 1e-6
    np.testing.assert_allclose(yl, yt, rtol=tol, atol=tol)
    np.testing.assert_allclose(gl, gt, rtol=tol, atol=tol * 10)

def test_ctc_blank_repeats_zero_infinity_and_unbatched():
    lp, _, _, _ = _ctc_inputs(1, T=6, N=3, C=5)
    tg = np.array([[2, 2, 2], [1, 3, 3], [4, 4, 1]])  # the first needs 5 frames, fits in 6; repeats need blanks between
    for blank, zi, il in ((0, False, [6, 6, 6]), (3, True, [6, 4, 2]), (4, True, [2, 6, 5])):
        tgb = np.where(tg == blank, (blank + 1) % 5, tg)
        def f(m):
            x = m.tensor(lp, requires_grad=True)
            y = m.nn.functional.ctc_loss(x, m.tensor(tgb), m.tensor(il), m.tensor([3, 3, 2]), blank=blank, reduction='none', zero_infinity=zi)
            y.sum().backward()
            return _np(y), _np(x.grad)
        (yt, gt), (yl, gl) = f(torch), f(lt)
        np.testing.assert_allclose(yl, yt, rtol=1e-10); np.testing.assert_allclose(gl, gt, rtol=1e-9, atol=1e-12)
    lp1 = lp[:, 0]
    yt = torch.nn.functional.ctc_loss(torch.tensor(lp1), torch.tensor([1, 2]), torch.tensor(6), torch.tensor(2), reduction='none')
    yl = lt.nn.functional.ctc_loss(lt.tensor(lp1), lt.tensor([1, 2]), lt.tensor(6), lt.tensor(2), reduction='none')
    assert tuple(yl.shape) == tuple(yt.shape); np.testing.assert_allclose(_np(yl), _np(yt), rtol=1e-10)

def test_ctc_gradcheck_and_errors():
    tg, il, tl = np.array([[1, 2, 2], [3, 1, 0]]), np.array([8, 6]), np.array([3, 2])
    x = lt.tensor(np.random.default_rng(0).standard_normal((8, 2, 4)), requires_grad=True)
    assert lt.autograd.gradcheck(lambda z: lt.nn.functional.ctc_loss(z.log_softmax(2), lt.tensor(tg), lt.tensor(il), lt.tensor(tl)), (x,))
    y = lt.nn.functional.ctc_loss(x.log_softmax(2), lt.tensor(tg), lt.tensor(il), lt.tensor(tl))
    (g,) = lt.autograd.grad(y, x, create_graph=True)
    with pytest.raises(RuntimeError, match='not implemented'): g.sum().backward()
    for call in (lambda m: m.nn.functional.ctc_loss(m.randn(5, 2, 4).log_softmax(2), m.tensor([[1, 2, 3]] * 2), [6, 5], [3, 3]),
                 lambda m: m.nn.functional.ctc_loss(m.randn(5, 2, 4).log_softmax(2), m.tensor([[1, 2]] * 2), [5, 5], [3, 3]),
                 lambda m: m.nn.functional.ctc_loss(m.randn(5, 2, 4).log_softmax(2), m.tensor([1, 2, 3]), [5, 5], [2, 2]),
                 lambda m: m.nn.functional.ctc_loss(m.randn(5, 2, 4).log_softmax(2), m.tensor([[1, 2]] * 2), [5, 5], [2, 2], blank=4),
                 lambda m: m.nn.functional.ctc_loss(m.randn(5, 2, 4).log_softmax(2), m.tensor([[1, 2]] * 2), [5], [2, 2])):
        check_same_error(call)

# ------------------------------------------------------------------------------------------------ linear, sparse, lazy
@pytest.mark.parametrize('kw,shapes', [({}, [(4, 3), (4, 5)]), ({'bias': False}, [(2, 4, 3), (2, 4, 5)])])
def test_bilinear(kw, shapes):
    x1, x2 = (np.random.default_rng(8).standard_normal(s) for s in shapes)
    run_module(lambda m: m.nn.Bilinear(3, 5, 2, **kw), [x1, x2])
    check_gradcheck(lambda m, a, b, w: m.nn.functional.bilinear(a, b, w), [(2, 3), (2, 5), (4, 3, 5)], gradgrad=True)
    for call in (lambda m: m.bilinear(m.randn(2, 3), m.randn(2, 5, 1), m.randn(4, 3, 5)), lambda m: m.bilinear(m.randn(2, 3), m.randn(3, 5), m.randn(4, 3, 5)),
                 lambda m: m.bilinear(m.randn(2, 4), m.randn(2, 5), m.randn(4, 3, 5)), lambda m: m.bilinear(m.randn(2, 3), m.randn(2, 5), m.randn(4, 3, 5), m.randn(3)),
                 lambda m: m.nn.Bilinear(0, 2, 3)):
        check_same_error(call)

EMB = np.array([1, 2, 4, 5, 4, 3, 2, 0, 7, 7])

@pytest.mark.parametrize('kw,call', [
    ({'mode': 'sum'}, (EMB, np.array([0, 4, 4, 6]))), ({'mode': 'mean'}, (EMB, np.array([0, 4, 4, 6]))), ({'mode': 'max'}, (EMB, np.array([0, 4, 4, 6]))),
    ({'mode': 'sum'}, (EMB, np.array([0, 3]), np.linspace(-1, 2, 10))), ({'mode': 'mean', 'padding_idx': 2}, (EMB.reshape(2, 5),)),
    ({'mode': 'max', 'padding_idx': -1}, (EMB, np.array([0, 2, 7]))), ({'mode': 'mean', 'max_norm': 0.9, 'norm_type': 1.5}, (EMB, np.array([0, 5]))),
    ({'mode': 'sum', 'include_last_offset': True}, (EMB, np.array([0, 3, 3, 8]))), ({'mode': 'mean', 'scale_grad_by_freq': True}, (EMB, np.array([0, 4, 6])))],
    ids=['sum', 'mean', 'max', 'psw', '2d_pad', 'max_pad', 'max_norm', 'last_offset', 'freq'])
def test_embedding_bag(kw, call):
    run_module(lambda m: m.nn.EmbeddingBag(8, 3, **kw), list(call))

def test_embedding_bag_errors_and_top_level():
    w = np.random.default_rng(9).standard_normal((8, 3))
    for call in (lambda m: m.nn.functional.embedding_bag(m.tensor(EMB), m.tensor(w), m.tensor([1, 4])),
                 lambda m: m.nn.functional.embedding_bag(m.tensor(EMB), m.tensor(w), m.tensor([0, 11])),
                 lambda m: m.nn.functional.embedding_bag(m.tensor(EMB.reshape(2, 5)), m.tensor(w), m.tensor([0, 1])),
                 lambda m: m.nn.functional.embedding_bag(m.tensor(EMB), m.tensor(w)),
                 lambda m: m.nn.functional.embedding_bag(m.tensor(EMB), m.tensor(w), m.tensor([0, 1]), mode='avg'),
                 lambda m: m.nn.functional.embedding_bag(m.tensor(EMB), m.tensor(w), m.tensor([0, 1]), mode='max', scale_grad_by_freq=True),
                 lambda m: m.nn.functional.embedding_bag(m.tensor(EMB), m.tensor(w), m.tensor([0, 1]), mode='mean', per_sample_weights=m.ones(10, dtype=m.float64)),
                 lambda m: m.nn.functional.embedding_bag(m.tensor(EMB), m.tensor(w), m.tensor([0, 1]), padding_idx=9)):
        check_same_error(call)
    ot = torch.embedding_bag(torch.tensor(w), torch.tensor(EMB), torch.tensor([0, 4]), False, 0)
    ol = lt.embedding_bag(lt.tensor(w), lt.tensor(EMB), lt.tensor([0, 4]), False, 0)
    for i in (0, 1, 2): np.testing.assert_allclose(_np(ol[i]), _np(ot[i]))  # bag_size: zeros in 'sum' mode, as PyTorch
    np.testing.assert_allclose(_np(lt.embedding(lt.tensor(w), lt.tensor(EMB))), _np(torch.embedding(torch.tensor(w), torch.tensor(EMB))))

@pytest.mark.parametrize('kw', [{'max_norm': 1.0}, {'max_norm': 0.5, 'norm_type': 1.0}, {'padding_idx': 3}, {'scale_grad_by_freq': True},
                                {'padding_idx': -2, 'max_norm': 2.0}, {'sparse': True}])
def test_embedding_passes_every_option(kw):
    "Issue item 5: every constructor argument reaches F.embedding; max_norm renormalizes the table in place."
    mt, ml = run_module(lambda m: m.nn.Embedding(8, 3, **kw), [EMB.reshape(2, 5)])
    np.testing.assert_allclose(_np(ml.weight), _np(mt.weight), rtol=1e-12)
    e = lt.nn.Embedding.from_pretrained(lt.tensor(np.eye(3)), freeze=False, padding_idx=1)
    assert e.weight.requires_grad and e.padding_idx == 1

@pytest.mark.parametrize('name,arg,shape', [('LazyLinear', 4, (3, 7)), ('LazyBatchNorm1d', None, (5, 3, 4)), ('LazyBatchNorm2d', None, (4, 3, 2, 2)),
                                             ('LazyBatchNorm3d', None, (2, 3, 2, 2, 2)), ('LazyInstanceNorm1d', None, (2, 3, 5)),
                                             ('LazyInstanceNorm2d', None, (2, 3, 4, 4)), ('LazyInstanceNorm3d', None, (2, 3, 3, 3, 3))])
def test_lazy_modules(name, arg, shape):
    args = () if arg is None else (arg,)
    mt, ml = getattr(torch.nn, name)(*args), getattr(lt.nn, name)(*args)
    assert list(ml.state_dict()) == list(mt.state_dict()) and repr(ml) == repr(mt)
    x = np.random.default_rng(10).standard_normal(shape).astype(np.float32)
    torch.manual_seed(0); mt(torch.tensor(x)); ml(lt.tensor(x))
    assert type(ml).__name__ == type(mt).__name__ and repr(ml) == repr(mt)
    assert {k: tuple(v.shape) for k, v in ml.state_dict().items()} == {k: tuple(v.shape) for k, v in mt.state_dict().items()}
    run_module(lambda m: mt if m is torch else ml, [x.astype(np.float64)], float32=False, atol=1e-9, rtol=1e-7)

def test_lazy_load_state_dict_and_errors():
    src = torch.nn.Linear(5, 2)
    l = lt.nn.LazyLinear(2)
    l.load_state_dict({k: lt.tensor(v.detach().numpy()) for k, v in src.state_dict().items()})
    assert tuple(l.weight.shape) == (2, 5)
    np.testing.assert_allclose(_np(l(lt.ones(1, 5))), _np(src(torch.ones(1, 5))), rtol=1e-6)
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"): lt.nn.LazyLinear(3).weight.shape
    p = lt.nn.UninitializedParameter(); assert repr(p) == repr(torch.nn.UninitializedParameter())

# ------------------------------------------------------------------------------------------------ devices
DEVICE_CASES = {
    'activations': (lambda m, a, w: m.nn.functional.selu(a) + m.nn.functional.mish(a) + m.nn.functional.prelu(a, w) + m.nn.functional.hardswish(a), [(3, 4), (4,)]),
    'glu_softmin': (lambda m, a, w: m.nn.functional.glu(a, 1) * m.nn.functional.softmin(a, 1)[:, :2] + w[:2], [(3, 4), (4,)]),
    'norms': (lambda m, a, w: m.nn.functional.group_norm(a.reshape(3, 4, 1) * 1., 2, w, w) + m.nn.functional.rms_norm(a.reshape(3, 4, 1), (1,)), [(3, 4), (4,)]),
    'instance_lrn': (lambda m, a, w: m.nn.functional.instance_norm(a.reshape(1, 3, 4), weight=w[:3]) + m.nn.functional.local_response_norm(a.reshape(1, 3, 4), 2), [(3, 4), (4,)]),
    'distances': (lambda m, a, w: m.nn.functional.pairwise_distance(a, w) + m.nn.functional.cosine_similarity(a, w.expand(3, 4)) + m.nn.functional.pdist(a)[:3], [(3, 4), (4,)]),
    'losses': (lambda m, a, w: m.nn.functional.huber_loss(a, w.expand(3, 4)) + m.nn.functional.kl_div(a, w.softmax(0).expand(3, 4), reduction='batchmean')
               + m.nn.functional.triplet_margin_loss(a, a * 2, w.expand(3, 4)) + m.nn.functional.multi_margin_loss(a, m.tensor([0, 3, 1], device=a.device)), [(3, 4), (4,)]),
    'ctc': (lambda m, a, w: m.nn.functional.ctc_loss(a.reshape(3, 1, 4).log_softmax(2), m.tensor([[1, 2]], device=a.device), [3], [2]) * w.sum(), [(3, 4), (4,)]),
    'bilinear_bag': (lambda m, a, w: m.nn.functional.bilinear(a, a, w.reshape(1, 2, 2).expand(1, 2, 2).repeat(1, 2, 2)).sum() + m.nn.functional.embedding_bag(
        m.tensor([0, 2, 1], device=a.device), a, m.tensor([0, 1], device=a.device)).sum(), [(3, 4), (4,)]),
}

@pytest.mark.parametrize('name', DEVICE_CASES)
def test_new_functions_on_a_virtual_device(name):
    "Outputs and gradients stay on the inputs' device (a virtual CPU device here; CUDA where a GPU is present)."
    fn, shapes = DEVICE_CASES[name]
    check_op(fn, shapes, device='cpu:1', atol=1e-5)
