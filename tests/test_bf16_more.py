"""bfloat16 against torch where the ops' own files do not reach: histc's bins and division rounded toward zero.
torch's CPU kernels compute bfloat16 in float32 and round once, except where a kernel rounds each step (histc)."""
import numpy as np
import pytest

torch = pytest.importorskip('torch')
import lit_torch as lt


def _pair(x):
    return torch.tensor(x).bfloat16(), lt.tensor(x).bfloat16()

@pytest.mark.parametrize('seed', range(6))
def test_histc_bins_bfloat16_as_torch(seed):
    "torch's histc kernel takes its bounds and each step of the bin index in bfloat16; so does lit_torch's."
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(300) * rng.uniform(0.5, 10)).astype(np.float32)
    t, l = _pair(x)
    for bins, lo, hi in ((17, 0, 0), (23, -1.3, 2.7), (5, -0.1, 0.1)):
        a, b = torch.histc(t, bins, lo, hi), lt.histc(l, bins, lo, hi)
        assert str(b.dtype) == 'torch.bfloat16'
        np.testing.assert_array_equal(b.float().numpy(), a.float().numpy())

def test_div_trunc_bfloat16_as_torch():
    "bfloat16 took the integer branch (floor, then a correction): 4 where torch gives 5."
    rng = np.random.default_rng(0)
    x, y = (rng.standard_normal((2, 4000)) * 50).astype(np.float32)
    (tx, lx), (ty, ly) = _pair(x), _pair(y)
    a, b = torch.div(tx, ty, rounding_mode='trunc'), lt.div(lx, ly, rounding_mode='trunc')
    assert str(b.dtype) == 'torch.bfloat16'
    np.testing.assert_array_equal(b.float().numpy(), a.float().numpy())


def test_module_bfloat16_and_type_cast_as_torch():
    "Module.bfloat16() casts floating parameters and buffers only; Module.type() casts every one, as torch's."
    mods = []
    for lib in (torch, lt):
        m = lib.nn.BatchNorm1d(3)
        mods.append(({k: str(v.dtype) for k, v in m.bfloat16().state_dict().items()},
                     {k: str(v.dtype) for k, v in m.type(lib.float64).state_dict().items()}))
    assert mods[0] == mods[1]

@pytest.mark.parametrize('name', ['RNN', 'GRU', 'LSTM'])
def test_rnn_bfloat16_outputs_and_gradients(name):
    """A bfloat16 recurrent layer returns bfloat16 and gives bfloat16 gradients (its output came back float32).
    It runs in float32 and rounds once per output, so it stays closer to float64 than torch's, which rounds each gate."""
    rng = np.random.default_rng(1)
    torch.manual_seed(0)
    m64 = getattr(torch.nn, name)(2, 3, num_layers=2).double()
    w = {k: v.bfloat16().double() for k, v in m64.state_dict().items()}
    m64.load_state_dict(w)
    ml = getattr(lt.nn, name)(2, 3, num_layers=2).bfloat16()
    ml.load_state_dict({k: lt.tensor(v.numpy().astype(np.float32)).bfloat16() for k, v in w.items()})
    x = torch.tensor(rng.standard_normal((6, 4, 2))).bfloat16().double()
    g = torch.tensor(rng.standard_normal((6, 4, 3))).bfloat16().double()
    o64 = m64(x)[0]; o64.backward(g)
    ol = ml(lt.tensor(x.float().numpy()).bfloat16())[0]
    ol.backward(lt.tensor(g.float().numpy()).bfloat16())
    assert str(ol.dtype) == 'torch.bfloat16'
    np.testing.assert_allclose(ol.detach().float().numpy(), o64.detach().numpy(), rtol=1.6e-2, atol=1e-2)
    for (k, p), (_, q) in zip(m64.named_parameters(), ml.named_parameters()):
        assert str(q.grad.dtype) == 'torch.bfloat16', k
        np.testing.assert_allclose(q.grad.float().numpy(), p.grad.numpy(), rtol=3e-2, atol=2e-2, err_msg=k)


def _autocast_run(m, steps=4):
    rng, r2 = np.random.default_rng(0), np.random.default_rng(1)
    x, y = m.tensor(rng.standard_normal((32, 16)).astype(np.float32)), m.tensor(rng.integers(0, 5, 32))
    net = m.nn.Sequential(m.nn.Linear(16, 32), m.nn.LayerNorm(32), m.nn.GELU(), m.nn.Linear(32, 5))
    with m.no_grad():
        for p in net.parameters(): p.copy_(m.tensor(r2.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3))
    opt, out = m.optim.SGD(net.parameters(), lr=0.1), []
    for _ in range(steps):
        opt.zero_grad()
        with m.autocast(device_type='cpu', dtype=m.bfloat16):
            h = net[0](x); z = net(x); loss = m.nn.functional.cross_entropy(z, y)
        loss.backward(); opt.step()
        out.append(([str(t.dtype) for t in (h, net[1](h), z, loss, net[0].weight.grad)], loss.item(),
                    net[0].weight.grad.float().detach().numpy().copy()))
    return out

def test_cpu_autocast_computes_in_bfloat16_as_torch():
    """CPU autocast casts for real: a listed op returns bfloat16, the ops after it on no list stay bfloat16, the loss
    is float32 and a float32 weight's gradient float32 (lit_torch returned float32 tensors of bfloat16 values)."""
    for (dt, lt_, gt), (dl, ll, gl) in zip(_autocast_run(torch), _autocast_run(lt)):
        assert dl == dt == ['torch.bfloat16', 'torch.bfloat16', 'torch.bfloat16', 'torch.float32', 'torch.float32']
        assert abs(ll - lt_) <= 1e-3 * abs(lt_)
        np.testing.assert_allclose(gl, gt, rtol=1.6e-2, atol=1e-2 * np.abs(gt).max())


@pytest.mark.parametrize('s', [1.3, 0.7071067811865476, 1e-3])
def test_bfloat16_times_and_over_a_float_as_torch(s):
    """torch multiplies and divides bfloat16 by a Python float in float32 without rounding the float first (add and sub
    do round theirs); lit_torch rounded it, and 43% of x * 1.3 landed a bfloat16 step away. Forward and backward."""
    rng = np.random.default_rng(0)
    x, g = (rng.standard_normal(5000) * 3).astype(np.float32), rng.standard_normal(5000).astype(np.float32)
    for f in (lambda t: t * s, lambda t: t / s, lambda t: t + s, lambda t: t - s):
        tt, tl = torch.tensor(x).bfloat16().requires_grad_(), lt.tensor(x).bfloat16().requires_grad_()
        yt, yl = f(tt), f(tl)
        yt.backward(torch.tensor(g).bfloat16()); yl.backward(lt.tensor(g).bfloat16())
        np.testing.assert_array_equal(yl.detach().float().numpy(), yt.detach().float().numpy())
        np.testing.assert_array_equal(tl.grad.float().numpy(), tt.grad.float().numpy())
