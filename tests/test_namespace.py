"""The namespace real programs touch, against real torch on this CPU machine: backends, accelerator, cuda, amp, checkpoint,
testing, the torch/__init__ functions, multiprocessing, jit/onnx/hub, and the RandomSampler's chunked draws."""
import importlib.util, multiprocessing, os, pickle, subprocess, sys, tracemalloc, warnings
import numpy as np
import pytest
import torch
import lit_torch
import lit_torch.nn.functional as LF
import torch.nn.functional as TF

def seeded(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)

def both(a, requires_grad=False):
    "The same array as a lit_torch and a torch tensor."
    return (lit_torch.tensor(a).requires_grad_(requires_grad), torch.tensor(a).requires_grad_(requires_grad))

def caught(f):
    "(exception type, message) of calling f, or None."
    try: f()
    except Exception as e: return type(e), str(e)

# ---- torch.backends, torch.accelerator, torch.cuda on a CPU-only machine

def test_backends_import_and_flags_like_torch():
    import lit_torch.backends.cudnn as lc
    import torch.backends.cudnn as tc
    for name in ('enabled', 'benchmark', 'deterministic', 'allow_tf32'): assert getattr(lc, name) == getattr(tc, name), name
    lc.benchmark = True
    assert lit_torch.backends.cudnn.benchmark is True
    lc.benchmark = False
    assert lc.is_available() == tc.is_available() is False
    for lm, tm in ((lit_torch.backends.cuda.matmul, torch.backends.cuda.matmul),):
        for name in ('allow_tf32', 'allow_fp16_reduced_precision_reduction', 'allow_bf16_reduced_precision_reduction'):
            assert getattr(lm, name) == getattr(tm, name), name
    for f in ('flash_sdp_enabled', 'mem_efficient_sdp_enabled', 'math_sdp_enabled', 'cudnn_sdp_enabled'):
        assert getattr(lit_torch.backends.cuda, f)() == getattr(torch.backends.cuda, f)(), f
    assert lit_torch.backends.mps.is_available() == torch.backends.mps.is_available() is False
    assert lit_torch.backends.mps.is_built() == torch.backends.mps.is_built()
    assert lit_torch.backends.cpu.get_cpu_capability() == torch.backends.cpu.get_cpu_capability()
    assert lit_torch.backends.mkldnn.enabled == torch.backends.mkldnn.enabled
    assert isinstance(lit_torch.backends.mkl.is_available(), bool) and isinstance(lit_torch.backends.openmp.is_available(), bool)
    with pytest.raises(AttributeError, match='Unknown attribute'): lit_torch.backends.cuda.matmul.nope = 1

@pytest.mark.skipif(torch.cuda.is_available(), reason='compares the CPU-only behaviour')
def test_accelerator_and_cuda_without_a_gpu():
    A, T = lit_torch.accelerator, torch.accelerator
    assert (A.is_available(), A.current_accelerator(), A.device_count()) == (T.is_available(), T.current_accelerator(), T.device_count())
    for f in ('current_device_index', 'synchronize'):
        assert caught(getattr(A, f)) == caught(getattr(T, f)), f
    assert lit_torch.cuda.manual_seed(1) is None and torch.cuda.manual_seed(1) is None  # quiet, as torch
    assert lit_torch.cuda.manual_seed_all(1) is None and torch.cuda.manual_seed_all(1) is None
    lit_torch.manual_seed(0)
    for f in ('memory_allocated', 'max_memory_allocated', 'memory_reserved', 'is_bf16_supported', 'is_available', 'device_count'):
        assert getattr(lit_torch.cuda, f)() == getattr(torch.cuda, f)(), f
    assert lit_torch.cuda.empty_cache() is None
    with lit_torch.cuda.device(None): pass
    with pytest.raises(RuntimeError): lit_torch.cuda.get_device_name()

# ---- torch.amp

def test_autocast_cpu_bfloat16_matches_torch_values_and_grads():
    x, w, b = seeded(16, 32), seeded(8, 32, seed=1), seeded(8, seed=2)
    (lx, tx), (lw, tw), (lb, tb) = both(x, True), both(w, True), both(b, True)
    with lit_torch.autocast('cpu'): lo = LF.linear(lx, lw, lb); lm = lx @ lw.T
    with torch.autocast('cpu'): to = TF.linear(tx, tw, tb); tm = tx @ tw.T
    assert to.dtype == torch.bfloat16 and lo.dtype == lit_torch.bfloat16 and lm.dtype == lit_torch.bfloat16
    np.testing.assert_allclose(lo.detach().float().numpy(), to.detach().float().numpy(), rtol=2**-7, atol=1e-6)
    np.testing.assert_allclose(lm.detach().float().numpy(), tm.detach().float().numpy(), rtol=2**-7, atol=1e-6)
    near = np.isclose(lo.detach().float().numpy(), to.detach().float().numpy(), rtol=0, atol=0).mean()
    assert near > 0.9, near  # mostly bit-identical bfloat16 values
    (lo * lo).sum().backward(); (to.float() * to.float()).sum().backward()
    for l, t in ((lx, tx), (lw, tw), (lb, tb)): np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), rtol=3e-2, atol=1e-2)

def test_autocast_policies_like_torch():
    x = seeded(4, 8); (lx, tx) = both(x)
    t = np.array([0, 2, 1, 0]); lt, tt = lit_torch.tensor(t), torch.tensor(t)
    with lit_torch.autocast('cpu', dtype=lit_torch.float16):
        assert LF.linear(lx, lx).dtype == lit_torch.float16
        assert LF.cross_entropy(LF.linear(lx, lx[:3]), lt).dtype == lit_torch.float32
        assert lit_torch.exp(lx).dtype == lit_torch.float32  # not listed: its input's dtype
        assert (lx.double() @ lx.double().T).dtype == lit_torch.float64  # float64 is never cast
    with torch.autocast('cpu', dtype=torch.float16):
        assert TF.linear(tx, tx).dtype == torch.float16
        assert TF.cross_entropy(TF.linear(tx, tx[:3]), tt).dtype == torch.float32
        assert torch.exp(tx).dtype == torch.float32
        assert (tx.double() @ tx.double().T).dtype == torch.float64
    assert not hasattr(LF.linear, '__wrapped__')  # nothing stays wrapped outside autocast
    with warnings.catch_warnings(record=True) as lw:
        warnings.simplefilter('always')
        with lit_torch.autocast('cuda'): assert not lit_torch.is_autocast_enabled('cuda')
    with warnings.catch_warnings(record=True) as tw:
        warnings.simplefilter('always')
        with torch.autocast('cuda'): assert not torch.is_autocast_enabled('cuda')
    if not torch.cuda.is_available(): assert str(lw[0].message) == str(tw[0].message)
    assert lit_torch.get_autocast_dtype('cpu') is lit_torch.bfloat16 and torch.get_autocast_dtype('cpu') is torch.bfloat16

def _scaler_run(lib, scaler, steps):
    "A few SGD steps through a GradScaler; some with an overflowing loss. Returns (scale history, weights)."
    lib.manual_seed(0)
    w = lib.nn.Parameter(lib.tensor(seeded(3, 4, seed=5)))
    opt = lib.optim.SGD([w], lr=0.1)
    x = lib.tensor(seeded(2, 4, seed=6))
    hist = []
    for i in range(steps):
        opt.zero_grad()
        loss = (x @ w.T).pow(2).sum() * (float('inf') if i in (2, 5) else 1.0)
        scaler.scale(loss).backward()
        scaler.unscale_(opt) if i == 3 else None
        scaler.step(opt); scaler.update()
        hist.append((scaler.get_scale(), scaler.state_dict()['_growth_tracker']))
    return hist, w.detach().numpy()

def test_grad_scaler_matches_torch():
    kw = dict(init_scale=2.0**10, growth_factor=2.0, backoff_factor=0.5, growth_interval=2)
    lh, lwt = _scaler_run(lit_torch, lit_torch.amp.GradScaler('cpu', **kw), 8)
    th, twt = _scaler_run(torch, torch.amp.GradScaler('cpu', **kw), 8)
    assert lh == th
    np.testing.assert_allclose(lwt, twt, rtol=1e-5, atol=1e-6)
    ls, ts = lit_torch.amp.GradScaler('cpu', **kw), torch.amp.GradScaler('cpu', **kw)
    assert list(ls.state_dict().items()) == list(ts.state_dict().items())
    ls.load_state_dict(ts.state_dict()); assert ls.get_scale() == ts.get_scale()

@pytest.mark.skipif(torch.cuda.is_available(), reason='compares the CPU-only behaviour')
def test_cuda_grad_scaler_disables_itself_like_torch():
    msgs = []
    for lib in (lit_torch, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always'); s = lib.cuda.amp.GradScaler()
        msgs.append([(x.category, str(x.message)) for x in w])
        assert not s.is_enabled() and s.state_dict() == {} and s.get_scale() == 1.0
    assert msgs[0] == msgs[1]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore'); s = lit_torch.amp.GradScaler('cuda')
    x = lit_torch.ones(2, requires_grad=True); loss = x.sum()
    assert s.scale(loss) is loss

# ---- torch.utils.checkpoint

def _pair_net(lib):
    lib.manual_seed(0)
    nn = lib.nn
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.GELU(), nn.Linear(16, 3))

def _copy_weights(src, dst):
    for (n, p), (_, q) in zip(src.named_parameters(), dst.named_parameters()):
        with torch.no_grad(): q.copy_(torch.tensor(p.detach().numpy()))

@pytest.mark.parametrize('use_reentrant', [True, False])
@pytest.mark.parametrize('kind', ['checkpoint', 'sequential'])
def test_checkpoint_gradients_equal_torch(use_reentrant, kind):
    ln, tn = _pair_net(lit_torch), _pair_net(torch); _copy_weights(ln, tn)
    (lx, tx) = both(seeded(5, 6, seed=3), True)
    import lit_torch.utils.checkpoint as lcp, torch.utils.checkpoint as tcp
    if kind == 'checkpoint':
        lo = lcp.checkpoint(ln, lx, use_reentrant=use_reentrant); to = tcp.checkpoint(tn, tx, use_reentrant=use_reentrant)
    else:
        lo = lcp.checkpoint_sequential(ln, 2, lx, use_reentrant=use_reentrant); to = tcp.checkpoint_sequential(tn, 2, tx, use_reentrant=use_reentrant)
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-5, atol=1e-6)
    lo.pow(2).sum().backward(); to.pow(2).sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-6)
    for lp, tp in zip(ln.parameters(), tn.parameters()): np.testing.assert_allclose(lp.grad.numpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-6)

def test_checkpoint_non_reentrant_without_input_grad_and_with_autograd_grad():
    import lit_torch.utils.checkpoint as lcp, torch.utils.checkpoint as tcp
    ln, tn = _pair_net(lit_torch), _pair_net(torch); _copy_weights(ln, tn)
    (lx, tx) = both(seeded(5, 6, seed=4))  # no input requires grad
    lg = lit_torch.autograd.grad(lcp.checkpoint(ln, lx, use_reentrant=False).sum(), list(ln.parameters()))
    tg = torch.autograd.grad(tcp.checkpoint(tn, tx, use_reentrant=False).sum(), list(tn.parameters()))
    for a, b in zip(lg, tg): np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-6)

def test_checkpoint_dropout_recomputes_the_same_mask():
    import lit_torch.utils.checkpoint as lcp
    net = lit_torch.nn.Sequential(lit_torch.nn.Linear(4, 32), lit_torch.nn.Dropout(0.5), lit_torch.nn.Linear(32, 1))
    x = lit_torch.tensor(seeded(8, 4, seed=7), requires_grad=True)
    lit_torch.manual_seed(3); net(x).sum().backward(); want = x.grad.numpy().copy(); x.grad = None
    lit_torch.manual_seed(3); lcp.checkpoint(net, x, use_reentrant=False).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), want)

# ---- torch.testing

ASSERT_CASES = [
    lambda L: ((L.tensor([1., 2., 3.]), L.tensor([1., 2.5, 3.])), {}),
    lambda L: ((L.tensor([1, 2]), L.tensor([1, 3])), {}),
    lambda L: ((L.ones(2), L.ones(3)), {}),
    lambda L: ((L.ones(2), L.ones(2, dtype=L.float64)), {}),
    lambda L: ((1.0, 1.5), {}),
    lambda L: ((1, 2), {}),
    lambda L: (([L.ones(1), L.zeros(1)], [L.ones(1), L.ones(1)]), {}),
    lambda L: (({'a': L.ones(1)}, {'a': L.zeros(1)}), {}),
    lambda L: ((L.tensor([float('nan')]), L.tensor([float('nan')])), {}),
    lambda L: ((L.tensor([float('nan')]), L.tensor([float('nan')])), {'equal_nan': True}),
    lambda L: ((L.ones(2), np.ones(2)), {}),
    lambda L: ((np.ones(2), np.zeros(2)), {}),
    lambda L: ((L.ones(2, 2), L.zeros(2, 2)), {'msg': 'custom'}),
    lambda L: ((L.tensor([1., 2.]), L.tensor([1., 2.])), {'rtol': 0}),
    lambda L: ((L.tensor([0., 2.]), L.tensor([1., 2.])), {}),
    lambda L: ((L.tensor([1., 2.]), L.tensor([1., 2. + 1e-6])), {}),
    lambda L: ((L.tensor([[1., 2.], [3., 4.]]), L.tensor([[1., 2.], [3., 4.1]])), {'rtol': 1e-3, 'atol': 1e-3}),
    lambda L: ((L.tensor([1., 2.], dtype=L.float16), L.tensor([1., 2.001], dtype=L.float16)), {}),
]

@pytest.mark.parametrize('i', range(len(ASSERT_CASES)))
def test_assert_close_messages_are_torchs(i):
    (la, lkw), (ta, tkw) = ASSERT_CASES[i](lit_torch), ASSERT_CASES[i](torch)
    got = caught(lambda: lit_torch.testing.assert_close(*la, **lkw))
    want = caught(lambda: torch.testing.assert_close(*ta, **tkw))
    if want is not None and want[0] is TypeError:  # the type names differ (lit_torch.Tensor); the sentence is torch's
        assert got[0] is TypeError and got[1].startswith('No comparison pair was able to handle inputs of type')
    else: assert got == want

def test_make_tensor_like_torch():
    for dt in ('float32', 'float64', 'int64', 'uint8', 'bool'):
        l = lit_torch.testing.make_tensor(50, 4, dtype=getattr(lit_torch, dt), device='cpu')
        t = torch.testing.make_tensor(50, 4, dtype=getattr(torch, dt), device='cpu')
        assert str(l.dtype) == str(t.dtype) and tuple(l.shape) == tuple(t.shape)
        if dt != 'bool':
            assert l.numpy().min() >= -9 and l.numpy().max() <= 10 and t.numpy().min() >= -9
    l = lit_torch.testing.make_tensor((100,), dtype=lit_torch.int64, device='cpu', low=0, high=3, exclude_zero=True)
    assert set(l.tolist()) <= {1, 2}

# ---- what torch/__init__.py defines, Generator, finfo/iinfo

def test_torch_init_functions_like_torch():
    assert type(lit_torch.manual_seed(0)) is lit_torch.Generator and type(torch.manual_seed(0)) is torch.Generator
    assert lit_torch.compile(lit_torch.nn.Linear(1, 1)).__class__ is lit_torch.nn.Linear
    m = lit_torch.nn.Linear(2, 2); assert lit_torch.compile(m) is m and lit_torch.compile(mode='reduce-overhead')(m) is m
    for lx, tx in (both(seeded(2)), (lit_torch.tensor([1, 2]), torch.tensor([1, 2]))):
        assert lit_torch.typename(lx) == torch.typename(tx)
    assert lit_torch.typename(3) == torch.typename(3)
    assert lit_torch.is_tensor(lit_torch.ones(1)) and not lit_torch.is_tensor([1])
    assert str(lit_torch.get_default_device()) == str(torch.get_default_device())
    for p in ('high', 'medium', 'highest'):
        lit_torch.set_float32_matmul_precision(p); torch.set_float32_matmul_precision(p)
        assert lit_torch.get_float32_matmul_precision() == torch.get_float32_matmul_precision()
    lit_torch.use_deterministic_algorithms(True); torch.use_deterministic_algorithms(True)
    assert lit_torch.are_deterministic_algorithms_enabled() == torch.are_deterministic_algorithms_enabled() is True
    lit_torch.use_deterministic_algorithms(False); torch.use_deterministic_algorithms(False)
    assert caught(lambda: lit_torch.set_num_threads(0)) == caught(lambda: torch.set_num_threads(0))

def test_default_device_is_honoured_by_factories():
    lit_torch.set_default_device('cpu:1')
    try:
        for f in (lambda: lit_torch.zeros(2), lambda: lit_torch.randn(2), lambda: lit_torch.tensor([1.]), lambda: lit_torch.arange(3),
                  lambda: lit_torch.nn.Linear(2, 2).weight):
            assert str(f().device) == 'cpu:1'
        assert str(lit_torch.get_default_device()) == 'cpu:1'
    finally: lit_torch.set_default_device(None)
    assert str(lit_torch.zeros(1).device) == 'cpu'

@pytest.mark.skipif(importlib.util.find_spec('threadpoolctl') is None, reason='threadpoolctl is not installed')
def test_num_threads_through_threadpoolctl():
    from threadpoolctl import threadpool_info
    n = lit_torch.get_num_threads()
    try:
        lit_torch.set_num_threads(1)
        assert lit_torch.get_num_threads() == 1
        assert all(i['num_threads'] == 1 for i in threadpool_info() if i['user_api'] == 'blas')
    finally: lit_torch.set_num_threads(n)

def test_finfo_iinfo_like_torch():
    assert (lit_torch.finfo.__module__, torch.finfo.__module__) == ('lit_torch', 'torch')
    for name in ('float16', 'float32', 'float64', 'bfloat16'):
        l, t = lit_torch.finfo(getattr(lit_torch, name)), torch.finfo(getattr(torch, name))
        assert repr(l) == repr(t), name
        for a in ('bits', 'eps', 'max', 'min', 'tiny', 'smallest_normal', 'resolution', 'dtype'): assert getattr(l, a) == getattr(t, a), (name, a)
    assert repr(lit_torch.finfo()) == repr(torch.finfo())
    for name in ('uint8', 'int8', 'int16', 'int32', 'int64'):
        l, t = lit_torch.iinfo(getattr(lit_torch, name)), torch.iinfo(getattr(torch, name))
        assert repr(l) == repr(t) and (l.bits, l.min, l.max, l.dtype) == (t.bits, t.min, t.max, t.dtype), name
    for f in (lambda L: L.finfo(L.int32), lambda L: L.iinfo(L.float32), lambda L: L.iinfo(L.bool)):
        assert caught(lambda: f(lit_torch)) == caught(lambda: f(torch))

def test_generator_api():
    g, tg = lit_torch.Generator(), torch.Generator()
    assert str(g.device) == str(tg.device)
    assert g.manual_seed(5) is g and g.initial_seed() == tg.manual_seed(5).initial_seed() == 5
    s = g.get_state(); a = lit_torch.rand(3, generator=g); g.set_state(s)
    assert lit_torch.rand(3, generator=g).tolist() == a.tolist()
    assert isinstance(g.seed(), int)

# ---- torch.multiprocessing

def _add_one(q, done):
    t = q.get()
    t.add_(1)
    done.put((t.is_shared(), t.tolist()))

def _send_back(q, ack):
    q.put(lit_torch.arange(4.) * 2)
    ack.get(timeout=120)  # the sender must outlive the receiver's fetch of the descriptor, as in torch

@pytest.mark.parametrize('method', ['fork', 'spawn'])
def test_tensor_through_queue_is_shared(method):
    ctx = multiprocessing.get_context(method)
    q, done = ctx.Queue(), ctx.Queue()
    t = lit_torch.zeros(2, 3)[:, 1:]  # a view: its layout travels too
    p = ctx.Process(target=_add_one, args=(q, done)); p.start()
    q.put(t)
    shared, seen = done.get(timeout=120); p.join(timeout=60)
    assert shared and seen == [[1., 1.], [1., 1.]]
    assert t.tolist() == [[1., 1.], [1., 1.]] and t.is_shared()  # the child's update is the parent's
    ack = ctx.Queue()
    p = ctx.Process(target=_send_back, args=(q, ack)); p.start()
    back = q.get(timeout=120); ack.put(True); p.join(timeout=60)
    assert back.tolist() == [0., 2., 4., 6.] and back.is_shared()

_IMPORT_LIT_TORCH_FIRST = """
import sys, lit_torch
assert __name__ != '__main__' or 'multiprocessing' not in sys.modules, 'import lit_torch imported multiprocessing'
import multiprocessing as mp
def child(q, done):
    t = q.get(); t.add_(1); done.put(t.is_shared())
if __name__ == '__main__':
    ctx = mp.get_context(sys.argv[1])
    q, done = ctx.Queue(), ctx.Queue()
    t = lit_torch.zeros(3)
    p = ctx.Process(target=child, args=(q, done)); p.start()
    q.put(t)
    print(done.get(timeout=120), t.tolist(), t.is_shared()); p.join(timeout=60)
"""

@pytest.mark.parametrize('method', ['fork', 'spawn'])
def test_sharing_registers_when_multiprocessing_is_imported_after_lit_torch(method, tmp_path):
    # import lit_torch no longer imports multiprocessing; the program's own import of it must still make tensors shared
    script = tmp_path / 'prog.py'; script.write_text(_IMPORT_LIT_TORCH_FIRST)
    out = subprocess.run([sys.executable, str(script), method], capture_output=True, text=True, timeout=300,
                         env={**os.environ, 'PYTHONPATH': os.pathsep.join(sys.path)})
    assert out.stdout.split() == ['True', '[1.0,', '1.0,', '1.0]', 'True'], out.stderr

def test_parameter_and_errors_through_pickler():
    from multiprocessing.reduction import ForkingPickler
    p = lit_torch.nn.Parameter(lit_torch.ones(2))
    q = ForkingPickler.loads(bytes(ForkingPickler.dumps(p)))
    assert type(q) is lit_torch.nn.Parameter and q.requires_grad and q.is_shared()
    with pytest.raises(RuntimeError, match='Cowardly refusing to serialize non-leaf tensor'):
        ForkingPickler.dumps(lit_torch.ones(2, requires_grad=True) * 2)
    assert lit_torch.multiprocessing.get_all_sharing_strategies() == torch.multiprocessing.get_all_sharing_strategies()
    assert lit_torch.multiprocessing.get_sharing_strategy() == torch.multiprocessing.get_sharing_strategy()

def _spawned(i, path):
    with open(os.path.join(path, f'{i}.txt'), 'w') as f: f.write(str(i * i))

def _spawn_fails(i):
    if i == 1: raise ValueError('rank one failed')
    import time; time.sleep(60)

def test_spawn_and_its_errors(tmp_path):
    lit_torch.multiprocessing.spawn(_spawned, args=(str(tmp_path),), nprocs=2)
    assert sorted(p.read_text() for p in tmp_path.iterdir()) == ['0', '1']
    with pytest.raises(lit_torch.multiprocessing.ProcessRaisedException, match='rank one failed') as e:
        lit_torch.multiprocessing.start_processes(_spawn_fails, nprocs=2, start_method='fork')
    assert e.value.error_index == 1 and '-- Process 1 terminated with the following error:' in e.value.msg

# ---- jit, onnx, hub

def test_jit_onnx_hub():
    m = lit_torch.nn.Linear(2, 2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        assert lit_torch.jit.script(m) is m and lit_torch.jit.trace(m, lit_torch.ones(1, 2)) is m
    assert w and all('TorchScript' in str(x.message) for x in w)
    f = lambda x: x
    assert lit_torch.jit.ignore(f) is f and lit_torch.jit.unused(f) is f and lit_torch.jit.export(f) is f
    from lit_torch import onnx
    with pytest.raises(NotImplementedError, match='cannot export ONNX'): onnx.export(m, (lit_torch.ones(1, 2),), 'm.onnx')
    old = os.environ.pop('TORCH_HOME', None)
    try: assert lit_torch.hub.get_dir() == torch.hub.get_dir()
    finally:
        if old is not None: os.environ['TORCH_HOME'] = old
    with pytest.raises(RuntimeError, match='could not download'):
        lit_torch.hub.download_url_to_file('http://127.0.0.1:9/x.pt', os.path.join(os.getcwd(), 'never.pt'))

# ---- RandomSampler with replacement draws in chunks

def test_random_sampler_huge_num_samples_is_lazy():
    from lit_torch.utils.data import RandomSampler
    tracemalloc.start()
    it = iter(RandomSampler(range(10), replacement=True, num_samples=10**10))
    first = [next(it) for _ in range(1000)]
    peak = tracemalloc.get_traced_memory()[1]; tracemalloc.stop()
    assert peak < 10 * 2**20, peak  # torch's 74.5 GiB draw would never get here
    assert all(0 <= i < 10 for i in first) and len(set(first)) == 10
    s = RandomSampler(range(7), replacement=True, num_samples=100, generator=lit_torch.Generator().manual_seed(1))
    assert len(list(s)) == 100 == len(s)
