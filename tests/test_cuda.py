"""Each chapter's core on CUDA devices, against torch on the CPU: tensors and the random generators, ops with
gradients, Module.to/cuda, state_dict to and from CUDA, BatchNorm, attention and the Transformer, optimizers, the
DataLoader with pinned memory, DataParallel over two GPUs, and a short run of the date demo.

These run on a real GPU (CuPy) and, without one, on the strict emulation (`make test-cuda-emulated`,
tests/fake_cupy). cuda:1 is the interesting device: it is never the current one unless lit_torch makes it so,
so every allocation or kernel that misses its device context fails there. Each tensor a test touches is also
checked to hold a device array that lives on the tensor's own GPU (`on_device`).
"""
import math, runpy, warnings
from pathlib import Path
import numpy as np
import pytest
import torch
import lit_torch as lt
from lit_torch import nn
import lit_torch.utils.data
import lit_torch.nn.functional as F
from op_helpers import check_op

pytestmark = pytest.mark.skipif(not lt.cuda.is_available(), reason='no GPU: CuPy or a device is missing (make test-cuda-emulated runs these without one)')
two_gpus = pytest.mark.skipif(lt.cuda.device_count() < 2, reason='needs 2 GPUs')
CUDA = ['cuda:0', pytest.param('cuda:1', marks=two_gpus)]

def emulated():
    import cupy
    return getattr(cupy, '_emulated', False)

needs_emulation = pytest.mark.skipif(not lt.cuda.is_available() or not emulated(), reason='counts syncs with the emulation log (tests/fake_cupy)')

@pytest.fixture(autouse=True)
def _current_device_is_0():
    "Every test starts (and ends) with cuda:0 current, so work on cuda:1 only succeeds inside lit_torch's own device contexts."
    lt.cuda.set_device(0)
    yield
    lt.cuda.set_device(0)

def rand(*shape, seed=0, dtype=np.float32):
    a = np.random.default_rng(seed).standard_normal(shape)
    return np.where(np.abs(a) < 1e-3, 1e-3, a).astype(dtype)

def on_device(device, *tensors):
    "Each tensor is on `device` and holds a CuPy array on that GPU (the emulation would catch a NumPy array anyway)."
    d = lt.device(device)
    for t in tensors:
        if t is None: continue
        assert t.device == d, (t.device, d)
        assert type(t._data).__module__.split('.')[0] == 'cupy', type(t._data)
        assert t._data.device.id == d.index, (t._data.device.id, d)

def host(t): return t.detach().cpu().numpy()

def pair(make, seed=0):
    "torch's module and lit_torch's with torch's weights (state_dict keys must agree)."
    torch.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        tm, lm = make(torch), make(lt)
    sd = tm.state_dict()
    assert list(lm.state_dict()) == list(sd)
    lm.load_state_dict({k: lt.tensor(v.numpy()) for k, v in sd.items()})
    return tm, lm

def compare_module(tm, lm, inputs, device, atol=2e-5, rtol=1e-4, kwargs=None):
    "Forward and backward of both modules on `inputs` (arrays); outputs, input and parameter gradients compared, all on `device`."
    kwargs = kwargs or {}
    t_in = [torch.tensor(a, requires_grad=a.dtype.kind == 'f') for a in inputs]
    l_in = [lt.tensor(a, requires_grad=a.dtype.kind == 'f', device=device) for a in inputs]
    to, lo = tm(*t_in, **kwargs.get('torch', {})), lm(*l_in, **kwargs.get('lt', {}))
    on_device(device, lo)
    np.testing.assert_allclose(host(lo), to.detach().numpy(), atol=atol, rtol=rtol)
    w = rand(*to.shape, seed=7)
    (to * torch.tensor(w)).sum().backward()
    (lo * lt.tensor(w, device=device)).sum().backward()
    for t, l in zip(t_in, l_in):
        if t.grad is not None:
            on_device(device, l.grad)
            np.testing.assert_allclose(host(l.grad), t.grad.numpy(), atol=1e-4, rtol=1e-4)
    lp = dict(lm.named_parameters())
    for name, p in tm.named_parameters():
        if p.grad is None: continue
        on_device(device, lp[name], lp[name].grad)
        np.testing.assert_allclose(host(lp[name].grad), p.grad.numpy(), atol=1e-4, rtol=1e-4, err_msg=name)
    return to, lo

# ---------------------------------------------------------------- the backend: devices, the cuda namespace

def test_cuda_namespace():
    assert lt.cuda.is_available() and lt.cuda.device_count() >= 1
    assert lt.cuda.current_device() == 0
    if lt.cuda.device_count() > 1:
        lt.cuda.set_device(1)
        assert lt.cuda.current_device() == 1 and lt.zeros(2, device='cuda').device == lt.device('cuda:1')
        lt.cuda.set_device('cuda:0')
    lt.cuda.synchronize()
    n = lt.cuda.device_count()
    with pytest.raises(RuntimeError, match=f'cuda:{n}'): lt.zeros(1, device=f'cuda:{n}')

@pytest.mark.parametrize('device', CUDA)
def test_factories_land_on_the_device(device):
    ts = [lt.zeros(2, 3, device=device), lt.ones(2, device=device), lt.full((2,), 1.5, device=device),
          lt.empty(3, device=device), lt.eye(3, device=device), lt.arange(5, device=device),
          lt.linspace(0, 1, 4, device=device), lt.tensor([[1., 2.]], device=device), lt.as_tensor(np.ones(2), device=device),
          lt.randn(2, 3, device=device), lt.randint(0, 5, (4,), device=device), lt.randperm(5, device=device)]
    on_device(device, *ts)
    x = lt.tensor(rand(2, 3))
    on_device(device, *[f(x.to(device)) for f in (lt.zeros_like, lt.ones_like, lt.empty_like, lt.randn_like)])
    np.testing.assert_array_equal(host(ts[7]), [[1, 2]])
    assert sorted(ts[-1].tolist()) == list(range(5))

@pytest.mark.parametrize('device', CUDA)
def test_rand_on_cuda(device):
    "lt.rand on a GPU: the uniform draw must use a method CuPy's RandomState has (random_sample, not NumPy's random)."
    x = lt.rand(1000, device=device)
    on_device(device, x)
    assert 0 <= x.min().item() and x.max().item() < 1 and abs(x.mean().item() - 0.5) < 0.05

@pytest.mark.parametrize('device', CUDA)
def test_generators_are_per_device_and_seedable(device):
    lt.manual_seed(3)
    a = lt.randn(5, device=device)
    lt.manual_seed(3)
    b = lt.randn(5, device=device)
    np.testing.assert_array_equal(host(a), host(b))
    g = lt.Generator(device).manual_seed(1)
    c, d = lt.randn(3, generator=g, device=device), lt.randn(3, generator=lt.Generator(device).manual_seed(1), device=device)
    on_device(device, a, c)
    np.testing.assert_array_equal(host(c), host(d))
    s = g.get_state()
    e = lt.randn(3, generator=g, device=device)
    g.set_state(s)
    np.testing.assert_array_equal(host(lt.randn(3, generator=g, device=device)), host(e))

@pytest.mark.parametrize('device', CUDA)
def test_host_round_trips(device):
    x = lt.tensor(rand(2, 3), device=device)
    with pytest.raises(TypeError, match='cpu'): x.numpy()
    np.testing.assert_array_equal(x.cpu().numpy(), rand(2, 3))
    assert x.tolist() == rand(2, 3).tolist() and isinstance(x[0, 0].item(), float)
    assert f"device='{device}'" in repr(x)
    assert float(x[0, 0]) == float(rand(2, 3)[0, 0]) and int(lt.tensor(3, device=device)) == 3
    assert bool(lt.tensor(True, device=device)) and [10, 20, 30][lt.tensor(1, device=device)] == 20   # __index__
    y = x.to('cpu:1')
    assert y.device == lt.device('cpu:1') and isinstance(y._data, np.ndarray)

@pytest.mark.parametrize('device', CUDA)
def test_copy_between_devices(device):
    x = lt.tensor(rand(3, 4), device=device)
    other = 'cuda:0' if device == 'cuda:1' else ('cuda:1' if lt.cuda.device_count() > 1 else 'cpu')
    y = x.to(other)
    assert y.device == lt.device(other)
    np.testing.assert_array_equal(host(y), rand(3, 4))
    z = lt.zeros(3, 4, device=device)
    z.copy_(y)    # across devices, as torch allows
    on_device(device, z)
    np.testing.assert_array_equal(host(z), rand(3, 4))
    with pytest.raises(RuntimeError, match='same device'): x + lt.ones(3, 4, device='cpu')

# ---------------------------------------------------------------- ops with gradients

OPS = {
    'arith': (lambda m, a, b: (a * b - a / (b * b + 1)) ** 2 + 3 - a, [(3, 4), (4,)]),
    'unary': (lambda m, a: a.exp().log1p() + a.tanh() * a.sigmoid() + a.relu() + a.abs().sqrt() + a.sin() * a.cos(), [(3, 4)]),
    'reductions': (lambda m, a: a.sum(0) + a.mean(1).sum() + a.var(0) + a.amax(0) + a.logsumexp(0) + a.std(0), [(3, 4)]),
    'softmax_ce': (lambda m, a: m.nn.functional.cross_entropy(a, m.tensor([1, 0, 3], device=a.device)), [(3, 4)]),
    'matmul_bmm': (lambda m, a, b: (a @ b).bmm(b.transpose(1, 2)), [(2, 3, 4), (2, 4, 3)]),
    'indexing': (lambda m, a: a[[0, 2, 2]][:, 1:].sum(1, keepdim=True) + a[a > 0].sum() + a.masked_fill(a < 0, 0.5), [(3, 4)]),
    'index_put_scatter': (lambda m, a: a.index_select(0, m.tensor([2, 0, 2], device=a.device)).scatter_add(
        0, m.tensor([[0, 1, 0, 1]], device=a.device), a[:1]), [(3, 4)]),
    'embedding': (lambda m, w: m.nn.functional.embedding(m.tensor([[0, 2], [2, 1]], device=w.device), w), [(3, 4)]),
    'layer_norm': (lambda m, a, w: m.nn.functional.layer_norm(a, (4,), w, w), [(3, 4), (4,)]),
    'conv2d_pool': (lambda m, x, w: m.nn.functional.max_pool2d(m.nn.functional.conv2d(x, w, padding=1), 2), [(2, 3, 6, 6), (4, 3, 3, 3)]),
    'dropout0_gelu': (lambda m, a: m.nn.functional.gelu(m.nn.functional.dropout(a, 0.0)), [(3, 4)]),
    'where_clamp_cat': (lambda m, a, b: m.cat([m.where(a > b, a, b).clamp(-1, 1), m.stack([a, b]).sum(0)], 1), [(3, 4), (3, 4)]),
}

OP_CASES = [(n, 'cuda:0') for n in OPS] + [pytest.param(n, 'cuda:1', marks=two_gpus) for n in OPS]

@pytest.mark.parametrize('name, device', OP_CASES)
def test_op_with_gradients(name, device):
    fn, shapes = OPS[name]
    check_op(fn, shapes, device=device)

@pytest.mark.parametrize('device', CUDA)
def test_gradcheck_float64_on_cuda(device):
    x = lt.tensor(rand(3, 4, dtype=np.float64), requires_grad=True, device=device)
    w = lt.tensor(rand(4, 2, seed=1, dtype=np.float64), requires_grad=True, device=device)
    assert lt.autograd.gradcheck(lambda x, w: (x @ w).tanh().softmax(-1), (x, w))

@pytest.mark.parametrize('device', CUDA)
def test_engine_steps_on_device(device):
    "The engine's own arrays land on the tensors' GPU: the seed gradient (1 even for an infinite loss, as torch seeds), "
    "a retained gradient accumulated twice, materialized zeros, and gradgradcheck's output gradients."
    x = lt.tensor(float('inf'), requires_grad=True, device=device)
    (x * 2).backward()
    on_device(device, x.grad); assert x.grad.item() == 2
    a = lt.tensor(rand(3), requires_grad=True, device=device)
    h = a * 2; h.retain_grad()
    y = (h * h).sum()
    y.backward(retain_graph=True); y.backward()
    on_device(device, h.grad, a.grad); np.testing.assert_allclose(host(h.grad), 2 * 2 * 2 * rand(3), rtol=1e-6)
    b = lt.tensor(rand(2), requires_grad=True, device=device)
    g = lt.autograd.grad((a * 1).sum(), [a, b], materialize_grads=True)
    on_device(device, *g); assert host(g[1]).tolist() == [0, 0]
    x = lt.tensor(rand(3, 2, dtype=np.float64), requires_grad=True, device=device)
    assert lt.autograd.gradgradcheck(lambda x: (x * x).tanh(), (x,))

@pytest.mark.parametrize('device', CUDA)
def test_ops_that_are_not_functions_on_device(device):
    "Comparisons, logical and bitwise ops, isnan & co., all/any, argmax, equal and where(cond) run no Function.apply: each guards itself."
    v = rand(3, 4); v[0, 0], v[1, 1] = np.nan, np.inf
    x, t = lt.tensor(v, device=device), torch.tensor(v)
    i, ti = lt.tensor([[1, 2, 3]], device=device), torch.tensor([[1, 2, 3]])
    cases = [lambda m, x, i: x > 0, lambda m, x, i: x == x, lambda m, x, i: 0.5 <= x, lambda m, x, i: (x > 0) & (x < 1),
             lambda m, x, i: (x > 0) | ~(x < 1), lambda m, x, i: (x > 0) ^ (x < 1), lambda m, x, i: (i & 2) | (i ^ 1),
             lambda m, x, i: ~i, lambda m, x, i: x.isnan(), lambda m, x, i: x.isinf(), lambda m, x, i: x.isfinite(),
             lambda m, x, i: (x > 0).logical_not(), lambda m, x, i: (x > 0).all(1), lambda m, x, i: (x > 0).any(),
             lambda m, x, i: x[1:].argmax(0), lambda m, x, i: x[2].argmin(), lambda m, x, i: m.where(x > 0)[1]]
    for f in cases:
        out = f(lt, x, i)
        on_device(device, out); np.testing.assert_array_equal(host(out), f(torch, t, ti).numpy())
    assert lt.equal(x[2], x[2] * 1) and not lt.equal(x[2], x[2] + 1)

@two_gpus
@pytest.mark.parametrize('op', ['Add', 'Mul'])
def test_add_mul_reraise_errors_that_are_not_about_shapes(op):
    "Add/Mul turn a ValueError into torch's broadcast error only when the shapes are the cause: any other (here CuPy's "
    "wrong-device error, forward run outside apply's device guard) comes through instead of a None output."
    a = lt.ones(2, device='cuda:1')
    cls = getattr(lt.ops, op)
    ctx = cls._backward_cls(); ctx.needs_input_grad = (False, False)
    with pytest.raises(ValueError, match='different from the current device'): cls.forward(ctx, a, a)
    with pytest.raises(RuntimeError, match='must match the size'): a + lt.ones(3, device='cuda:1')

@pytest.mark.parametrize('device', CUDA)
def test_inplace_ops_and_views(device):
    x = lt.tensor(rand(3, 4), requires_grad=True, device=device)
    y = x * 1
    y[0].mul_(2)
    y[:, 1] += 1
    y.add_(lt.ones(4, device=device)).clamp_(-2, 2)
    y.sum().backward()
    t = torch.tensor(rand(3, 4), requires_grad=True)
    u = t * 1
    u[0].mul_(2); u[:, 1] += 1; u.add_(torch.ones(4)).clamp_(-2, 2)
    u.sum().backward()
    on_device(device, y, x.grad)
    np.testing.assert_allclose(host(y), u.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(host(x.grad), t.grad.numpy())

# ---------------------------------------------------------------- Module.to / cuda, state_dict

def make_net(lib):
    m = lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3, padding=1), lib.nn.BatchNorm2d(4), lib.nn.ReLU(), lib.nn.MaxPool2d(2),
                          lib.nn.Flatten(), lib.nn.Linear(4 * 4 * 4, 5))
    return m

@pytest.mark.parametrize('device', CUDA)
def test_module_to_and_cuda(device):
    m = make_net(lt)
    assert m.to(device) is m
    on_device(device, *m.parameters(), *m.buffers())
    m2 = make_net(lt).cuda(lt.device(device).index)
    on_device(device, *m2.parameters(), *m2.buffers())
    m3 = make_net(lt).to(device, dtype=lt.float64)
    assert all(p.dtype == lt.float64 for p in m3.parameters())
    back = m.cpu()
    assert all(p.device == lt.device('cpu') and isinstance(p._data, np.ndarray) for p in back.parameters())

@pytest.mark.parametrize('device', CUDA)
def test_cnn_forward_backward_matches_torch(device):
    tm, lm = pair(make_net)
    lm.to(device)
    compare_module(tm, lm, [rand(2, 3, 8, 8)], device)
    on_device(device, *lm.buffers())
    np.testing.assert_allclose(host(lm[1].running_mean), tm[1].running_mean.numpy(), atol=1e-6)

@pytest.mark.parametrize('device', CUDA)
def test_state_dict_from_and_to_cuda(device, tmp_path):
    src = make_net(lt).to(device)
    sd = src.state_dict()
    on_device(device, *sd.values())
    assert list(sd) == list(make_net(torch).state_dict())
    cpu = make_net(lt)
    cpu.load_state_dict(sd)                        # CUDA tensors into a CPU model: copied to the CPU
    assert all(isinstance(p._data, np.ndarray) for p in cpu.parameters())
    back = make_net(lt).to(device)
    back.load_state_dict(cpu.state_dict())         # CPU tensors into a CUDA model: the parameters stay on the GPU
    on_device(device, *back.parameters(), *back.buffers())
    for k, v in back.state_dict().items(): np.testing.assert_array_equal(host(v), host(sd[k]), err_msg=k)
    lt.save(sd, tmp_path / 'm.pt')
    loaded = lt.load(tmp_path / 'm.pt', map_location=device)
    on_device(device, *loaded.values())
    tnet = make_net(torch)
    tnet.load_state_dict({k: torch.tensor(host(v)) for k, v in lt.load(tmp_path / 'm.pt').items()})
    x = rand(2, 3, 8, 8)
    src.eval(); tnet.eval()
    np.testing.assert_allclose(host(src(lt.tensor(x, device=device))), tnet(torch.tensor(x)).detach().numpy(), atol=2e-5, rtol=1e-4)

# ---------------------------------------------------------------- BatchNorm

@pytest.mark.parametrize('device', CUDA)
@pytest.mark.parametrize('kind', ['1d', '2d'])
def test_batchnorm_train_and_eval(kind, device):
    make = lambda lib: (lib.nn.BatchNorm1d(5) if kind == '1d' else lib.nn.BatchNorm2d(5))
    tm, lm = pair(make)
    lm.to(device)
    x = rand(8, 5) if kind == '1d' else rand(4, 5, 3, 3)
    for step in range(2): compare_module(tm, lm, [x + step], device)
    on_device(device, lm.running_mean, lm.running_var, lm.num_batches_tracked)
    np.testing.assert_allclose(host(lm.running_var), tm.running_var.numpy(), rtol=1e-5)
    assert lm.num_batches_tracked.item() == 2
    tm.eval(); lm.eval()
    compare_module(tm, lm, [x * 2], device)

# ---------------------------------------------------------------- attention and the Transformer

@pytest.mark.parametrize('device', CUDA)
def test_sdpa_with_masks(device):
    q, k, v = rand(2, 2, 5, 4), rand(2, 2, 6, 4, seed=1), rand(2, 2, 6, 4, seed=2)
    mask = np.tril(np.ones((5, 6), bool), 1)
    def fn(m, q, k, v):
        a = m.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m.tensor(mask, device=q.device))
        b = m.nn.functional.scaled_dot_product_attention(q, k[:, :, :5], v[:, :, :5], is_causal=True)
        return a.sum(2) + b.sum(2)
    check_op(fn, arrays=[q, k, v], device=device)

@pytest.mark.parametrize('device', CUDA)
def test_multihead_attention(device):
    tm, lm = pair(lambda lib: lib.nn.MultiheadAttention(8, 2, batch_first=True))
    lm.to(device)
    pad = np.zeros((2, 6), bool); pad[1, 4:] = True
    class Wrap:   # self-attention with a key padding mask, outputs and averaged weights
        def __init__(self, m, lib, dev): self.m, self.lib, self.dev = m, lib, dev
        def __call__(self, x):
            kw = {'key_padding_mask': self.lib.tensor(pad, **({} if self.lib is torch else {'device': self.dev}))}
            out, w = self.m(x, x, x, **kw)
            return out + w.sum(-1, keepdim=True)
        def named_parameters(self): return self.m.named_parameters()
    compare_module(Wrap(tm, torch, None), Wrap(lm, lt, device), [rand(2, 6, 8)], device)

@pytest.mark.parametrize('device', CUDA)
def test_transformer_train_step(device):
    tm, lm = pair(lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16, 0.0, batch_first=True))
    lm.to(device)
    mask = np.triu(np.full((4, 4), -np.inf, np.float32), 1)
    kw = {'torch': {'tgt_mask': torch.tensor(mask)}, 'lt': {'tgt_mask': lt.tensor(mask, device=device)}}
    compare_module(tm, lm, [rand(2, 5, 8), rand(2, 4, 8, seed=1)], device, kwargs=kw)
    on_device(device, lt.nn.Transformer.generate_square_subsequent_mask(3, device=device))

# ---------------------------------------------------------------- optimizers

@pytest.mark.parametrize('device', CUDA)
@pytest.mark.parametrize('opt', ['SGD', 'Adam', 'AdamW', 'Adafactor', 'Muon'])
def test_optimizer_steps_on_device(opt, device):
    kw = {'SGD': dict(lr=0.1, momentum=0.9, weight_decay=0.01), 'Adam': dict(lr=0.01, amsgrad=True), 'AdamW': dict(lr=0.01),
          'Adafactor': dict(lr=0.01, weight_decay=0.1), 'Muon': dict(lr=0.02)}[opt]
    tm, lm = pair(lambda lib: lib.nn.Linear(4, 3))
    lm.to(device)
    params = (lambda m: [m.weight]) if opt == 'Muon' else (lambda m: m.parameters())  # Muon: 2-d parameters only
    to, lo = getattr(torch.optim, opt)(params(tm), **kw), getattr(lt.optim, opt)(params(lm), **kw)
    x = rand(5, 4)
    for _ in range(3):
        for o, m, inp in ((to, tm, torch.tensor(x)), (lo, lm, lt.tensor(x, device=device))):
            o.zero_grad(); (m(inp) ** 2).mean().backward(); o.step()
    on_device(device, *lm.parameters())
    for state in lo.state.values(): on_device(device, *[v for k, v in state.items() if isinstance(v, lt.Tensor) and k != 'step'])
    for p, q in zip(lm.parameters(), tm.parameters()): np.testing.assert_allclose(host(p), q.detach().numpy(), atol=1e-6, rtol=1e-5)
    sd = lo.state_dict()
    lo2 = getattr(lt.optim, opt)(params(lm), **kw)
    lo2.load_state_dict(sd)
    for state in lo2.state.values(): on_device(device, *[v for k, v in state.items() if isinstance(v, lt.Tensor) and k != 'step'])

@pytest.mark.parametrize('device', CUDA)
def test_averaged_model_on_device(device):
    "swa_utils.AveragedModel keeps its average (and n_averaged) on the model's device; the default rule there is the in-place lerp."
    tm, lm = pair(lambda lib: lib.nn.Linear(4, 3))
    lm.to(device)
    ta, la = torch.optim.swa_utils.AveragedModel(tm), lt.optim.swa_utils.AveragedModel(lm, device=device)
    for k in range(3):
        with torch.no_grad(), lt.no_grad():
            for pt, pl in zip(tm.parameters(), lm.parameters()):
                g = rand(*pt.shape, seed=10 + k)
                pt.copy_(torch.tensor(g)); pl.copy_(lt.tensor(g, device=device))
        ta.update_parameters(tm); la.update_parameters(lm)
    on_device(device, la.n_averaged, *la.parameters())
    for p, q in zip(la.parameters(), ta.parameters()): np.testing.assert_allclose(host(p), q.detach().numpy(), rtol=1e-6)

@pytest.mark.parametrize('device', CUDA)
def test_init_on_device(device):
    w = lt.empty(64, 32, device=device)
    for f in (nn.init.normal_, nn.init.uniform_, nn.init.xavier_uniform_, nn.init.kaiming_normal_, nn.init.trunc_normal_):
        f(w)
        on_device(device, w)
        assert np.isfinite(host(w)).all() and host(w).std() > 0

@pytest.mark.parametrize('device', CUDA)
def test_dropout_on_device(device):
    x = lt.ones(1000, device=device, requires_grad=True)
    y = F.dropout(x, 0.5)
    y.sum().backward()
    on_device(device, y, x.grad)
    kept = host(y) != 0
    assert 0.4 < kept.mean() < 0.6 and np.allclose(host(y)[kept], 2) and np.array_equal(host(x.grad) != 0, kept)

# ---------------------------------------------------------------- data: pinned memory, non_blocking copies

class Squares(lt.utils.data.Dataset):
    def __len__(self): return 10
    def __getitem__(self, i): return lt.tensor([float(i), float(i * i)]), i

@pytest.mark.parametrize('num_workers', [0, 2])
def test_dataloader_pin_memory_and_non_blocking_copy(num_workers):
    dl = lt.utils.data.DataLoader(Squares(), batch_size=4, pin_memory=True, num_workers=num_workers)
    seen = []
    for x, i in dl:
        assert x.is_pinned() and i.is_pinned()
        xc, ic = x.cuda(non_blocking=True), i.to('cuda', non_blocking=True)
        on_device('cuda:0', xc, ic)
        seen += ic.tolist()
        np.testing.assert_array_equal(host(xc)[:, 1], host(xc)[:, 0] ** 2)
    assert seen == list(range(10))
    assert not lt.ones(2).is_pinned() and lt.ones(2).pin_memory().is_pinned()

# ---------------------------------------------------------------- DataParallel over two GPUs

@two_gpus
def test_data_parallel_over_two_gpus():
    tm, lm = pair(lambda lib: lib.nn.Sequential(lib.nn.Linear(6, 8), lib.nn.BatchNorm1d(8), lib.nn.ReLU(), lib.nn.Linear(8, 3)))
    lm.to('cuda:0')
    dp = lt.nn.DataParallel(lm, device_ids=[0, 1])
    x = rand(8, 6)
    lo = dp(lt.tensor(x, device='cuda:0'))
    on_device('cuda:0', lo)
    # torch's DataParallel: each half through BN on its own; the same in one torch model, half by half
    to = torch.cat([tm(torch.tensor(x[:4])), tm(torch.tensor(x[4:]))])
    np.testing.assert_allclose(host(lo), to.detach().numpy(), atol=2e-5, rtol=1e-4)
    w = rand(8, 3, seed=3)
    (lo * lt.tensor(w, device='cuda:0')).sum().backward()
    (to * torch.tensor(w)).sum().backward()
    for (n, p), q in zip(lm.named_parameters(), tm.parameters()):
        on_device('cuda:0', p, p.grad)
        np.testing.assert_allclose(host(p.grad), q.grad.numpy(), atol=1e-4, rtol=1e-4, err_msg=n)

# ---------------------------------------------------------------- the date demo, a few steps

def test_date_demo_trains_on_cuda(tmp_path):
    "A few steps of examples/train_dates.py on the GPU give the losses the same steps give on the CPU (same data, same init)."
    pytest.importorskip('tqdm', reason='the demo draws its progress bar with tqdm')
    ex = runpy.run_path(str(Path(__file__).parents[1] / 'examples' / 'train_dates.py'))
    run = lambda device: ex['main'](epochs=1, batch_size=32, d_model=16, nhead=2, num_layers=1, dim_feedforward=32,
                                    n_train=192, n_test=20, eval_every=6, num_workers=0, quiet=True, progress=False,
                                    device=device, loss_plot=None, attention_plot=None)
    gpu, cpu = run('cuda'), run('cpu')
    assert len(gpu['losses']) == 6 and all(math.isfinite(l) for l in gpu['losses'])
    np.testing.assert_allclose(gpu['losses'], cpu['losses'], rtol=2e-3)   # cuBLAS and NumPy's BLAS round differently
    assert len(gpu['preds']) == 20 and 0 <= gpu['acc'] <= 1
    on_device('cuda:0', *gpu['model'].parameters())

# ---------------------------------------------------------------- syncs in a training step

@needs_emulation
@pytest.mark.parametrize('device', CUDA)
def test_training_step_syncs_at_most_once(device):
    "Forward, backward and the optimizer step never wait for the GPU; reading the loss is the step's one sync."
    from cupy import _emulation
    lt.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.LayerNorm(32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 4)).to(device)
    opt = lt.optim.AdamW(model.parameters(), lr=1e-3)
    x, y = lt.randn(8, 16, device=device), lt.randint(0, 4, (8,), device=device)
    for step in range(3):
        with _emulation.count_syncs() as log:
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
        assert log.syncs == 0, log
        with _emulation.count_syncs() as log:
            value = loss.item()
        assert log.syncs == 1 and math.isfinite(value), log
    on_device(device, *model.parameters(), *[p.grad for p in model.parameters()])

@needs_emulation
def test_transformer_step_syncs():
    """A Transformer training step with padding masks: no sync in forward, backward or the step (given `tgt_is_causal`:
    detecting a causal mask compares it on the device and reads the answer, in torch as here)."""
    from cupy import _emulation
    lt.manual_seed(0)
    m = nn.Transformer(16, 2, 1, 1, 32, 0.1, batch_first=True).to('cuda')
    opt = lt.optim.Adam(m.parameters(), lr=1e-3)
    src, tgt = lt.randn(2, 7, 16, device='cuda'), lt.randn(2, 5, 16, device='cuda')
    pad = lt.tensor([[False] * 7, [False] * 5 + [True] * 2], device='cuda')
    causal = nn.Transformer.generate_square_subsequent_mask(5, device='cuda')
    with _emulation.count_syncs() as log:
        out = m(src, tgt, tgt_mask=causal, src_key_padding_mask=pad, memory_key_padding_mask=pad, tgt_is_causal=True)
        out.pow(2).mean().backward()
        opt.step()
    assert log.syncs == 0, log

def _layer(name):
    "A module, its input, and whether its input is integer (no input gradient)."
    return {'Linear': (nn.Linear(16, 4), lambda: lt.randn(8, 16, device='cuda')),
            'Embedding': (nn.Embedding(10, 4), lambda: lt.randint(0, 10, (3, 5), device='cuda')),
            'LayerNorm': (nn.LayerNorm(16), lambda: lt.randn(8, 16, device='cuda')),
            'Dropout': (nn.Dropout(0.3), lambda: lt.randn(8, 16, device='cuda')),
            'GELU': (nn.GELU(), lambda: lt.randn(8, 16, device='cuda')),
            'BatchNorm1d': (nn.BatchNorm1d(16), lambda: lt.randn(8, 16, device='cuda')),
            'BatchNorm2d': (nn.BatchNorm2d(3), lambda: lt.randn(2, 3, 8, 8, device='cuda')),
            'Conv2d': (nn.Conv2d(3, 4, 3, padding=1), lambda: lt.randn(2, 3, 8, 8, device='cuda')),
            'MaxPool2d': (nn.MaxPool2d(2), lambda: lt.randn(2, 3, 8, 8, device='cuda')),
            'AvgPool2d': (nn.AvgPool2d(2), lambda: lt.randn(2, 3, 8, 8, device='cuda')),
            'AdaptiveAvgPool2d': (nn.AdaptiveAvgPool2d(1), lambda: lt.randn(2, 3, 8, 8, device='cuda')),
            'MultiheadAttention': (nn.MultiheadAttention(16, 2, batch_first=True), lambda: lt.randn(2, 5, 16, device='cuda'))}[name]

LAYERS = ['Linear', 'Embedding', 'LayerNorm', 'Dropout', 'GELU', 'BatchNorm1d', 'BatchNorm2d', 'Conv2d', 'MaxPool2d',
          'AvgPool2d', 'AdaptiveAvgPool2d', 'MultiheadAttention']

@needs_emulation
@pytest.mark.parametrize('name', LAYERS)
def test_layer_forward_backward_never_syncs(name):
    "Each layer's forward and backward on the GPU never waits for it: PyTorch's CUDA kernels do not, and a sync per layer per step is what makes a GPU idle."
    from cupy import _emulation
    m, make = _layer(name)
    m.to('cuda')
    x = make()
    if x.dtype.is_floating_point: x.requires_grad_(True)
    with _emulation.count_syncs() as log:
        out = m(x, x, x)[0] if name == 'MultiheadAttention' else m(x)
        out.sum().backward()
    assert log.syncs == 0, log
    assert log.count('numpy') == 0, log    # no stray NumPy function on a device array (CuPy would serve it, slowly)

# ---------------------------------------------------------------------------------------------------- sampling
def _x(device, *shape, fill=None, dtype=lt.float32):
    t = lt.empty(*shape, dtype=dtype, device=device)
    return t if fill is None else t.fill_(fill)

# name -> (draw on a device, a check of the values on the host). Each draw runs on the CPU too: same shape and dtype.
SAMPLERS = {
    'bernoulli': (lambda d: lt.bernoulli(lt.tensor(np.linspace(0, 1, 12, dtype=np.float32), device=d)), lambda a: set(np.unique(a)) <= {0, 1}),
    'bernoulli_p': (lambda d: lt.bernoulli(_x(d, 3, 4), 0.3), lambda a: set(np.unique(a)) <= {0, 1}),
    'bernoulli_': (lambda d: _x(d, 3, 4).bernoulli_(lt.full((4,), 0.5, device=d)), lambda a: set(np.unique(a)) <= {0, 1}),
    'multinomial': (lambda d: lt.multinomial(lt.tensor(np.arange(1, 9, dtype=np.float32).reshape(2, 4), device=d), 3),
                    lambda a: all(len(set(r)) == 3 for r in a) and a.max() < 4),
    'multinomial_replacement': (lambda d: lt.tensor([0., 1., 3.], device=d).multinomial(20, replacement=True),
                                lambda a: a.min() >= 1 and a.max() <= 2),
    'normal_tensors': (lambda d: lt.normal(lt.zeros(50, device=d), lt.full((50,), 2., device=d)), lambda a: a.std() > 0.5),
    'normal_mean_tensor': (lambda d: lt.normal(lt.full((3, 5), 10., device=d, dtype=lt.float64)), lambda a: abs(a.mean() - 10) < 3),
    'normal_size': (lambda d: lt.normal(2., 3., (4, 5), device=d), lambda a: a.std() > 0.5),
    'poisson': (lambda d: lt.poisson(lt.full((100,), 4., device=d)), lambda a: (a == np.round(a)).all() and a.min() >= 0),
    'uniform_': (lambda d: _x(d, 100).uniform_(-2, 3), lambda a: a.min() >= -2 and a.max() < 3),
    'normal_': (lambda d: _x(d, 100, dtype=lt.float64).normal_(1., 0.1), lambda a: abs(a.mean() - 1) < 0.1),
    'exponential_': (lambda d: _x(d, 100).exponential_(2.), lambda a: a.min() >= 0 and 0.2 < a.mean() < 1),
    'geometric_': (lambda d: _x(d, 100).geometric_(0.3), lambda a: (a == np.round(a)).all() and a.min() >= 1),
    'geometric_int': (lambda d: _x(d, 100, dtype=lt.int64).geometric_(0.5), lambda a: a.min() >= 1),
    'cauchy_': (lambda d: _x(d, 100).cauchy_(1., 0.5), lambda a: np.isfinite(a).all()),
    'log_normal_': (lambda d: _x(d, 100).log_normal_(0., 0.5), lambda a: a.min() > 0),
    'random_': (lambda d: _x(d, 100, dtype=lt.int32).random_(), lambda a: a.min() >= 0),
    'random_to': (lambda d: _x(d, 100, dtype=lt.int64).random_(7), lambda a: a.min() >= 0 and a.max() < 7),
    'random_from_to': (lambda d: _x(d, 100).random_(-3, 4), lambda a: a.min() >= -3 and a.max() < 4 and (a == np.round(a)).all()),
    'randperm': (lambda d: lt.randperm(20, device=d), lambda a: sorted(a.tolist()) == list(range(20))),
    'randperm_int32': (lambda d: lt.randperm(7, dtype=lt.int32, device=d), lambda a: sorted(a.tolist()) == list(range(7))),
    'randint_like': (lambda d: lt.randint_like(_x(d, 4, 5, dtype=lt.int16), 3, 9), lambda a: a.min() >= 3 and a.max() < 9),
    'randint_like_float': (lambda d: lt.randint_like(_x(d, 10), 5), lambda a: a.min() >= 0 and a.max() < 5),
    'rand_like': (lambda d: lt.rand_like(_x(d, 10, dtype=lt.float64)), lambda a: a.min() >= 0 and a.max() < 1),
    'randn': (lambda d: lt.randn(3, 4, device=d, generator=lt.Generator(d).manual_seed(5)), lambda a: a.std() > 0.1),
}
# Host syncs a sampler makes on a GPU: name -> (at most, reason).
SAMPLER_SYNCS = {
    'multinomial': (2, "as torch: without replacement, ATen's multinomial asks on the host whether the weights are finite "
                       "and non-negative and whether a row sums to 0 (two .item() calls)"),
    'multinomial_replacement': (2, "lit_torch limitation: the same two checks (torch's CUDA kernel asserts on the device instead)"),
    'normal_tensors': (1, "as torch: normal(mean, std) checks std.min() >= 0 on the host"),
}

@pytest.mark.parametrize('device', CUDA)
@pytest.mark.parametrize('name', list(SAMPLERS))
def test_sampling_on_device(name, device):
    "Each sampling op draws on the tensor's own GPU, from that GPU's generator: the CPU's dtype and shape, no NumPy call."
    draw, check = SAMPLERS[name]
    ref = draw('cpu')
    lt.manual_seed(0)
    if emulated():
        from cupy import _emulation
        with _emulation.count_syncs() as log: out = draw(device)
    else: out, log = draw(device), None
    on_device(device, out)
    assert out.dtype == ref.dtype and tuple(out.shape) == tuple(ref.shape), (out.dtype, out.shape, ref.dtype, ref.shape)
    assert check(host(out)), host(out)
    lt.manual_seed(0)
    np.testing.assert_array_equal(host(draw(device)), host(out))      # the device's default generator is seeded by manual_seed
    if log is not None:
        assert log.syncs <= SAMPLER_SYNCS.get(name, (0,))[0], log
        assert log.count('numpy') == 0, log
