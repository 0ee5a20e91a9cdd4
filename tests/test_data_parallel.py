"""nn.DataParallel on virtual CPU devices (and CUDA where present): scatter, replicate, parallel_apply, gather,
and the gradients through all four, against the unwrapped model on the whole batch."""
import importlib, threading, warnings
from collections import namedtuple
import numpy as np
import pytest
import torch
import lit_torch as lt
from lit_torch import nn
dpm = importlib.import_module('lit_torch.nn.parallel.data_parallel')  # the module; nn.parallel.data_parallel is the function, as in torch
functions = importlib.import_module('lit_torch.nn.parallel._functions')
scatter_gather = importlib.import_module('lit_torch.nn.parallel.scatter_gather')
from lit_torch.nn.parallel import DataParallel, data_parallel, scatter, gather, replicate, parallel_apply

CPU2, CPU3 = ['cpu:0', 'cpu:1'], ['cpu:0', 'cpu:1', 'cpu:2']
needs_cuda = pytest.mark.skipif(not lt.cuda.is_available() or lt.cuda.device_count() < 2, reason='needs 2 GPUs and CuPy')


class Net(nn.Module):
    "Linear, BatchNorm, dropout 0 and a dict output: what the issue asks DataParallel to carry."
    def __init__(self, bn=True):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(6, 8), nn.Linear(8, 4)
        self.bn = nn.BatchNorm1d(8) if bn else nn.Identity()
        self.drop = nn.Dropout(0.0)
    def forward(self, x, scale=None):
        h = self.drop(self.bn(self.fc1(x)).relu())
        y = self.fc2(h)
        if scale is not None: y = y * scale.unsqueeze(1)
        return {'y': y, 'h': h}


def rand(*shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return lt.tensor(np.where(np.abs(a) < 1e-3, 1e-3, a))


def grads(model): return [p.grad.numpy().copy() for p in model.parameters()]


def run(model, x, w, **kw):
    "Loss = weighted sums of both dict outputs; returns outputs (numpy) and parameter gradients."
    model.zero_grad()
    out = model(x, **kw)
    (out['y'] * w[0]).sum().add((out['h'] * w[1]).sum()).backward()
    return {k: v.detach().numpy().copy() for k, v in out.items()}, out


def check_same(make_model, devices, n=10, train=False, kw=False):
    lt.manual_seed(0)
    model = make_model()
    model.train(train)
    x = rand(n, 6)
    w = (rand(n, 4, seed=1), rand(n, 8, seed=2))
    extra = {'scale': rand(n, seed=3)} if kw else {}
    ref, _ = run(model, x, w, **extra)
    g_ref = grads(model)
    dp = DataParallel(model, device_ids=devices)
    out, raw = run(dp, x, w, **extra)
    for k in ref: np.testing.assert_allclose(out[k], ref[k], rtol=1e-5, atol=1e-6)
    for a, b in zip(grads(model), g_ref): np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert raw['y'].device == lt.device('cpu')
    return model


@pytest.mark.parametrize('devices', [CPU2, CPU3])
def test_bn_model_eval_same_as_plain(devices):
    # BN in train mode normalizes each replica's chunk with its own statistics, so the honest comparison with
    # the whole-batch model is eval mode (running statistics); train mode is compared on a model without BN.
    check_same(Net, devices, train=False)


@pytest.mark.parametrize('devices', [CPU2, CPU3])
def test_train_mode_without_bn_same_as_plain(devices):
    check_same(lambda: Net(bn=False), devices, train=True)


def test_uneven_split_and_kwargs():
    check_same(lambda: Net(bn=False), CPU3, n=7, train=True, kw=True)


def test_bn_train_differs_per_chunk_statistics():
    lt.manual_seed(0)
    model, x = Net(), rand(8, 6) * 3 + 1
    ref = model(x)['y'].detach().numpy()
    out = DataParallel(model, device_ids=CPU2)(x)['y'].detach().numpy()
    assert not np.allclose(out, ref, atol=1e-4)


@pytest.mark.parametrize('n,k', [(7, 3), (5, 4), (2, 3), (8, 2), (1, 8), (9, 8), (13, 5)])
def test_chunk_sizes_match_torch(n, k):
    devices = [f'cpu:{i}' for i in range(k)]
    x = lt.tensor(np.arange(n * 2, dtype=np.float32).reshape(n, 2))
    parts = scatter(x, devices)
    expect = [tuple(c.shape) for c in torch.arange(n * 2.).reshape(n, 2).chunk(k)]
    assert [tuple(p.shape) for p in parts] == expect
    assert [p.device for p in parts] == [lt.device(d) if d != 'cpu:0' else lt.device('cpu') for d in devices[:len(expect)]]
    np.testing.assert_array_equal(np.concatenate([p.numpy() for p in parts]), x.numpy())


def test_scatter_dim1_and_nested():
    x = rand(3, 5)
    parts = scatter((x, [x, 'flag'], {'a': x}, None), CPU2, dim=1)
    assert len(parts) == 2
    assert tuple(parts[0][0].shape) == (3, 3) and tuple(parts[1][0].shape) == (3, 2)
    assert parts[1][1][1] == 'flag' and parts[0][3] is None and parts[1][3] is None
    assert parts[1][2]['a'].device == lt.device('cpu:1')
    np.testing.assert_array_equal(parts[1][1][0].numpy(), x.numpy()[:, 3:])


def test_scatter_kwargs_padding():
    ins, kws = scatter_gather.scatter_kwargs((), {'x': rand(4, 2)}, CPU2)
    assert ins == ((), ()) and [tuple(k['x'].shape) for k in kws] == [(2, 2), (2, 2)]
    ins, kws = scatter_gather.scatter_kwargs((rand(4, 2),), {}, CPU3)
    assert len(ins) == 2 and kws == ({}, {})


def test_fewer_replicas_for_small_batch():
    seen = []
    class Spy(nn.Module):
        def __init__(self): super().__init__(); self.lin = nn.Linear(3, 2)
        def forward(self, x):
            seen.append((str(x.device), x.shape[0])); return self.lin(x)
    model = Spy()
    out = DataParallel(model, device_ids=['cpu:0', 'cpu:1', 'cpu:2', 'cpu:3'])(rand(2, 3))
    assert sorted(seen) == [('cpu', 1), ('cpu:1', 1)]
    out.sum().backward()
    ref = Spy(); ref.load_state_dict(model.state_dict())
    ref(rand(2, 3)).sum().backward()
    np.testing.assert_allclose(model.lin.weight.grad.numpy(), ref.lin.weight.grad.numpy(), rtol=1e-6)


def test_exception_names_replica_and_device():
    class Bad(nn.Module):
        def forward(self, x):
            if x.device == lt.device('cpu:1'): raise ValueError(f"cannot handle {list(x.shape)}")
            return x
    with pytest.raises(ValueError, match=r"Caught ValueError in replica 1 on device cpu:1\.") as e:
        DataParallel(Bad(), device_ids=CPU2)(rand(4, 3))
    assert 'Original Traceback' in str(e.value) and 'cannot handle [2, 3]' in str(e.value)
    class BadKey(nn.Module):
        def forward(self, x): return {}['missing']
    with pytest.raises(KeyError, match='in replica 0 on device cpu'):
        DataParallel(BadKey(), device_ids=CPU2)(rand(4, 3))


def test_mixing_devices_without_dataparallel_raises():
    lin = nn.Linear(3, 2)
    with pytest.raises(RuntimeError, match='same device'):
        lin(rand(2, 3).to('cpu:1'))


def test_bad_devices():
    with pytest.raises(RuntimeError, match='cpu:99'):
        DataParallel(nn.Linear(3, 2), device_ids=['cpu:0', 'cpu:99'])
    with pytest.raises(RuntimeError, match='cpu:42'):
        DataParallel(nn.Linear(3, 2), device_ids=[0, 42])
    lin = nn.Linear(3, 2)
    with pytest.raises(RuntimeError, match=r"on device cpu:1 \(device_ids\[0\]\) but found one of them on device: cpu \('weight'\)"):
        DataParallel(lin, device_ids=['cpu:1', 'cpu:2'])(rand(4, 3).to('cpu:1'))
    lin2 = nn.Linear(3, 2)
    lin2.bias = nn.Parameter(lin2.bias.detach().to('cpu:1'))
    with pytest.raises(RuntimeError, match="'bias'"):
        dpm._check_devices(lin2, lt.device('cpu'))


def test_gather_mismatched_shapes_names_them():
    class Odd(nn.Module):
        def forward(self, x): return x if x.device == lt.device('cpu') else x[:, :2]
    with pytest.raises(RuntimeError, match=r"index 1 \(on cpu:1\) has invalid shape \[2, 2\].*\[2, 3\]"):
        DataParallel(Odd(), device_ids=CPU2)(rand(4, 3))
    with pytest.raises(ValueError, match='same number of keys'):
        gather([{'a': rand(1)}, {'a': rand(1), 'b': rand(1)}], 'cpu')


def test_gather_nested_and_scalars():
    P = namedtuple('P', 'a b')
    outs = [(P(rand(2, 3), None), [rand(2)]), (P(rand(1, 3).to('cpu:1'), None), [rand(1).to('cpu:1')])]
    g = gather(outs, 'cpu')
    assert isinstance(g[0], P) and tuple(g[0].a.shape) == (3, 3) and g[0].b is None and tuple(g[1][0].shape) == (3,)
    with pytest.warns(UserWarning, match='all input tensors were scalars'):
        v = gather([lt.tensor(1.), lt.tensor(2., device='cpu:1')], 'cpu')
    assert v.tolist() == [1., 2.]
    g = gather([rand(2, 3), rand(2, 3).to('cpu:1')], 'cpu:2', dim=1)
    assert g.device == lt.device('cpu:2') and tuple(g.shape) == (2, 6)


def test_state_dict_prefix_and_load():
    model = Net()
    dp = DataParallel(model, device_ids=CPU2)
    keys = list(dp.state_dict())
    assert keys == ['module.' + k for k in model.state_dict()]
    other = Net()
    other.load_state_dict({k[len('module.'):]: v for k, v in dp.state_dict().items()})
    torch_keys = list(torch.nn.DataParallel(torch.nn.Linear(2, 2)).state_dict())
    assert list(DataParallel(nn.Linear(2, 2), device_ids=CPU2).state_dict()) == torch_keys


def test_no_accelerator_plain_call_and_single_device():
    lin = nn.Linear(3, 2)
    dp = DataParallel(lin)
    if not lt.cuda.is_available():
        assert dp.device_ids == [] and dp(rand(2, 3)).grad_fn is not None
    one = DataParallel(nn.Linear(3, 2), device_ids=['cpu:1'])
    assert one.module.weight.device == lt.device('cpu:1')
    out = one(rand(4, 3))   # the input is scattered (moved) to cpu:1
    assert out.device == lt.device('cpu:1')
    assert dp.device_ids == [] or dp.device_ids == list(range(lt.cuda.device_count()))
    dp2 = DataParallel(nn.Linear(3, 2), device_ids=[0, 1], output_device=1)
    assert (dp2.device_ids, dp2.output_device) == ([0, 1], 1)
    assert dp2(rand(4, 3)).device == lt.device('cpu:1')


def test_bn_running_stats_from_first_chunk():
    lt.manual_seed(0)
    bn = nn.BatchNorm1d(3, momentum=0.2)
    x = rand(9, 3) * 2 + 5
    DataParallel(bn, device_ids=CPU3)(x)
    c0 = x.numpy()[:3]
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.2 * c0.mean(0), rtol=1e-5)
    np.testing.assert_allclose(bn.running_var.numpy(), 0.8 + 0.2 * c0.var(0, ddof=1), rtol=1e-5)
    assert bn.num_batches_tracked.item() == 1
    # the same thing torch computes for a plain BN on chunk 0
    tb = torch.nn.BatchNorm1d(3, momentum=0.2)
    tb(torch.tensor(c0))
    np.testing.assert_allclose(bn.running_mean.numpy(), tb.running_mean.numpy(), rtol=1e-5)


def test_replicas_are_light_and_independent():
    model = Net()
    r0, r1 = replicate(model, CPU2)
    assert list(r1.parameters()) == [] and not r1.fc1.weight.is_leaf
    assert type(r1.fc1.weight.grad_fn).__name__ == 'BroadcastBackward'
    assert r1.fc1.weight.device == lt.device('cpu:1') and r1.bn.running_mean.device == lt.device('cpu:1')
    assert not np.shares_memory(r1.fc1.weight._data, model.fc1.weight._data)
    assert np.shares_memory(r0.fc1.weight._data, model.fc1.weight._data)
    assert r0.bn.running_mean is model.bn.running_mean and r1.bn.running_mean is not model.bn.running_mean
    assert list(r1.fc1._former_parameters) == ['weight', 'bias']
    assert r1.bn.eps == model.bn.eps and r1.bn is not model.bn
    with lt.no_grad():
        d0, d1 = replicate(model, CPU2, detach=True)
    assert d1.fc1.weight.grad_fn is None and d0.fc1.weight is model.fc1.weight


def test_no_grad_forward():
    model = Net()
    with lt.no_grad():
        out = DataParallel(model, device_ids=CPU2)(rand(4, 6))
    assert out['y'].grad_fn is None and not out['y'].requires_grad


def test_data_parallel_functional():
    lt.manual_seed(0)
    model = Net(bn=False)
    x = rand(6, 6)
    ref = model(x)['y'].detach().numpy()
    out = data_parallel(model, x, CPU3, module_kwargs={'scale': lt.ones(6)})
    np.testing.assert_allclose(out['y'].detach().numpy(), ref, rtol=1e-5, atol=1e-6)
    out2 = data_parallel(model, (x,), CPU2, output_device='cpu:1')
    assert out2['y'].device == lt.device('cpu:1')


def test_input_gradient_and_external_leaf_fallback():
    lt.manual_seed(0)
    ext = lt.randn(4, requires_grad=True)
    class UsesExternal(nn.Module):   # captures a leaf from outside: backward falls back to the engine's thread
        def __init__(self): super().__init__(); self.lin = nn.Linear(3, 4)
        def forward(self, x): return self.lin(x) * ext.to(x.device)
    for make in (UsesExternal, lambda: nn.Linear(3, 4)):
        model = make()
        x = rand(5, 3).requires_grad_()
        w = rand(5, 4, seed=4)
        (model(x) * w).sum().backward()
        ref = [x.grad.numpy().copy(), model.weight.grad.numpy().copy() if hasattr(model, 'weight') else model.lin.weight.grad.numpy().copy()]
        g_ext = ext.grad.numpy().copy() if ext.grad is not None else None
        x.grad = None; model.zero_grad(); ext.grad = None
        out = DataParallel(model, device_ids=CPU3)(x)
        contained = {type(e[0]).__name__ for e in out.grad_fn.next_functions} == {'ParallelApplyBackward'}
        assert contained == (make is not UsesExternal)
        (out * w).sum().backward()
        got = [x.grad.numpy(), model.weight.grad.numpy() if hasattr(model, 'weight') else model.lin.weight.grad.numpy()]
        for a, b in zip(got, ref): np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        if g_ext is not None: np.testing.assert_allclose(ext.grad.numpy(), g_ext, rtol=1e-5, atol=1e-6)
        ext.grad = None


def test_backward_runs_in_threads_and_retain_graph():
    model = nn.Sequential(nn.Linear(4, 4), nn.Tanh())
    dp = DataParallel(model, device_ids=CPU2)
    out = dp(rand(6, 4))
    h = out.grad_fn  # GatherBackward
    parallel = [e[0] for e in h.next_functions]
    assert {type(n).__name__ for n in parallel} == {'ParallelApplyBackward'}
    loss = out.sum()
    loss.backward(retain_graph=True)
    g1 = model[0].weight.grad.numpy().copy()
    loss.backward()
    np.testing.assert_allclose(model[0].weight.grad.numpy(), 2 * g1, rtol=1e-6)
    with pytest.raises(RuntimeError, match='second time'):
        loss.backward()
    with functions._record_timeline() as events:
        dp(rand(6, 4)).sum().backward()
    assert sorted(e[0] for e in events if e[1] == 'backward') == ['cpu', 'cpu:1']
    assert sorted(e[0] for e in events if e[1] == 'forward') == ['cpu', 'cpu:1']


def test_training_steps_match_plain():
    def train(wrap):
        lt.manual_seed(0)
        model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
        net = DataParallel(model, device_ids=CPU3) if wrap else model
        opt = lt.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        for i in range(3):
            opt.zero_grad()
            x, y = rand(11, 6, seed=10 + i), lt.tensor(np.random.default_rng(i).integers(0, 3, 11))
            nn.functional.cross_entropy(net(x), y).backward()
            opt.step()
        return [p.detach().numpy().copy() for p in model.parameters()]
    for a, b in zip(train(True), train(False)): np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_grad_mode_propagated_into_threads():
    modes = []
    class Spy(nn.Module):
        def forward(self, x): modes.append(lt.is_grad_enabled()); return x
    ins = [(rand(2, 2),), (rand(2, 2).to('cpu:1'),)]
    with lt.no_grad(): parallel_apply([Spy(), Spy()], ins)
    parallel_apply([Spy(), Spy()], ins)
    assert modes == [False, False, True, True]
    with pytest.raises(AssertionError, match='number of modules 2 is not equal to the number of inputs 1'):
        parallel_apply([Spy(), Spy()], ins[:1])


def f64(*shape, seed=0):
    return lt.tensor(np.random.default_rng(seed).standard_normal(shape)).requires_grad_()


def test_gradcheck_scatter_gather():
    x = f64(5, 3)
    f = lambda x: tuple(p.to('cpu') * (i + 1.5) for i, p in enumerate(functions.Scatter.apply(CPU3, None, 0, x)))
    assert lt.autograd.gradcheck(f, (x,))
    a, b = f64(2, 3), f64(3, 3, seed=1).detach().to('cpu:1').requires_grad_()
    assert lt.autograd.gradcheck(lambda a, b: functions.Gather.apply('cpu:2', 0, a, b), (a, b))
    assert lt.autograd.gradcheck(lambda a: functions.Gather.apply('cpu', 1, a, a.to('cpu:1') * 2), (a,))


def test_gradcheck_broadcast_reduce():
    w, v = f64(3), f64(2, 2, seed=1)
    def f(w, v):
        outs = functions.Broadcast.apply(CPU3, w, v)
        return tuple(o.to('cpu') * (i + 1.0) for i, o in enumerate(outs))
    assert lt.autograd.gradcheck(f, (w, v))
    assert lt.autograd.gradgradcheck(lambda w: tuple(o.to('cpu') ** 2 for o in functions.Broadcast.apply(CPU2, w)), (w,))
    g1, g2 = f64(3), f64(3, seed=2).detach().to('cpu:1').requires_grad_()
    assert lt.autograd.gradcheck(lambda a, b: functions.ReduceAddCoalesced.apply('cpu', 1, a, b), (g1, g2))


def test_gradcheck_through_dataparallel():
    lin = nn.Linear(3, 2).double()
    x = f64(5, 3)
    assert lt.autograd.gradcheck(lambda x: DataParallel(lin, device_ids=CPU3)(x), (x,))


@needs_cuda
def test_cuda_same_as_plain():
    lt.manual_seed(0)
    model = Net(bn=False).to('cuda:0')
    x = rand(7, 6).to('cuda:0')
    ref = model(x)['y']
    ref.sum().backward()
    g = model.fc1.weight.grad.cpu().numpy().copy(); model.zero_grad()
    out = DataParallel(model, device_ids=[0, 1])(x)['y']
    out.sum().backward()
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().cpu().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(model.fc1.weight.grad.cpu().numpy(), g, rtol=1e-5, atol=1e-5)

def test_torch_module_layout():
    "The pieces live under torch's module names too: scatter_gather, replicate, parallel_apply."
    from lit_torch.nn.parallel.scatter_gather import scatter, gather, scatter_kwargs
    from lit_torch.nn.parallel.replicate import replicate
    from lit_torch.nn.parallel.parallel_apply import parallel_apply
    assert (scatter, gather, replicate, parallel_apply) == (lt.nn.parallel.scatter, lt.nn.parallel.gather,
                                                            lt.nn.parallel.replicate, lt.nn.parallel.parallel_apply)
    assert lt.nn.DataParallel is lt.nn.parallel.DataParallel and callable(scatter_kwargs)
