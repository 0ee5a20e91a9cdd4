"""The spatial layers against PyTorch: convolution and transposed convolution, padding, pooling, interpolation,
pixel/channel shuffle and fold/unfold. Forward values and input gradients on seeded random inputs for every
option, float64 gradcheck (and gradgradcheck) of every new op, the layers' state_dict keys and repr, and the
error types for bad arguments."""
import itertools, warnings
import numpy as np
import pytest
import torch
import torch.nn.functional as TF
import lit_torch as lt
import lit_torch.nn.functional as LF
from op_helpers import check_op, check_gradcheck, check_same_error, make_inputs

def F(m): return TF if m is torch else LF

def layer_pair(make):
    "The same layer in both libraries, lit_torch's loaded with torch's state."
    torch.manual_seed(0)
    t, l = make(torch), make(lt)
    sd = t.state_dict()
    assert list(l.state_dict()) == list(sd)
    l.load_state_dict({k: lt.tensor(v.numpy()) for k, v in sd.items()})
    assert repr(l) == repr(t)
    return t, l

def check_layer(make, shape, *extra, atol=1e-5, grad_atol=1e-4, call=None):
    "Forward, input gradient and parameter gradients of one layer against torch."
    t, l = layer_pair(make)
    a = make_inputs([shape], seed=3)[0]
    tx, lx = torch.tensor(a, requires_grad=True), lt.tensor(a, requires_grad=True)
    call = call or (lambda m, x: m(x, *extra))
    ty, ly = call(t, tx), call(l, lx)
    ty, ly = (ty[0], ly[0]) if isinstance(ty, tuple) else (ty, ly)
    assert tuple(ly.shape) == tuple(ty.shape)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), atol=atol, rtol=1e-5)
    w = np.random.default_rng(1).standard_normal(tuple(ty.shape)).astype(np.float32)
    (ty * torch.tensor(w)).sum().backward(); (ly * lt.tensor(w)).sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), atol=grad_atol, rtol=1e-4)
    for (n, pt), (_, pl) in zip(t.named_parameters(), l.named_parameters()):
        np.testing.assert_allclose(pl.grad.numpy(), pt.grad.numpy(), atol=grad_atol, rtol=1e-4, err_msg=n)

# ================================================================ convolution
CONVT = [dict(), dict(stride=2), dict(stride=2, padding=1, output_padding=1), dict(stride=3, padding=2, output_padding=2),
         dict(dilation=2, padding=1), dict(stride=2, dilation=2, output_padding=1), dict(groups=2), dict(groups=2, stride=2, padding=1)]

@pytest.mark.parametrize('kw', CONVT, ids=str)
@pytest.mark.parametrize('nd', [1, 2, 3])
@pytest.mark.parametrize('bias', [True, False])
def test_conv_transpose(kw, nd, bias):
    g = kw.get('groups', 1)
    x, w = (2, 4) + (4, 5, 3)[:nd], (4, 6 // g) + (3, 2, 3)[:nd]
    fn = getattr(TF, f'conv_transpose{nd}d').__name__
    check_op(lambda m, x, w, *b: getattr(F(m), fn)(x, w, *b, **kw), [x, w] + ([(6,)] if bias else []), atol=1e-4, grad_atol=1e-3)

@pytest.mark.parametrize('nd', [1, 2, 3])
def test_conv_transpose_unbatched(nd):
    check_op(lambda m, x, w: getattr(F(m), f'conv_transpose{nd}d')(x, w, stride=2), [(3,) + (4,) * nd, (3, 2) + (2,) * nd], atol=1e-4, grad_atol=1e-3)

def test_conv_transpose_dcgan_shapes():
    check_op(lambda m, x, w: F(m).conv_transpose2d(x, w, stride=2, padding=1), [(4, 16, 4, 4), (16, 8, 4, 4)], atol=1e-4, grad_atol=1e-3)
    check_op(lambda m, x, w: F(m).conv_transpose2d(x, w), [(4, 10, 1, 1), (10, 8, 4, 4)], atol=1e-4, grad_atol=1e-3)

@pytest.mark.parametrize('kw', [dict(stride=2, padding=1, output_padding=1), dict(groups=2, dilation=2)], ids=str)
def test_conv_transpose_gradcheck(kw):
    g = kw.get('groups', 1)
    check_gradcheck(lambda m, x, w, b: F(m).conv_transpose2d(x, w, b, **kw), [(1, 2, 3, 3), (2, 4 // g, 3, 2), (4,)], gradgrad=True)
    check_gradcheck(lambda m, x, w: F(m).conv_transpose1d(x, w, **kw), [(2, 2, 4), (2, 4 // g, 3)], gradgrad=True)

def test_conv3d_gradcheck():
    check_gradcheck(lambda m, x, w, b: F(m).conv3d(x, w, b, stride=(1, 2, 1), padding=1, groups=2), [(1, 2, 3, 4, 3), (2, 1, 2, 2, 2), (2,)], gradgrad=True)

def test_conv_empty_batch():
    for m in (torch, lt):
        assert tuple(F(m).conv2d(m.randn(0, 3, 5, 5), m.randn(4, 3, 3, 3)).shape) == (0, 4, 3, 3)
        assert tuple(F(m).conv_transpose2d(m.randn(0, 3, 5, 5), m.randn(3, 4, 3, 3)).shape) == (0, 4, 7, 7)

def test_conv_transpose_errors():
    r = lambda m, *s: m.randn(*s)
    for fn in [lambda m: F(m).conv_transpose2d(r(m, 2, 5, 4, 4), r(m, 4, 3, 3, 3)),
               lambda m: F(m).conv_transpose2d(r(m, 2, 4, 4, 4), r(m, 4, 3, 3, 3), output_padding=1),
               lambda m: F(m).conv_transpose2d(r(m, 2, 4, 4, 4), r(m, 4, 3, 3, 3), stride=2, output_padding=2),
               lambda m: F(m).conv_transpose2d(r(m, 2, 4, 4, 4), r(m, 4, 3, 3, 3), padding='same'),
               lambda m: F(m).conv_transpose2d(r(m, 2, 4, 4, 4), r(m, 4, 3, 3, 3), groups=3),
               lambda m: F(m).conv_transpose2d(r(m, 2, 4, 4, 4), r(m, 4, 3, 3, 3), r(m, 4)),
               lambda m: F(m).conv_transpose2d(r(m, 2, 4, 4, 4), r(m, 4, 3, 3)),
               lambda m: F(m).conv_transpose2d(r(m, 2, 4, 4, 4), r(m, 4, 3, 3, 3), stride=0),
               lambda m: F(m).conv_transpose2d(r(m, 2, 4, 4, 4), r(m, 4, 3, 3, 3), padding=-1),
               lambda m: F(m).conv_transpose2d(r(m, 2, 4, 4, 4), r(m, 4, 3, 3, 3), output_padding=-1),
               lambda m: F(m).conv_transpose2d(r(m, 2, 4, 4, 4), r(m, 4, 3, 3, 3), stride=(1, 2, 3)),
               lambda m: F(m).conv_transpose2d(r(m, 2, 4), r(m, 4, 3, 3, 3)),
               lambda m: F(m).conv_transpose2d(r(m, 2, 4, 4, 4), r(m, 4, 3, 3, 3, dtype=m.float64)),
               lambda m: F(m).conv_transpose2d(r(m, 2, 4, 1, 1), r(m, 4, 3, 3, 3), padding=2)]:
        check_same_error(fn)

PADDINGS = [dict(padding=1), dict(padding=2), dict(padding='same'), dict(padding='valid'), dict(padding='same', dilation=2)]
@pytest.mark.parametrize('mode', ['zeros', 'reflect', 'replicate', 'circular'])
@pytest.mark.parametrize('kw', PADDINGS, ids=str)
@pytest.mark.parametrize('nd', [1, 2, 3])
def test_conv_layer_padding_modes(mode, kw, nd):
    cls = ['Conv1d', 'Conv2d', 'Conv3d'][nd - 1]
    k = 4 if kw.get('padding') == 'same' and not kw.get('dilation') else 3
    check_layer(lambda m: getattr(m.nn, cls)(4, 6, k, padding_mode=mode, groups=2, **kw), (2, 4) + (7, 6, 5)[:nd], atol=1e-4, grad_atol=1e-3)

@pytest.mark.parametrize('kw', [dict(stride=2), dict(stride=2, padding=1, output_padding=1), dict(groups=2, dilation=2, bias=False)], ids=str)
@pytest.mark.parametrize('nd', [1, 2, 3])
def test_conv_transpose_layers(kw, nd):
    cls = ['ConvTranspose1d', 'ConvTranspose2d', 'ConvTranspose3d'][nd - 1]
    check_layer(lambda m: getattr(m.nn, cls)(4, 6, 3, **kw), (2, 4) + (5, 4, 3)[:nd], atol=1e-4, grad_atol=1e-3)

def test_conv_transpose_output_size():
    for size in ([11, 12], [2, 3, 12, 11], (12, 12)):
        check_layer(lambda m: m.nn.ConvTranspose2d(3, 2, 3, stride=2), (2, 3, 5, 5), call=lambda mod, x: mod(x, output_size=size),
                    atol=1e-4, grad_atol=1e-3)
    check_same_error(lambda m: m.nn.ConvTranspose2d(3, 2, 3, stride=2)(m.randn(1, 3, 5, 5), output_size=[13, 12]))
    check_same_error(lambda m: m.nn.ConvTranspose2d(3, 2, 3, stride=2)(m.randn(1, 3, 5, 5), output_size=[12]))

def test_conv_layer_init_and_attributes():
    for make in [lambda m: m.nn.ConvTranspose2d(8, 4, 3, groups=2), lambda m: m.nn.Conv3d(4, 6, 2)]:
        t, l = make(torch), make(lt)
        assert l.weight.shape == t.weight.shape
        bound = float(t.weight.abs().max())
        assert float(l.weight.abs().max()) <= bound * 1.05 + 1e-3  # same U(-b, b) range
        for a in ('in_channels', 'out_channels', 'kernel_size', 'stride', 'padding', 'dilation', 'transposed', 'output_padding',
                  'groups', 'padding_mode', '_reversed_padding_repeated_twice'):
            assert tuple(np.ravel(getattr(l, a))) == tuple(np.ravel(getattr(t, a))), a

def test_conv_layer_errors():
    for fn in [lambda m: m.nn.Conv2d(3, 4, 3, padding_mode='foo'), lambda m: m.nn.Conv2d(3, 4, 3, stride=2, padding='same'),
               lambda m: m.nn.Conv2d(3, 4, 3, padding='full'), lambda m: m.nn.ConvTranspose2d(3, 4, 3, padding_mode='reflect'),
               lambda m: m.nn.Conv2d(4, 6, 3, groups=4), lambda m: m.nn.ConvTranspose1d(3, 4, 3, groups=0)]:
        check_same_error(fn)

# ================================================================ padding
PADS = {1: [(1, 2), (0, 3), (-1, 2), (2, -1), (-2, -1)], 2: [(1, 1, 2, 0), (2, 1, -1, 2), (0, 0, 1, 1)],
        3: [(1, 0, 1, 2, 0, 1), (-1, 1, 1, 0, 2, -1)]}

@pytest.mark.parametrize('mode', ['constant', 'reflect', 'replicate', 'circular'])
@pytest.mark.parametrize('nd,pad', [(nd, p) for nd, ps in PADS.items() for p in ps], ids=str)
@pytest.mark.parametrize('batched', [True, False])
def test_pad(mode, nd, pad, batched):
    shape = ((2,) if batched else ()) + (3,) + (4, 5, 3)[:nd]
    check_op(lambda m, x: F(m).pad(x, pad, mode=mode), [shape])

def test_pad_constant_any_dims_and_values():
    check_op(lambda m, x: F(m).pad(x, (1, 2, 0, 1, 2, 0, 1, 1), value=2.5), [(2, 3, 4, 5)])
    check_op(lambda m, x: F(m).pad(x, (1, -2)), [(5,)])
    for m in (torch, lt):
        assert F(m).pad(m.tensor([1, 2]), (1, 1), value=2.7).tolist() == [2, 1, 2, 2]
        assert F(m).pad(m.tensor([True]), (1, 0), value=1).tolist() == [True, True]

@pytest.mark.parametrize('mode', ['constant', 'reflect', 'replicate', 'circular'])
def test_pad_gradcheck(mode):
    check_gradcheck(lambda m, x: F(m).pad(x, (2, 1, -1, 2), mode=mode), [(2, 3, 4)], gradgrad=True)

def test_pad_errors():
    x = lambda m: m.arange(12.).reshape(1, 2, 6)
    for fn in [lambda m: F(m).pad(x(m), (1,)), lambda m: F(m).pad(x(m), (1,) * 8), lambda m: F(m).pad(x(m), (1, 1), mode='wrap'),
               lambda m: F(m).pad(x(m), (1, 1), mode='reflect', value=2.), lambda m: F(m).pad(m.zeros(6), (1, 1), mode='reflect'),
               lambda m: F(m).pad(x(m), (6, 0), mode='reflect'), lambda m: F(m).pad(x(m), (7, 0), mode='circular'),
               lambda m: F(m).pad(x(m), (-4, -3)), lambda m: F(m).pad(x(m), [1.5, 1]),
               lambda m: F(m).pad(m.zeros(1, 2, 0), (1, 1), mode='replicate'), lambda m: F(m).pad(m.zeros(2, 3), (1,) * 6, mode='circular')]:
        check_same_error(fn)

PAD_LAYERS = [('ZeroPad', ()), ('ConstantPad', (1.5,)), ('ReflectionPad', ()), ('ReplicationPad', ()), ('CircularPad', ())]
@pytest.mark.parametrize('name,extra', PAD_LAYERS, ids=[n for n, _ in PAD_LAYERS])
@pytest.mark.parametrize('nd', [1, 2, 3])
@pytest.mark.parametrize('padding', [2, 'tuple'])
def test_pad_layers(name, extra, nd, padding):
    p = tuple(range(1, 2 * nd + 1)) if padding == 'tuple' else padding
    if name in ('ReflectionPad', 'CircularPad') and padding == 'tuple': p = tuple(min(v, 2) for v in p)
    check_layer(lambda m: getattr(m.nn, f'{name}{nd}d')(p, *extra), (2, 3) + (4, 5, 3)[:nd])

def test_circular_pad_layer_checks_dims():
    check_same_error(lambda m: m.nn.CircularPad2d(1)(m.randn(3, 3)))

# ================================================================ pooling
MAXPOOL = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=3, stride=2, ceil_mode=True),
           dict(kernel_size=2, stride=1, dilation=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)]

@pytest.mark.parametrize('kw', MAXPOOL, ids=str)
@pytest.mark.parametrize('nd', [1, 2, 3])
@pytest.mark.parametrize('return_indices', [False, True])
def test_max_pool(kw, nd, return_indices):
    shape = (2, 3) + (9, 8, 7)[:nd]
    check_op(lambda m, x: getattr(F(m), f'max_pool{nd}d')(x, return_indices=return_indices, **kw), [shape])
    check_op(lambda m, x: getattr(F(m), f'max_pool{nd}d_with_indices')(x, **kw), [shape[1:]])

AVGPOOL = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
           dict(kernel_size=3, stride=2, ceil_mode=True), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)]

@pytest.mark.parametrize('kw', AVGPOOL, ids=str)
@pytest.mark.parametrize('nd', [1, 2, 3])
def test_avg_pool(kw, nd):
    shape = (2, 3) + (9, 8, 7)[:nd]
    check_op(lambda m, x: getattr(F(m), f'avg_pool{nd}d')(x, **kw), [shape])
    if nd > 1: check_op(lambda m, x: getattr(F(m), f'avg_pool{nd}d')(x, divisor_override=3, **kw), [shape])

@pytest.mark.parametrize('nd', [1, 2, 3])
def test_pool_gradcheck(nd):
    shape = (1, 2) + (5, 4, 4)[:nd]
    check_gradcheck(lambda m, x: getattr(F(m), f'avg_pool{nd}d')(x, 3, 2, 1, True), [shape], gradgrad=True)
    check_gradcheck(lambda m, x: getattr(F(m), f'max_pool{nd}d')(x, 2, 1), [shape], gradgrad=True)
    check_gradcheck(lambda m, x: getattr(F(m), f'adaptive_max_pool{nd}d')(x, 3), [shape], gradgrad=True)
    check_gradcheck(lambda m, x: getattr(F(m), f'adaptive_avg_pool{nd}d')(x, 3), [shape], gradgrad=True)
    check_gradcheck(lambda m, x: getattr(F(m), f'lp_pool{nd}d')(x, 2, 2), [shape], low=0.5, high=2.0)

ADAPTIVE = {1: [3, 5, (4,), 9], 2: [(3, 4), 1, (None, 2), (5, 5)], 3: [(2, 3, 2), 1, (None, 3, None)]}
@pytest.mark.parametrize('nd,size', [(nd, s) for nd, ss in ADAPTIVE.items() for s in ss], ids=str)
@pytest.mark.parametrize('kind', ['max', 'avg'])
def test_adaptive_pool(nd, size, kind):
    shape = (2, 3) + (9, 7, 5)[:nd]
    kw = dict(return_indices=True) if kind == 'max' else {}
    check_op(lambda m, x: getattr(F(m), f'adaptive_{kind}_pool{nd}d')(x, size, **kw), [shape])
    check_op(lambda m, x: getattr(F(m), f'adaptive_{kind}_pool{nd}d')(x, size, **kw), [shape[1:]])

def test_max_pool_ties_and_nans():
    a = np.array([[[1., 3., 3., 0.], [3., np.nan, 2., np.nan], [0., 0., 0., 0.]]], np.float32)
    for fn in [lambda m, x: F(m).adaptive_max_pool2d(x, (2, 2), return_indices=True),
               lambda m, x: F(m).adaptive_max_pool1d(x, 3, return_indices=True),
               lambda m, x: F(m).fractional_max_pool2d(x, 2, output_size=(2, 2), return_indices=True, _random_samples=m.tensor([[[0.3, 0.6]]]))]:
        t, l = fn(torch, torch.tensor(a)), fn(lt, lt.tensor(a))
        np.testing.assert_array_equal(l[1].numpy(), t[1].numpy())
        np.testing.assert_array_equal(l[0].numpy(), t[0].numpy())

@pytest.mark.parametrize('nd', [2, 3])
@pytest.mark.parametrize('kw', [dict(kernel_size=2, output_size=3), dict(kernel_size=3, output_ratio=(0.5, 0.6, 0.5)), dict(kernel_size=(2, 3, 2), output_size=(4, 3, 4))], ids=str)
def test_fractional_max_pool(nd, kw):
    kw = dict(kw)
    for k in ('output_size', 'output_ratio', 'kernel_size'):
        if isinstance(kw.get(k), tuple): kw[k] = kw[k][:nd]
    shape = (2, 3) + (9, 8, 7)[:nd]
    u = np.random.default_rng(5).uniform(size=(2, 3, nd))
    check_op(lambda m, x: getattr(F(m), f'fractional_max_pool{nd}d')(x, return_indices=True, _random_samples=m.tensor(u, dtype=x.dtype), **kw), [shape])
    check_op(lambda m, x: getattr(F(m), f'fractional_max_pool{nd}d')(x, _random_samples=m.tensor(u[:1], dtype=x.dtype), **kw), [shape[1:]])

def test_fractional_max_pool_random_samples_drawn():
    lt.manual_seed(0)
    y, i = LF.fractional_max_pool2d(lt.randn(2, 3, 9, 9), 2, output_size=4, return_indices=True)
    assert tuple(y.shape) == (2, 3, 4, 4) and i.numpy().max() < 81

@pytest.mark.parametrize('nd', [1, 2, 3])
@pytest.mark.parametrize('kw', [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1)], ids=str)
def test_max_unpool(nd, kw):
    shape = (2, 3) + (8, 6, 4)[:nd]
    def fn(m, x):
        y, i = getattr(F(m), f'max_pool{nd}d')(x, return_indices=True, **kw)
        return getattr(F(m), f'max_unpool{nd}d')(y * 2, i, **kw)
    if kw['kernel_size'] == 2: check_op(fn, [shape])  # the default output size is the pooled input's
    def sized(m, x):
        y, i = getattr(F(m), f'max_pool{nd}d')(x, return_indices=True, **kw)
        return getattr(F(m), f'max_unpool{nd}d')(y, i, output_size=shape[2:], **kw)
    check_op(sized, [shape])

def test_max_unpool_gradcheck():
    x = lt.tensor(make_inputs([(1, 2, 4, 4)], dtype=np.float64)[0])
    _, idx = LF.max_pool2d(x, 2, return_indices=True)
    assert lt.autograd.gradcheck(lambda y: LF.max_unpool2d(y, idx, 2), [lt.randn(1, 2, 2, 2, dtype=lt.float64, requires_grad=True)])
    assert lt.autograd.gradgradcheck(lambda y: LF.max_unpool2d(y, idx, 2), [lt.randn(1, 2, 2, 2, dtype=lt.float64, requires_grad=True)])

@pytest.mark.parametrize('nd', [1, 2, 3])
@pytest.mark.parametrize('norm', [1, 2, 3.5, float('inf')])
@pytest.mark.parametrize('kw', [dict(kernel_size=2), dict(kernel_size=3, stride=2), dict(kernel_size=2, stride=2, ceil_mode=True)], ids=str)
def test_lp_pool(nd, norm, kw):
    shape = (2, 3) + (7, 6, 5)[:nd]
    check_op(lambda m, x: getattr(F(m), f'lp_pool{nd}d')(x, norm, **kw), [shape], low=0.2, high=2.0, atol=1e-4, grad_atol=1e-3)

def test_pool_errors():
    r = lambda m, *s: m.randn(*s)
    for fn in [lambda m: F(m).adaptive_max_pool2d(r(m, 3, 0, 4), 2), lambda m: F(m).adaptive_max_pool2d(r(m, 4, 4), 2),
               lambda m: F(m).adaptive_max_pool1d(r(m, 1, 4, 4), (2, 2)), lambda m: F(m).fractional_max_pool2d(r(m, 1, 5, 5), 3, output_size=4),
               lambda m: F(m).fractional_max_pool2d(r(m, 1, 5, 5), 2), lambda m: F(m).adaptive_max_pool2d(r(m, 1, 4, 4).long(), 2),
               lambda m: F(m).max_unpool2d(r(m, 1, 1, 2, 2), m.tensor([[[[0, 1], [2, 9]]]]), 2, output_size=(3, 3)),
               lambda m: F(m).max_unpool2d(r(m, 1, 1, 2, 2), m.tensor([[[[0, 1], [2, 3.]]]]), 2),
               lambda m: F(m).max_unpool2d(r(m, 1, 1, 2, 2), m.tensor([[[[0, 1], [2, 3]]]]), 2, output_size=(1, 1)),
               lambda m: F(m).max_pool3d(r(m, 2, 2), 2), lambda m: F(m).avg_pool3d(r(m, 1, 2, 3, 3, 3), 2, padding=2),
               lambda m: F(m).avg_pool2d(r(m, 1, 4, 4), 2, divisor_override=0),
               lambda m: m.nn.FractionalMaxPool2d(2), lambda m: m.nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5),
               lambda m: m.nn.FractionalMaxPool3d(2, output_ratio=1.5)]:
        check_same_error(fn)

POOL_LAYERS = [('MaxPool{}d', (3,), dict(stride=2, padding=1, ceil_mode=True)), ('MaxPool{}d', (2,), dict(dilation=2, stride=1)),
               ('AvgPool{}d', (3,), dict(stride=2, padding=1, count_include_pad=False)), ('AvgPool{}d', (2,), dict(ceil_mode=True)),
               ('LPPool{}d', (2, 2), dict()), ('LPPool{}d', (1, 3), dict(stride=2)), ('AdaptiveMaxPool{}d', (3,), dict()),
               ('AdaptiveAvgPool{}d', (3,), dict())]
@pytest.mark.parametrize('name,args,kw', POOL_LAYERS, ids=lambda v: str(v))
@pytest.mark.parametrize('nd', [1, 2, 3])
def test_pool_layers(name, args, kw, nd):
    check_layer(lambda m: getattr(m.nn, name.format(nd))(*args, **kw), (2, 3) + (8, 7, 6)[:nd])

@pytest.mark.parametrize('nd', [2, 3])
def test_avg_pool_divisor_override_layer(nd):
    check_layer(lambda m: getattr(m.nn, f'AvgPool{nd}d')(2, divisor_override=3), (2, 3) + (8, 7, 6)[:nd])

@pytest.mark.parametrize('nd', [1, 2, 3])
def test_unpool_layers(nd):
    x = make_inputs([(2, 3) + (8, 6, 4)[:nd]])[0]
    t, l = layer_pair(lambda m: getattr(m.nn, f'MaxUnpool{nd}d')(2))
    tp, lp = getattr(torch.nn, f'MaxPool{nd}d')(2, return_indices=True), getattr(lt.nn, f'MaxPool{nd}d')(2, return_indices=True)
    np.testing.assert_array_equal(l(*lp(lt.tensor(x))).numpy(), t(*tp(torch.tensor(x))).numpy())

@pytest.mark.parametrize('nd', [2, 3])
def test_fractional_layers(nd):
    u = np.random.default_rng(2).uniform(size=(2, 3, nd)).astype(np.float32)
    check_layer(lambda m: getattr(m.nn, f'FractionalMaxPool{nd}d')(2, output_ratio=0.5, _random_samples=m.tensor(u)), (2, 3) + (8, 7, 6)[:nd])

# ================================================================ interpolation
MODES = {3: ['nearest', 'nearest-exact', 'linear', 'area'], 4: ['nearest', 'nearest-exact', 'bilinear', 'bicubic', 'area'],
         5: ['nearest', 'nearest-exact', 'trilinear', 'area']}
SIZES = [dict(scale_factor=2), dict(scale_factor=1.7), dict(scale_factor=0.6), dict(scale_factor=0.6, recompute_scale_factor=True),
         dict(size='up'), dict(size='down'), dict(scale_factor='per_dim')]

# align_corners only with the interpolating modes (elsewhere it is an error: test_interpolate_errors)
INTERP = [(d, m, ac) for d, ms in MODES.items() for m in ms
          for ac in ([None, True, False] if m in ('linear', 'bilinear', 'bicubic', 'trilinear') else [None])]

@pytest.mark.parametrize('ndim,mode,align_corners', INTERP, ids=str)
@pytest.mark.parametrize('kw', SIZES, ids=str)
def test_interpolate(ndim, mode, kw, align_corners):
    shape = (2, 3) + (7, 5, 6)[:ndim - 2]
    kw = dict(kw)
    if kw.get('size') == 'up': kw['size'] = (11, 9, 8)[:ndim - 2]
    if kw.get('size') == 'down': kw['size'] = (4, 3, 2)[:ndim - 2]
    if kw.get('scale_factor') == 'per_dim': kw['scale_factor'] = (1.5, 2.25, 0.5)[:ndim - 2]
    ac = {} if align_corners is None else dict(align_corners=align_corners)
    check_op(lambda m, x: F(m).interpolate(x, mode=mode, **kw, **ac), [shape], atol=1e-5, grad_atol=1e-4)

AA_SIZES = [dict(size=(4, 3)), dict(scale_factor=0.3), dict(scale_factor=0.45, recompute_scale_factor=True), dict(size=(11, 13)),
            dict(size=(5, 4), align_corners=True)]
# lanczos refuses align_corners=True (test_interpolate_errors)
@pytest.mark.parametrize('mode,kw', [(m, kw) for m in ('bilinear', 'bicubic', 'lanczos') for kw in AA_SIZES
                                     if not (m == 'lanczos' and kw.get('align_corners'))], ids=str)
def test_interpolate_antialias(mode, kw):
    check_op(lambda m, x: F(m).interpolate(x, mode=mode, antialias=True, **kw), [(2, 3, 13, 10)])

def test_interpolate_antialias_gradcheck():
    check_gradcheck(lambda m, x: F(m).interpolate(x, size=(2, 3), mode='bicubic', antialias=True), [(1, 1, 5, 7)], gradgrad=True)

def test_interpolate_float64_nearest_rounding():
    x = np.random.default_rng(0).standard_normal((1, 2, 13, 7))
    for kw in [dict(scale_factor=1 / 3), dict(size=(29, 3)), dict(scale_factor=2.9)]:
        for mode in ('nearest', 'nearest-exact'):
            np.testing.assert_array_equal(LF.interpolate(lt.tensor(x), mode=mode, **kw).numpy(), TF.interpolate(torch.tensor(x), mode=mode, **kw).numpy())

@pytest.mark.parametrize('mode', ['nearest', 'linear', 'bicubic'])
def test_interpolate_gradcheck(mode):
    shape = (1, 2, 4) if mode != 'bicubic' else (1, 2, 4, 3)
    check_gradcheck(lambda m, x: F(m).interpolate(x, scale_factor=1.5, mode=mode), [shape], gradgrad=True)
    check_gradcheck(lambda m, x: F(m).interpolate(x, size=(3,) * (len(shape) - 2), mode='area'), [shape], gradgrad=True)

def test_interpolate_errors():
    x = lambda m: m.randn(1, 2, 4, 4)
    for fn in [lambda m: F(m).interpolate(x(m)), lambda m: F(m).interpolate(x(m), size=3, scale_factor=2),
               lambda m: F(m).interpolate(x(m), size=(3, 3, 3)), lambda m: F(m).interpolate(x(m), scale_factor=(2, 2, 2)),
               lambda m: F(m).interpolate(x(m), size=(3.5, 2)), lambda m: F(m).interpolate(x(m), scale_factor=2, align_corners=True),
               lambda m: F(m).interpolate(x(m), scale_factor=2, mode='linear'), lambda m: F(m).interpolate(x(m), scale_factor=2, mode='trilinear'),
               lambda m: F(m).interpolate(m.randn(1, 2, 4), scale_factor=2, mode='bicubic'),
               lambda m: F(m).interpolate(x(m), scale_factor=2, mode='cubic'), lambda m: F(m).interpolate(x(m), size=3, recompute_scale_factor=True),
               lambda m: F(m).interpolate(m.randn(1, 2, 4), scale_factor=2, mode='linear', antialias=True),
               lambda m: F(m).interpolate(x(m), scale_factor=0.5, mode='lanczos'),
               lambda m: F(m).interpolate(x(m), scale_factor=0.5, mode='lanczos', antialias=True, align_corners=True)]:
        check_same_error(fn)

@pytest.mark.parametrize('make', [lambda m: m.nn.Upsample(scale_factor=2), lambda m: m.nn.Upsample(size=(5, 7), mode='bilinear'),
                                  lambda m: m.nn.Upsample(scale_factor=(1.5, 2), mode='bicubic', align_corners=True),
                                  lambda m: m.nn.UpsamplingNearest2d(scale_factor=3), lambda m: m.nn.UpsamplingBilinear2d(size=6)])
def test_upsample_layers(make):
    check_layer(make, (2, 3, 4, 5))

def test_deprecated_upsample_functions():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check_op(lambda m, x: F(m).upsample(x, scale_factor=2, mode='bilinear'), [(1, 2, 3, 4)])
        check_op(lambda m, x: F(m).upsample_nearest(x, size=5), [(1, 2, 3, 4)])
        check_op(lambda m, x: F(m).upsample_bilinear(x, scale_factor=2), [(1, 2, 3, 4)])

# ================================================================ pixel / channel shuffle, fold / unfold
@pytest.mark.parametrize('shape,r', [((2, 8, 3, 4), 2), ((9, 2, 2), 3), ((2, 3, 4, 2, 5), 2), ((1, 5, 3, 3), 1)])
def test_pixel_shuffle(shape, r):
    check_op(lambda m, x: F(m).pixel_shuffle(x, r), [shape])
    up = shape[:-3] + (shape[-3] // (r * r), shape[-2] * r, shape[-1] * r)
    check_op(lambda m, x: F(m).pixel_unshuffle(x, r), [up])

def test_shuffle_gradcheck():
    check_gradcheck(lambda m, x: F(m).pixel_shuffle(x, 2), [(1, 4, 2, 3)], gradgrad=True)
    check_gradcheck(lambda m, x: F(m).channel_shuffle(x, 3), [(2, 6, 2)], gradgrad=True)

@pytest.mark.parametrize('shape,g', [((2, 6, 3, 4), 2), ((2, 6, 3), 3), ((4, 2, 2), 2), ((1, 8, 2, 1, 2), 4)])
def test_channel_shuffle(shape, g):
    check_op(lambda m, x: F(m).channel_shuffle(x, g), [shape])
    check_op(lambda m, x: F(m).native_channel_shuffle(x, g), [shape], requires_grad=False)  # torch has no derivative for it

def test_shuffle_errors():
    r = lambda m, *s: m.randn(*s)
    for fn in [lambda m: F(m).pixel_shuffle(r(m, 4, 4), 2), lambda m: F(m).pixel_shuffle(r(m, 1, 5, 2, 2), 2),
               lambda m: F(m).pixel_shuffle(r(m, 1, 4, 2, 2), 0), lambda m: F(m).pixel_unshuffle(r(m, 1, 1, 5, 4), 2),
               lambda m: F(m).pixel_unshuffle(r(m, 1, 1, 4, 5), 2), lambda m: F(m).channel_shuffle(r(m, 4, 4), 2),
               lambda m: F(m).channel_shuffle(r(m, 1, 5, 2, 2), 2), lambda m: F(m).channel_shuffle(r(m, 1, 4, 2, 2), 0)]:
        check_same_error(fn)

@pytest.mark.parametrize('layer', [lambda m: m.nn.PixelShuffle(2), lambda m: m.nn.PixelUnshuffle(2), lambda m: m.nn.ChannelShuffle(4)])
def test_shuffle_layers(layer):
    check_layer(layer, (2, 8, 4, 6))

FOLD = [dict(kernel_size=2), dict(kernel_size=(2, 3), stride=2), dict(kernel_size=3, padding=1), dict(kernel_size=2, dilation=2),
        dict(kernel_size=(3, 2), dilation=(1, 2), padding=(1, 0), stride=(2, 1))]

@pytest.mark.parametrize('kw', FOLD, ids=str)
@pytest.mark.parametrize('batched', [True, False])
def test_unfold_fold(kw, batched):
    shape = ((2,) if batched else ()) + (3, 7, 8)
    check_op(lambda m, x: F(m).unfold(x, **kw), [shape])
    cols = TF.unfold(torch.zeros(shape), **kw).shape
    check_op(lambda m, x: F(m).fold(x, (7, 8), **kw), [tuple(cols)])

def test_fold_gradcheck():
    check_gradcheck(lambda m, x: F(m).unfold(x, 2, padding=1, stride=2), [(1, 2, 3, 4)], gradgrad=True)
    check_gradcheck(lambda m, x: F(m).fold(x, (3, 4), 2), [(1, 8, 6)], gradgrad=True)

def test_fold_errors():
    r = lambda m, *s: m.randn(*s)
    for fn in [lambda m: F(m).unfold(r(m, 1, 2, 3, 3, 3), 2), lambda m: F(m).unfold(r(m, 1, 2, 3, 3), 4),
               lambda m: F(m).fold(r(m, 1, 8, 5), (3, 3), 2), lambda m: F(m).fold(r(m, 1, 7, 4), (3, 3), 2),
               lambda m: F(m).fold(r(m, 1, 2, 8, 4), (3, 3), 2), lambda m: F(m).unfold(r(m, 1, 2, 3, 3), 2, stride=0),
               lambda m: F(m).unfold(r(m, 1, 2, 3, 3), 2, padding=-1), lambda m: F(m).unfold(r(m, 1, 2, 3, 3), (2, 2, 2)),
               lambda m: F(m).unfold(r(m, 3, 3), 2), lambda m: F(m).unfold(r(m, 1, 2, 3, 3).long(), 2)]:
        check_same_error(fn)

@pytest.mark.parametrize('layer,shape', [(lambda m: m.nn.Unfold((2, 3), padding=1, stride=2), (2, 3, 6, 7)),
                                         (lambda m: m.nn.Fold((4, 5), 2), (2, 12, 12)), (lambda m: m.nn.Fold(5, 3, padding=1, stride=2), (1, 18, 9))])
def test_fold_layers(layer, shape):
    check_layer(layer, shape)

# ================================================================ the class hierarchy
SPATIAL = ['conv', 'pooling', 'padding', 'upsampling', 'pixelshuffle', 'fold', 'channelshuffle']

@pytest.mark.parametrize('mod', SPATIAL)
def test_isinstance_hierarchy_like_torch(mod):
    "isinstance between the spatial layers answers as in torch (AvgPool3d is no AvgPool2d, ZeroPad2d is a ConstantPad2d)."
    import importlib
    tm, lm = importlib.import_module(f'torch.nn.modules.{mod}'), importlib.import_module(f'lit_torch.nn.modules.{mod}')
    names = [n for n in tm.__all__ if hasattr(lm, n)]
    assert names
    bases = {'_ConvNd', '_ConvTransposeNd', '_MaxPoolNd', '_AvgPoolNd', '_ConstantPadNd', '_ReflectionPadNd', '_ReplicationPadNd',
             '_CircularPadNd', '_AdaptiveAvgPoolNd', '_AdaptiveMaxPoolNd', '_LPPoolNd', '_MaxUnpoolNd'}
    shared = lambda cls: [c.__name__ for c in cls.__mro__ if c.__name__ in names or c.__name__ in bases]
    for n in names: assert shared(getattr(lm, n)) == shared(getattr(tm, n)), n
