"BatchNorm1d/2d/3d and F.batch_norm against PyTorch for every option: outputs, gradients, running statistics, state_dict, errors."
from collections import OrderedDict
import numpy as np
import pytest
import torch
import lit_torch as lt
from lit_torch.nn.modules import batchnorm as lbn
from op_helpers import check_op, check_gradcheck, check_same_error

def nn_of(lib): return torch.nn if lib is torch else lbn
def bn_fn(lib): return torch.nn.functional.batch_norm if lib is torch else lbn.batch_norm

CASES = [('BatchNorm1d', (6, 3)), ('BatchNorm1d', (4, 3, 5)), ('BatchNorm2d', (4, 3, 5, 6)), ('BatchNorm3d', (2, 3, 3, 4, 2))]

def pair(name, *args, **kw):
    t, l = getattr(torch.nn, name)(*args, **kw), getattr(lbn, name)(*args, **kw)
    with torch.no_grad():  # random affine parameters, so γ and β matter
        for p in t.parameters(): p.copy_(torch.randn(p.shape))
    l.load_state_dict({k: lt.tensor(v.numpy()) for k, v in t.state_dict().items()})
    return t, l

def close(l, t, tol=1e-5):
    if t is None: assert l is None; return
    assert l is not None
    assert repr(l.dtype) == repr(t.dtype)
    np.testing.assert_allclose(l.detach().numpy(), t.detach().numpy(), atol=tol, rtol=tol)

def step(t, l, shape, rng, offset=0.0, tol=1e-5):
    "One forward and backward through both; compares output, input gradient, parameter gradients and buffers."
    a = (rng.standard_normal(shape) * rng.uniform(0.5, 3) + offset).astype(np.float32)
    dy = rng.standard_normal(shape).astype(np.float32)
    xt, xl = torch.tensor(a, requires_grad=True), lt.tensor(a, requires_grad=True)
    yt, yl = t(xt), l(xl)
    close(yl, yt, tol)
    yt.backward(torch.tensor(dy)); yl.backward(lt.tensor(dy))
    close(xl.grad, xt.grad, 1e-4)
    for (nt, pt), (nl, pl) in zip(t.named_parameters(), l.named_parameters()):
        assert nt == nl
        close(pl.grad, pt.grad, 1e-4)
    for (nt, bt), (nl, bl) in zip(t.named_buffers(), l.named_buffers()):
        assert nt == nl
        close(bl, bt, tol)

@pytest.mark.parametrize('name,shape', CASES)
@pytest.mark.parametrize('momentum', [0.1, 0.3, None])
@pytest.mark.parametrize('affine,track', [(True, True), (False, True), (True, False), (False, False)])
def test_train_eval_like_torch(name, shape, momentum, affine, track):
    t, l = pair(name, shape[1], momentum=momentum, affine=affine, track_running_stats=track)
    assert [n for n, _ in l.named_buffers()] == [n for n, _ in t.named_buffers()]
    rng = np.random.default_rng(0)
    for i in range(3): step(t, l, shape, rng, offset=i - 1.0)  # running stats after each step
    t.eval(); l.eval()
    step(t, l, shape, rng, offset=0.5)  # eval: running stats, or batch stats without them
    t.train(); l.train()
    step(t, l, shape, rng)
    if track: assert int(l.num_batches_tracked) == int(t.num_batches_tracked) == 4

def test_no_bias_keyword():
    t, l = pair('BatchNorm2d', 3, bias=False)
    assert repr(l) == repr(t) and list(l.state_dict()) == list(t.state_dict())
    step(t, l, (2, 3, 4, 4), np.random.default_rng(1))

def test_eps_large_mean_accuracy():
    "Channels far from zero (float32 spacing near 100 is 8e-6): the two-pass variance keeps the error at that level."
    t, l = pair('BatchNorm1d', 4, eps=1e-3)
    step(t, l, (64, 4), np.random.default_rng(2), offset=100.0, tol=5e-5)

@pytest.mark.parametrize('offset', [0.3, 30.0])
def test_blocked_paths_near_and_far_from_zero(offset):
    "Big enough to run in blocks on the thread pool; offset 0.3 takes the regrouped (|μ| ≤ σ) path, offset 30 the centered one."
    t, l = pair('BatchNorm2d', 32)
    rng = np.random.default_rng(3)
    step(t, l, (24, 32, 32, 32), rng, offset=offset, tol=2e-4 if offset > 1 else 1e-5)

@pytest.mark.parametrize('kw', [{}, dict(momentum=None), dict(affine=False), dict(track_running_stats=False), dict(eps=1e-3, momentum=0.5)])
def test_state_dict_and_repr(kw):
    for name in ('BatchNorm1d', 'BatchNorm2d', 'BatchNorm3d'):
        t, l = getattr(torch.nn, name)(5, **kw), getattr(lbn, name)(5, **kw)
        assert repr(l) == repr(t)
        st, sl = t.state_dict(), l.state_dict()
        assert list(sl) == list(st)
        assert dict(sl._metadata) == {k: {'version': v['version']} for k, v in st._metadata.items()}
        for k in st: assert repr(sl[k].dtype) == repr(st[k].dtype) and tuple(sl[k].shape) == tuple(st[k].shape); close(sl[k], st[k])
        assert [n for n, _ in l.named_parameters()] == [n for n, _ in t.named_parameters()]

def test_reset():
    t, l = pair('BatchNorm1d', 3)
    step(t, l, (8, 3), np.random.default_rng(3), offset=2.0)
    t.reset_running_stats(); l.reset_running_stats()
    for k, v in t.state_dict().items(): close(l.state_dict()[k], v)
    t.reset_parameters(); l.reset_parameters()
    for k, v in t.state_dict().items(): close(l.state_dict()[k], v)

@pytest.mark.parametrize('version', [1, None])
def test_load_checkpoint_without_num_batches_tracked(version):
    "A checkpoint from before num_batches_tracked (metadata version 1 or none) loads strictly, keeping the counter."
    res = {}
    for lib in (torch, lt):
        nn = nn_of(lib)
        src = lib.nn.Sequential(lib.nn.Linear(3, 3), nn.BatchNorm1d(3)) if lib is torch else lt.nn.Sequential(lt.nn.Linear(3, 3), nn.BatchNorm1d(3))
        src[1](lib.randn(8, 3) + 1)
        sd = src.state_dict()
        sd2 = OrderedDict((k, v) for k, v in sd.items() if k != '1.num_batches_tracked')
        sd2._metadata = OrderedDict(sd._metadata)
        if version is None: sd2._metadata['1'] = {}
        else: sd2._metadata['1'] = {'version': version}
        dst = lib.nn.Sequential(lib.nn.Linear(3, 3), nn.BatchNorm1d(3))
        dst[1].num_batches_tracked.fill_(5)
        result = dst.load_state_dict(sd2)
        res[lib] = (list(result.missing_keys), list(result.unexpected_keys), int(dst[1].num_batches_tracked), dst[1].running_mean.numpy().copy(), src[1].running_mean.detach().numpy().copy())
    (mt, ut, nt, rt, st), (ml, ul, nl, rl, sl) = res[torch], res[lt]
    assert mt == ml == [] and ut == ul == [] and nt == nl == 5
    np.testing.assert_allclose(rl, sl, rtol=1e-6); np.testing.assert_allclose(rt, st, rtol=1e-6)

def test_load_version2_missing_key_fails_like_torch():
    def f(lib):
        m = nn_of(lib).BatchNorm1d(3)
        sd = m.state_dict(); del sd['num_batches_tracked']
        m.load_state_dict(sd)
    e = check_same_error(f)
    assert 'num_batches_tracked' in str(e)

@pytest.mark.parametrize('name,shape', [('BatchNorm1d', (2, 3, 4, 5)), ('BatchNorm1d', (3,)), ('BatchNorm2d', (2, 3)), ('BatchNorm2d', (2, 3, 4)),
                                        ('BatchNorm3d', (2, 3, 4, 4)), ('BatchNorm3d', (2, 3, 4, 4, 4, 1)), ('BatchNorm1d', (1, 3)),
                                        ('BatchNorm1d', (1, 3, 1)), ('BatchNorm2d', (1, 3, 1, 1)), ('BatchNorm3d', (1, 3, 1, 1, 1))])
def test_input_errors(name, shape):
    e = check_same_error(lambda lib: getattr(nn_of(lib), name)(3)(lib.randn(*shape)))
    assert isinstance(e, ValueError)
    if len(shape) > 1 and shape[0] == 1: assert f"got input size torch.Size({list(shape)})" in str(e)
    else: assert f"got {len(shape)}D input" in str(e)

def test_one_sample_is_fine_in_eval():
    check_op(lambda lib, x: nn_of(lib).BatchNorm1d(3).eval()(x), [(1, 3)])

@pytest.mark.parametrize('shape', [(5, 3), (4, 3, 7), (2, 3, 4, 5), (2, 3, 2, 3, 4)])
@pytest.mark.parametrize('training', [True, False])
@pytest.mark.parametrize('affine', [True, False])
def test_functional(shape, training, affine):
    c = shape[1]
    rng = np.random.default_rng(4)
    rm0, rv0 = rng.standard_normal(c).astype(np.float32), rng.uniform(0.5, 2, c).astype(np.float32)
    bufs = {}
    def fn(lib, x, w, b):
        rm, rv = lib.tensor(rm0.copy()), lib.tensor(rv0.copy())
        bufs[lib] = (rm, rv)
        return bn_fn(lib)(x, rm, rv, w if affine else None, b if affine else None, training, 0.2, 1e-4)
    check_op(fn, [shape, (c,), (c,)])
    for t, l in zip(bufs[torch], bufs[lt]): close(l, t)

def test_functional_no_running_stats_and_grad_fn():
    check_op(lambda lib, x, w: bn_fn(lib)(x, None, None, w, training=True), [(6, 4, 3), (4,)])
    x = lt.randn(4, 3, requires_grad=True)
    assert lbn.batch_norm(x, None, None, training=True).grad_fn.name() == torch.nn.functional.batch_norm(torch.randn(4, 3, requires_grad=True), None, None, training=True).grad_fn.name()

def test_running_buffers_updated_in_place():
    rm, rv = lt.zeros(3), lt.ones(3)
    arr_m, v0 = rm._data, rm._version[0]
    lbn.batch_norm(lt.randn(4, 3), rm, rv, training=True)
    assert rm._data is arr_m and rm._version[0] > v0 and rv._version[0] > 0
    with lt.no_grad(): lbn.batch_norm(lt.randn(4, 3), rm, rv, training=True)  # updates under no_grad too
    assert rm._version[0] > v0 + 1

def test_non_contiguous_input():
    check_op(lambda lib, x: bn_fn(lib)(x.permute(0, 3, 1, 2), None, None, training=True), [(2, 4, 5, 3)])

@pytest.mark.parametrize('make', [
    lambda lib: bn_fn(lib)(lib.randn(3, 4, 5), None, lib.ones(4), training=True),
    lambda lib: bn_fn(lib)(lib.randn(3, 4), lib.zeros(4), lib.ones(4), training=True, eps=0.0),
    lambda lib: bn_fn(lib)(lib.randn(3, 4), lib.zeros(4), lib.ones(4), training=False, eps=-1.0),
    lambda lib: bn_fn(lib)(lib.randn(1, 4), None, None, training=True),
], ids=['one-buffer', 'eps0', 'eps-neg', 'one-value'])
def test_functional_value_errors(make):
    assert isinstance(check_same_error(make), ValueError)

@pytest.mark.parametrize('make', [
    lambda lib: bn_fn(lib)(lib.randn(3, 4), None, None, training=False),
    lambda lib: bn_fn(lib)(lib.randn(3, 4), lib.zeros(4), None, training=False),
    lambda lib: bn_fn(lib)(lib.randn(3, 4), lib.zeros(5), lib.ones(4), training=True),
    lambda lib: bn_fn(lib)(lib.randn(3, 4), lib.zeros(4), lib.ones(4), lib.ones(3), training=True),
    lambda lib: bn_fn(lib)(lib.randn(3, 4), lib.zeros(4), lib.ones(4), None, lib.ones(2), training=False),
    lambda lib: bn_fn(lib)(lib.randn(3, 4, dtype=lib.float64), lib.zeros(4), lib.ones(4), training=False),
], ids=['eval-no-mean', 'eval-no-var', 'mean-size', 'weight-size', 'bias-size', 'mixed-dtype'])
def test_functional_runtime_errors(make):
    e = check_same_error(make)
    assert isinstance(e, RuntimeError)

@pytest.mark.parametrize('shape', [(4, 2), (3, 2, 3), (2, 2, 2, 2)])
@pytest.mark.parametrize('training', [True, False])
def test_gradcheck_gradgradcheck(shape, training):
    rng = np.random.default_rng(5)
    rm, rv = lt.tensor(rng.standard_normal(shape[1])), lt.tensor(rng.uniform(0.5, 2, shape[1]))
    fn = lambda lib, x, w, b: lbn.batch_norm(x, None if training else rm, None if training else rv, w, b, training=training, eps=1e-3)
    check_gradcheck(fn, [shape, (shape[1],), (shape[1],)], gradgrad=True)

def test_double_backward_matches_torch():
    "create_graph=True: the replay path gives torch's second derivatives."
    rng = np.random.default_rng(6)
    a, w0, dy = rng.standard_normal((4, 3, 5)), rng.standard_normal(3), rng.standard_normal((4, 3, 5))
    out = {}
    for lib in (torch, lt):
        x, w = lib.tensor(a, requires_grad=True), lib.tensor(w0, requires_grad=True)
        y = bn_fn(lib)(x, None, None, w, None, training=True)
        gx, = (torch.autograd if lib is torch else lt.autograd).grad(y, x, lib.tensor(dy), create_graph=True)
        (gx * gx).sum().backward()
        out[lib] = (gx.detach().numpy(), x.grad.numpy(), w.grad.numpy())
    for l, t in zip(out[lt], out[torch]): np.testing.assert_allclose(l, t, rtol=1e-8, atol=1e-9)
