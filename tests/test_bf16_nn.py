"""bfloat16 through nn.functional against torch: convolution, pooling, normalization, interpolation, losses.

NumPy holds bfloat16 as ml_dtypes' type (dtype kind 'V'): checks for kind 'f' refused it, its matrix products come back in
float32, and its sums add in bfloat16 (1,000 ones: 256). torch's CPU kernels compute in float32 and round once, except
where a kernel rounds on the way (batch norm's statistics, adaptive_avg_pool3d's window sums, conv_transpose's slow path,
log_softmax over a last axis, the interpolation weights); these tests hold lit_torch to torch's values and dtypes."""
import warnings
import numpy as np
import pytest
import torch
import torch.nn.functional as TF
import lit_torch as lt
import lit_torch.nn.functional as LF

RTOL, ATOL = 1.6e-2, 1e-5  # torch.testing's bfloat16 tolerance


def arrays(*shapes, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(s) * scale).astype(np.float32) for s in shapes]


def both(*arrs):
    "The arrays as bfloat16 tensors of torch and of lit_torch (the same rounded values)."
    return [torch.tensor(a).bfloat16() for a in arrs], [lt.tensor(a).to(lt.bfloat16) for a in arrs]


def same(l, t, exact=False, cancels=False):
    "Same dtype and values; `cancels`: a gradient made of differences, its small entries held to bfloat16's step at its largest."
    if isinstance(t, (tuple, list)):
        for a, b in zip(l, t): same(a, b, exact, cancels)
        return
    assert str(l.dtype).split('.')[-1] == str(t.dtype).split('.')[-1], (l.dtype, t.dtype)
    l, t = l.detach(), t.detach()
    lv, tv = l.float().numpy() if l.dtype == lt.bfloat16 else l.numpy(), t.float().numpy() if t.dtype == torch.bfloat16 else t.numpy()
    assert lv.shape == tv.shape
    if exact: np.testing.assert_array_equal(lv, tv)
    else: np.testing.assert_allclose(lv, tv, rtol=RTOL, atol=max(ATOL, 2 ** -8 * np.abs(tv).max()) if cancels else ATOL)


def run(f, *shapes, seed=0, scale=1.0, exact=False, **kw):
    (ts, ls) = both(*arrays(*shapes, seed=seed, scale=scale))
    same(f(LF, *ls, **kw), f(TF, *ts, **kw), exact)

# ---------------------------------------------------------------- convolution and linear


@pytest.mark.parametrize('nd', [1, 2, 3])
def test_conv_is_bfloat16_rounded_once(nd):
    "The products come back from NumPy in float32; the output must be bfloat16 (the bias added before the rounding)."
    x, w, b = (2, 3) + (6,) * nd, (4, 3) + (3,) * nd, (4,)
    conv = lambda F, x, w, b: getattr(F, f'conv{nd}d')(x, w, b, stride=2, padding=1)
    run(conv, x, w, b, seed=nd)


@pytest.mark.parametrize('nd', [1, 2, 3])
def test_conv_transpose_bfloat16(nd):
    "oneDNN's path (output_padding < stride): float32 sums, one rounding."
    conv = lambda F, x, w, b: getattr(F, f'conv_transpose{nd}d')(x, w, b, stride=2, padding=1, output_padding=1)
    run(conv, (2, 3) + (4,) * nd, (3, 2) + (3,) * nd, (2,), seed=nd)


@pytest.mark.parametrize('nd', [2, 3])
def test_conv_transpose_slow_path_adds_in_bfloat16(nd):
    "output_padding >= stride: PyTorch's own kernel rounds the columns and adds the overlaps in bfloat16, then the bias."
    kw = dict(stride=(3, 2, 1)[:nd], padding=(1, 2, 3)[:nd], output_padding=(2, 3, 1)[:nd], groups=2, dilation=4)
    conv = lambda F, x, w, b: getattr(F, f'conv_transpose{nd}d')(x, w, b, **kw)
    run(conv, (2, 2) + (4,) * nd, (2, 2) + (4, 5, 6)[:nd], (4,), seed=7)


def test_conv_transpose_sums_one_stamp_at_a_time():
    x = ones = np.ones((1, 1, 5), np.float32)
    w = np.array([[[1., 2 ** -8, 2 ** -8]]], np.float32)  # three taps 2 apart: output 4 sums 1 + 2⁻⁸ + 2⁻⁸
    (tx, tw), (lx, lw) = both(x, w)
    for op in (0, 1):
        same(LF.conv_transpose1d(lx, lw, dilation=2, output_padding=op), TF.conv_transpose1d(tx, tw, dilation=2, output_padding=op), exact=True)


def test_conv_backward_bfloat16():
    (tx, tw, tb, tg), (lx, lw, lb, lg) = both(*arrays((2, 3, 7, 7), (4, 3, 3, 3), (4,), (2, 4, 7, 7), seed=3))
    for t in (tx, tw, tb, lx, lw, lb): t.requires_grad_()
    ty, ly = TF.conv2d(tx, tw, tb, padding=1), LF.conv2d(lx, lw, lb, padding=1)
    same(ly, ty)
    (ty * tg).sum().backward(); (ly * lg).sum().backward()
    same([lx.grad, lw.grad, lb.grad], [tx.grad, tw.grad, tb.grad], cancels=True)


def test_linear_adds_the_bias_before_rounding():
    (tx, tw, tb), (lx, lw, lb) = both(np.array([[1., 1.]], np.float32), np.array([[1., 2 ** -8]], np.float32), np.array([2 ** -8], np.float32))
    same(LF.linear(lx, lw, lb), TF.linear(tx, tw, tb), exact=True)  # 1 + 2⁻⁷, where rounding the product first gives 1
    run(lambda F, x, w, b: F.linear(x, w, b), (2, 3, 5), (4, 5), (4,), seed=4)


def test_unfold_bfloat16():
    run(lambda F, x: F.unfold(x, 3, padding=1, stride=2), (2, 3, 6, 5), exact=True)
    run(lambda F, x: F.fold(x, (4, 5), 2), (2, 3 * 4, 12), seed=1)

# ---------------------------------------------------------------- pooling


def test_avg_pool_adds_in_float32():
    (t,), (l,) = both(np.ones((1, 1, 1000), np.float32))
    same(LF.avg_pool1d(l, 1000), TF.avg_pool1d(t, 1000), exact=True)  # 1, where bfloat16 sums stop at 256
    run(lambda F, x: F.avg_pool1d(x, 3), (2, 3, 9), seed=1)
    run(lambda F, x: F.avg_pool2d(x, 3, 1, 1, True, False, 2), (1, 3, 9, 9), seed=2)


@pytest.mark.parametrize('nd', [1, 2, 3])
def test_max_pool_bfloat16(nd):
    pool = lambda F, x: getattr(F, f'max_pool{nd}d')(x, 3, stride=2, ceil_mode=True, return_indices=True)
    run(pool, (2, 3) + (7,) * nd, seed=nd, exact=True)


@pytest.mark.parametrize('nd', [1, 2, 3])
def test_adaptive_max_pool_bfloat16(nd):
    run(lambda F, x: getattr(F, f'adaptive_max_pool{nd}d')(x, (3, 2, 4)[:nd], return_indices=True), (2, 3) + (7,) * nd, seed=nd, exact=True)


def test_adaptive_avg_pool2d_averages_in_float32():
    run(lambda F, x: F.adaptive_avg_pool2d(x, (5, 7)), (1, 8, 8, 8), seed=5)
    (t,), (l,) = both(np.ones((1, 1, 3, 700), np.float32))
    same(LF.adaptive_avg_pool2d(l, (1, 2)), TF.adaptive_avg_pool2d(t, (1, 2)), exact=True)


@pytest.mark.parametrize('shape,size', [((2, 3, 8, 8, 8), (5, 7, 4)), ((3, 8, 8, 6), (5, None, 2)), ((2, 3, 4, 4, 4), (5, 5, 5)), ((2, 2, 5, 5, 5), (1, 1, 1))])
def test_adaptive_avg_pool3d_adds_windows_in_bfloat16(shape, size):
    "PyTorch's 3-d kernel adds each window in bfloat16, in order, then divides three times (a (1, 1, 1) output is a mean)."
    run(lambda F, x: F.adaptive_avg_pool3d(x, size), shape, seed=len(shape), exact=True)

# ---------------------------------------------------------------- normalization


def test_layer_norm_bfloat16():
    run(lambda F, x, w, b: F.layer_norm(x, (4, 50), w, b, eps=0.5), (3, 4, 50), (4, 50), (4, 50), seed=1)
    (t, tg), (l, lg) = both(*arrays((4, 300), (4, 300), seed=2))
    for x in (t, l): x.requires_grad_()
    (TF.layer_norm(t + 3, (300,)) * tg).sum().backward(); (LF.layer_norm(l + 3, (300,)) * lg).sum().backward()
    same(l.grad, t.grad, cancels=True)


def test_group_norm_bfloat16():
    run(lambda F, x, w, b: F.group_norm(x, 2, w, b, eps=0.5), (2, 6, 40), (6,), (6,), seed=3)


@pytest.mark.parametrize('training', [True, False])
@pytest.mark.parametrize('shape', [(5, 5, 5), (3, 2, 4), (8, 3, 17, 9)])
def test_batch_norm_as_pytorch_rounds(shape, training):
    "Statistics kept in bfloat16 and buffers updated in bfloat16 arithmetic, as PyTorch's kernel: output and buffers equal."
    C = shape[1]
    x, w, b, rm = arrays(shape, (C,), (C,), (C,), seed=sum(shape))
    rv = np.random.default_rng(1).random(C).astype(np.float32) + 0.5
    (tx, tw, tb, trm, trv), (lx, lw, lb, lrm, lrv) = both(x, w, b, rm, rv)
    kw = dict(training=training, momentum=0.5, eps=0.6)
    same(LF.batch_norm(lx, lrm, lrv, lw, lb, **kw), TF.batch_norm(tx, trm, trv, tw, tb, **kw), exact=True)
    same([lrm, lrv], [trm, trv], exact=True)


def test_batch_norm_backward_bfloat16():
    (tx, tw, tb), (lx, lw, lb) = both(*arrays((6, 3, 5, 5), (3,), (3,), seed=9))
    for t in (tx, tw, tb, lx, lw, lb): t.requires_grad_()
    TF.batch_norm(tx, None, None, tw, tb, training=True).pow(2).sum().backward()
    LF.batch_norm(lx, None, None, lw, lb, training=True).pow(2).sum().backward()
    same([lx.grad, lw.grad, lb.grad], [tx.grad, tw.grad, tb.grad])


def test_instance_norm_bfloat16():
    x, w, b, rm = arrays((3, 2, 3, 4), (2,), (2,), (2,), seed=11)
    rv = np.random.default_rng(2).random(2).astype(np.float32) + 0.5
    (tx, tw, tb, trm, trv), (lx, lw, lb, lrm, lrv) = both(x, w, b, rm, rv)
    same(LF.instance_norm(lx, lrm, lrv, lw, lb, momentum=-1.0, eps=0.5), TF.instance_norm(tx, trm, trv, tw, tb, momentum=-1.0, eps=0.5))
    same([lrm, lrv], [trm, trv])

# ---------------------------------------------------------------- interpolation


@pytest.mark.parametrize('mode,shape', [('linear', (2, 3, 4)), ('bilinear', (2, 3, 4, 4)), ('bicubic', (2, 3, 4, 4)), ('trilinear', (2, 3, 4, 4, 4)), ('area', (2, 3, 4, 4, 4))])
@pytest.mark.parametrize('kw', [dict(scale_factor=1.7), dict(scale_factor=0.6), dict(size=5)])
def test_interpolate_bfloat16(mode, shape, kw):
    "The weights as each mode's kernel keeps them (bfloat16, a linear pair as 1 - λ of the rounded λ; bilinear's float32)."
    for ac in ((False, True) if mode != 'area' else (None,)):
        run(lambda F, x: F.interpolate(x, mode=mode, align_corners=ac, **kw), shape, seed=len(shape))


def test_interpolate_antialias_bfloat16_is_not_implemented():
    (t,), (l,) = both(*arrays((1, 1, 8, 8)))
    for F, x in ((TF, t), (LF, l)):
        with pytest.raises(NotImplementedError, match='compute_index_ranges_weights'): F.interpolate(x, size=3, mode='bilinear', antialias=True)


def test_upsample_bilinear_bfloat16():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        run(lambda F, x: F.upsample_bilinear(x, size=(6, 3)), (2, 3, 4, 4), seed=3)

# ---------------------------------------------------------------- activations and losses


def test_gelu_bfloat16():
    run(lambda F, x: F.gelu(x), (10, 10), scale=3)
    run(lambda F, x: F.gelu(x, approximate='tanh'), (10, 10), scale=3)
    (t,), (l,) = both(*arrays((50,), seed=4, scale=2))
    for x in (t, l): x.requires_grad_()
    TF.gelu(t).sum().backward(); LF.gelu(l).sum().backward()
    same(l.grad, t.grad)


@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
def test_pointwise_losses_add_in_float32(reduction):
    "3×1000 squares: mse_loss's mean was summed in bfloat16 (0.24 against torch's 0.48)."
    for f in (lambda F, x, t: F.mse_loss(x, t, reduction=reduction), lambda F, x, t: F.l1_loss(x, t, reduction=reduction),
              lambda F, x, t: F.binary_cross_entropy_with_logits(x, t, reduction=reduction)):
        run(f, (3, 1000), (3, 1000), seed=5)
    p, q = np.random.default_rng(6).random((2, 3, 1000)).astype(np.float32)
    (tp, tq), (lp, lq) = both(p, q)
    same(LF.binary_cross_entropy(lp, lq, reduction=reduction), TF.binary_cross_entropy(tp, tq, reduction=reduction))


@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
def test_class_losses_bfloat16(reduction):
    x, = arrays((1000, 30), seed=7, scale=3)
    target = np.random.default_rng(8).integers(0, 30, 1000)
    (tx,), (lx,) = both(x)
    tt, lt_ = torch.tensor(target), lt.tensor(target)
    same(LF.cross_entropy(lx, lt_, reduction=reduction), TF.cross_entropy(tx, tt, reduction=reduction))
    same(LF.nll_loss(lx, lt_, reduction=reduction), TF.nll_loss(tx, tt, reduction=reduction))
    same(LF.cross_entropy(lx, lt_, reduction=reduction, label_smoothing=0.1), TF.cross_entropy(tx, tt, reduction=reduction, label_smoothing=0.1))


def test_cross_entropy_rounds_as_log_softmax_over_the_last_axis():
    "PyTorch's kernel rounds the sum of exps to bfloat16 before the log: a confident row's loss is 0, not 0.003."
    (tx,), (lx,) = both(np.array([[1.5, -5., -5.], [1.5, -3., -4.]], np.float32))
    same(LF.cross_entropy(lx, lt.tensor([0, 0]), reduction='none'), TF.cross_entropy(tx, torch.tensor([0, 0]), reduction='none'), exact=True)
    (tx,), (lx,) = both(*arrays((8, 1000), seed=12))  # 1,000 exps: their sum is taken in float32 before its rounding
    target = np.arange(8) * 100
    same(LF.cross_entropy(lx, lt.tensor(target), reduction='none'), TF.cross_entropy(tx, torch.tensor(target), reduction='none'))


def test_cross_entropy_probability_targets_bfloat16():
    x, = arrays((4, 5, 3), seed=9)
    p = np.random.default_rng(10).dirichlet(np.ones(5), (4, 3)).transpose(0, 2, 1).astype(np.float32)
    (tx, tp), (lx, lp) = both(x, p)
    for reduction in ('mean', 'sum', 'none'):
        same(LF.cross_entropy(lx, lp, reduction=reduction), TF.cross_entropy(tx, tp, reduction=reduction))
        same(LF.cross_entropy(lx[:, :, 0], lp[:, :, 0], reduction=reduction), TF.cross_entropy(tx[:, :, 0], tp[:, :, 0], reduction=reduction))


def test_local_response_norm_bfloat16_divides():
    "The window mean of bfloat16 was floor-divided, as for integers (kind 'V' is not 'f')."
    run(lambda F, x: F.local_response_norm(x, 3, alpha=1.0), (2, 6, 5), scale=3)
    (t,), (l,) = both(*arrays((2, 4, 3, 5)))  # 4-d goes through avg_pool3d, which PyTorch's CPU has no bfloat16 for
    for F, x in ((TF, t), (LF, l)):
        with pytest.raises(NotImplementedError, match='avg_pool3d_out_frame'): F.local_response_norm(x, 2)
        with pytest.raises(NotImplementedError, match='avg_pool3d_out_frame'): F.avg_pool3d(x.unsqueeze(0), 2)
