"""Every nn module class lit_torch exports, forward and backward on cuda:0 and cuda:1 against the same module on the CPU.

One instance of each class: built from the first sample of torch's module_db entry (its constructor arguments and
forward inputs), or, for classes module_db lacks, from the small spec in EXTRA below. Two copies are built with the
same seed; one runs on the CPU, the other is moved with `.to(device)` and runs there on copies of the same inputs.
Then every output, input gradient, parameter gradient and buffer must live on the device's own GPU and equal the
CPU's. Modules that draw random numbers in training (dropout & co.) are compared on shapes and devices only.

Under the emulation (tests/fake_cupy) each device run also counts host syncs: a layer's forward and backward must
never wait for the GPU (as PyTorch's kernels do not), and must call no NumPy function on a device array. The few
classes that cannot help it are listed in SYNCS with the reason. cuda:1 is never the current device unless
lit_torch makes it so (test_cuda's fixture), so a missing device context fails there.
"""
import inspect, warnings
import numpy as np
import pytest
import torch
import lit_torch as lt
import lit_torch.nn as lnn
from test_moduleinfo import module_db, to_lit, flat, RANDOM_IN_TRAIN, RANDOM_UNLESS_SAMPLES

pytestmark = [pytest.mark.skipif(not lt.cuda.is_available(), reason='no GPU: CuPy or a device is missing (make test-cuda-emulated runs these without one)'),
              pytest.mark.filterwarnings('ignore')]
two_gpus = pytest.mark.skipif(lt.cuda.device_count() < 2, reason='needs 2 GPUs')

@pytest.fixture(autouse=True)
def _current_device_is_0():
    lt.cuda.set_device(0)
    yield
    lt.cuda.set_device(0)

def emulated():
    import cupy
    return getattr(cupy, '_emulated', False)

# Not run here, each with its reason.
NOT_HERE = {'Module': 'the base class: nothing to run', 'ModuleDict': 'a container without forward',
            'ModuleList': 'a container without forward', 'ParameterDict': 'a container without forward',
            'ParameterList': 'a container without forward',
            'DataParallel': 'test_cuda.py::test_data_parallel_over_two_gpus and test_data_parallel.py run it on two GPUs',
            'RNNBase': 'the base of RNN, LSTM and GRU: no forward of its own (as in torch)',
            'RNNCellBase': 'the base of the cells: no forward of its own (as in torch)'}

def R(*shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return np.where(np.abs(a) < 1e-3, 1e-3, a).astype(np.float32)

def I(high, *shape, seed=0): return np.random.default_rng(seed).integers(0, high, shape).astype(np.int64)

def _unpool_inputs(nd):
    x = lt.tensor(R(2, 3, *[4] * nd))
    pool = getattr(lt.nn.functional, f'max_pool{nd}d')
    y, idx = pool(x, 2, return_indices=True)
    return [y.detach().numpy(), idx.numpy()]

# Classes module_db has no entry for: name -> (constructor, [input arrays], mode). mode 'eval' where training
# needs more than one process (SyncBatchNorm).
EXTRA = {
    'AlphaDropout': (lambda m: m.AlphaDropout(0.5), lambda: [R(4, 5)]),
    'ChannelShuffle': (lambda m: m.ChannelShuffle(2), lambda: [R(2, 4, 3, 3)]),
    'CosineSimilarity': (lambda m: m.CosineSimilarity(), lambda: [R(4, 5), R(4, 5, seed=1)]),
    'CrossMapLRN2d': (lambda m: m.CrossMapLRN2d(3), lambda: [R(2, 4, 5, 5)]),
    'Dropout': (lambda m: m.Dropout(0.5), lambda: [R(4, 5)]),
    'Dropout1d': (lambda m: m.Dropout1d(0.5), lambda: [R(2, 3, 5)]),
    'Dropout2d': (lambda m: m.Dropout2d(0.5), lambda: [R(2, 3, 4, 4)]),
    'Dropout3d': (lambda m: m.Dropout3d(0.5), lambda: [R(2, 3, 2, 3, 3)]),
    'EmbeddingBag': (lambda m: m.EmbeddingBag(10, 3, mode='mean'), lambda: [I(10, 2, 4)]),
    'FeatureAlphaDropout': (lambda m: m.FeatureAlphaDropout(0.5), lambda: [R(2, 3, 4, 4)]),
    'Flatten': (lambda m: m.Flatten(), lambda: [R(2, 3, 4)]),
    'Fold': (lambda m: m.Fold(output_size=(4, 5), kernel_size=2), lambda: [R(2, 12, 12)]),
    'Hardsigmoid': (lambda m: m.Hardsigmoid(), lambda: [R(4, 5) * 4]),
    'Identity': (lambda m: m.Identity(), lambda: [R(4, 5)]),
    'LazyBatchNorm1d': (lambda m: m.LazyBatchNorm1d(), lambda: [R(4, 5)]),
    'LazyBatchNorm2d': (lambda m: m.LazyBatchNorm2d(), lambda: [R(2, 3, 4, 4)]),
    'LazyBatchNorm3d': (lambda m: m.LazyBatchNorm3d(), lambda: [R(2, 3, 2, 3, 3)]),
    'LazyInstanceNorm1d': (lambda m: m.LazyInstanceNorm1d(affine=True), lambda: [R(2, 3, 5)]),
    'LazyInstanceNorm2d': (lambda m: m.LazyInstanceNorm2d(affine=True), lambda: [R(2, 3, 4, 4)]),
    'LazyInstanceNorm3d': (lambda m: m.LazyInstanceNorm3d(affine=True), lambda: [R(2, 3, 2, 3, 3)]),
    'LazyLinear': (lambda m: m.LazyLinear(3), lambda: [R(4, 5)]),
    'MaxUnpool1d': (lambda m: m.MaxUnpool1d(2), lambda: _unpool_inputs(1)),
    'MaxUnpool2d': (lambda m: m.MaxUnpool2d(2), lambda: _unpool_inputs(2)),
    'MaxUnpool3d': (lambda m: m.MaxUnpool3d(2), lambda: _unpool_inputs(3)),
    'NLLLoss2d': (lambda m: m.NLLLoss2d(), lambda: [R(2, 3, 4, 4), I(3, 2, 4, 4)]),
    'PairwiseDistance': (lambda m: m.PairwiseDistance(), lambda: [R(4, 5), R(4, 5, seed=1)]),
    'PixelShuffle': (lambda m: m.PixelShuffle(2), lambda: [R(2, 8, 3, 3)]),
    'PixelUnshuffle': (lambda m: m.PixelUnshuffle(2), lambda: [R(2, 2, 4, 4)]),
    'RReLU': (lambda m: m.RReLU(), lambda: [R(4, 5)]),
    'Sequential': (lambda m: m.Sequential(m.Linear(5, 3), m.ReLU(), m.Linear(3, 2)), lambda: [R(4, 5)]),
    'SyncBatchNorm': (lambda m: m.SyncBatchNorm(3), lambda: [R(2, 3, 4)], 'eval'),
    'TransformerDecoder': (lambda m: m.TransformerDecoder(m.TransformerDecoderLayer(8, 2, 16, 0.0, batch_first=True), 2),
                           lambda: [R(2, 4, 8), R(2, 5, 8, seed=1)]),
    'TripletMarginLoss': (lambda m: m.TripletMarginLoss(), lambda: [R(4, 5), R(4, 5, seed=1), R(4, 5, seed=2)]),
    'TripletMarginWithDistanceLoss': (lambda m: m.TripletMarginWithDistanceLoss(), lambda: [R(4, 5), R(4, 5, seed=1), R(4, 5, seed=2)]),
    'Unflatten': (lambda m: m.Unflatten(1, (2, 3)), lambda: [R(4, 6)]),
    'Unfold': (lambda m: m.Unfold(kernel_size=2), lambda: [R(2, 3, 4, 5)]),
    'Upsample': (lambda m: m.Upsample(scale_factor=2, mode='bilinear'), lambda: [R(2, 3, 4, 4)]),
    'UpsamplingBilinear2d': (lambda m: m.UpsamplingBilinear2d(scale_factor=2), lambda: [R(2, 3, 4, 4)]),
    'UpsamplingNearest2d': (lambda m: m.UpsamplingNearest2d(scale_factor=2), lambda: [R(2, 3, 4, 4)]),
}
RANDOM = {'AlphaDropout', 'Dropout', 'Dropout1d', 'Dropout2d', 'Dropout3d', 'FeatureAlphaDropout', 'RReLU',
          'FractionalMaxPool2d', 'FractionalMaxPool3d'} | {n[3:] for n in RANDOM_IN_TRAIN | RANDOM_UNLESS_SAMPLES}

# Lazy modules whose parameters are drawn at the first forward, on the device, from the device's generator (as in
# torch): a different stream from the CPU's, so compared on shapes, dtypes and devices only.
LAZY_RANDOM = {'LazyLinear'} | {f'Lazy{c}{d}d' for c in ('Conv', 'ConvTranspose') for d in (1, 2, 3)}

# Host syncs a class cannot avoid, with the reason: name -> the most allowed in one forward+backward.
# Two kinds: torch syncs there too, or a lit_torch limitation (listed in tests/fake_cupy/BUGS.md) whose fix is too large.
SYNCS = {
    'CTCLoss': (5, 'as torch: its CUDA ctc_loss copies input_lengths and target_lengths to the host (IntArrayRef), '
                   'and the alignment lattice is sized from them'),
    'GaussianNLLLoss': (1, "as torch: F.gaussian_nll_loss asks torch.any(var < 0) on the host to raise its ValueError"),
    'FractionalMaxPool2d': (1, 'lit_torch limitation: the pooling regions are computed on the host from the random samples (u.get())'),
    'FractionalMaxPool3d': (1, 'lit_torch limitation: the pooling regions are computed on the host from the random samples (u.get())'),
    'EmbeddingBag': (7, "lit_torch limitation: the offsets checks (int(off[0]), int(off[-1])) and the bags' boolean masks "
                        "and bincount (data-dependent shapes) read back; torch's kernel does not"),
}
# Known failures on cuda:1 (cuda:0 current): name -> reason (a strict xfail, so a fix shows up as XPASS). None left:
# the device-guard sites (BUG device-guard in tests/fake_cupy/BUGS.md) are fixed.
KNOWN_CUDA1 = {}

MODULES = sorted(n for n in dir(lnn) if not n.startswith("_") and inspect.isclass(getattr(lnn, n)) and issubclass(getattr(lnn, n), lnn.Module))
DB = {info.module_cls.__name__: info for info in module_db if info.name == f'nn.{info.module_cls.__name__}'}

def _spec(name):
    "(make(lib) -> module, [input arrays], [keyword arrays], mode) for one class."
    if name in EXTRA:
        make, inputs, *mode = EXTRA[name]
        return (lambda: make(lnn)), inputs(), {}, (mode[0] if mode else 'train')
    info = DB[name]
    samples = info.module_inputs_func(info, device='cpu', dtype=torch.float32, requires_grad=True, training=True)
    s = next(s for s in samples if all(isinstance(x, torch.Tensor) for x in flat(list(s.forward_input.args)))
             and any(isinstance(x, torch.Tensor) for x in flat(list(s.forward_input.args))))
    c = s.constructor_input
    def arr(x):
        if isinstance(x, (tuple, list)): return type(x)(arr(v) for v in x)   # LSTMCell's (h, c)
        return x.detach().numpy().copy() if isinstance(x, torch.Tensor) else x
    return ((lambda: getattr(lnn, name)(*to_lit(c.args, {}), **to_lit(c.kwargs, {}))),
            [arr(x) for x in s.forward_input.args], {k: arr(v) for k, v in s.forward_input.kwargs.items()}, 'train')

def _tensor(a, device):
    if isinstance(a, (tuple, list)): return type(a)(_tensor(v, device) for v in a)
    if not isinstance(a, np.ndarray): return a
    return lt.tensor(a, device=device, requires_grad=a.dtype.kind == 'f')

def _run(make, inputs, kwargs, mode, device, count=False):
    "Outputs, input gradients, parameter gradients and the state after one forward+backward on `device` (and the sync log)."
    lt.manual_seed(0)
    m = make().to(device)
    m.train(mode == 'train')
    xs = [_tensor(a, device) for a in inputs]
    kw = {k: _tensor(v, device) for k, v in kwargs.items()}
    log = None
    def step():
        out = m(*xs, **kw)
        outs = [o for o in flat(out) if isinstance(o, lt.Tensor)]
        diff = [o for o in outs if o.requires_grad]
        if diff:
            ws = [lt.tensor(R(*o.shape, seed=7 + i) if o.ndim else np.float32(1.5), device=device) for i, o in enumerate(diff)]
            lt.autograd.backward(diff, ws)
        return outs
    if count:
        from cupy import _emulation
        with _emulation.count_syncs() as log: outs = step()
    else: outs = step()
    grads = [x.grad for x in flat(xs) if isinstance(x, lt.Tensor) and x.requires_grad]
    pgrads = {k: p.grad for k, p in m.named_parameters()}
    return outs, grads, pgrads, dict(m.state_dict()), log

def on_device(device, t, what):
    d = lt.device(device)
    assert t.device == d, f'{what}: on {t.device}, not {d}'
    assert type(t._data).__module__.split('.')[0] == 'cupy', f'{what}: holds {type(t._data)}'
    assert t._data.device.id == d.index, f'{what}: its array is on GPU {t._data.device.id}, not {d.index}'

def same(what, a, b, values):
    assert tuple(a.shape) == tuple(b.shape) and a.dtype == b.dtype, f'{what}: {b.dtype}{tuple(b.shape)} on the device, {a.dtype}{tuple(a.shape)} on the CPU'
    if not values: return
    x, y = a.detach().cpu().numpy(), b.detach().cpu().numpy()
    if x.dtype.kind == 'f': np.testing.assert_allclose(y, x, rtol=1e-4, atol=1e-5 * max(1.0, float(np.nanmax(np.abs(x), initial=0))), err_msg=what)
    else: np.testing.assert_array_equal(y, x, err_msg=what)

def _cases():
    out = []
    for name in MODULES:
        if name in NOT_HERE: continue
        for device in ('cuda:0', 'cuda:1'):
            marks = [two_gpus] if device == 'cuda:1' else []
            if device == 'cuda:1' and name in KNOWN_CUDA1: marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_CUDA1[name]))
            out.append(pytest.param(name, device, marks=marks, id=f'{name}-{device}'))
    return out

def test_every_class_is_covered():
    missing = [n for n in MODULES if n not in NOT_HERE and n not in EXTRA and n not in DB]
    assert not missing, f'give these a spec in EXTRA: {missing}'

@pytest.mark.parametrize('name, device', _cases())
def test_module_on_device(name, device):
    make, inputs, kwargs, mode = _spec(name)
    values = not (name in RANDOM and mode == 'train') and name not in LAZY_RANDOM
    ref = _run(make, inputs, kwargs, mode, 'cpu')
    outs, grads, pgrads, state, log = _run(make, inputs, kwargs, mode, device, count=emulated())
    assert len(outs) == len(ref[0]) and len(grads) == len(ref[1])
    for i, (a, b) in enumerate(zip(ref[0], outs)): on_device(device, b, f'output {i}'); same(f'output {i}', a, b, values)
    for i, (a, b) in enumerate(zip(ref[1], grads)):
        if a is None: assert b is None, f'input {i}: a gradient on the device, none on the CPU'; continue
        on_device(device, b, f'input {i} grad'); same(f'input {i} grad', a, b, values)
    assert list(pgrads) == list(ref[2])
    for k, a in ref[2].items():
        b = pgrads[k]
        if a is None: assert b is None, f'{k}: a gradient on the device, none on the CPU'; continue
        on_device(device, b, f'{k} grad'); same(f'{k} grad', a, b, values)
    assert list(state) == list(ref[3])
    for k, a in ref[3].items(): on_device(device, state[k], k); same(k, a, state[k], values)
    if log is not None:
        assert log.syncs <= SYNCS.get(name, (0,))[0], log
        assert log.count('numpy') == 0, log    # no stray NumPy function on a device array


# ---------------------------------------------------------------------------------------------------- recurrent layers, packed
RNN_CASES = {'RNN': dict(num_layers=2, nonlinearity='relu'), 'LSTM': dict(num_layers=2, bidirectional=True),
             'LSTM-proj': dict(proj_size=3), 'GRU': dict(bidirectional=True)}

def _packed_run(name, device, count=False):
    "Output data, h_n (and c_n), the input's and every parameter's gradient of one layer over a packed, unsorted batch."
    from lit_torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
    lt.manual_seed(0)
    m = getattr(lnn, name.split('-')[0])(5, 4, **RNN_CASES[name]).to(device)
    x = lt.tensor(R(6, 3, 5), device=device, requires_grad=True)
    lengths = [4, 6, 2]                                # unsorted: the sort permutation runs on the device
    def step():
        packed = pack_padded_sequence(x, lengths, enforce_sorted=False)
        out, state = m(packed)
        padded, lens = pad_packed_sequence(out, total_length=6)
        states = list(state) if isinstance(state, tuple) else [state]
        ws = [lt.tensor(R(*t.shape, seed=3 + i), device=device) for i, t in enumerate([out.data, *states])]
        lt.autograd.backward([out.data, *states], ws)
        return [out.data, padded, *states], lens
    if count:
        from cupy import _emulation
        with _emulation.count_syncs() as log: outs, lens = step()
    else: outs, lens, log = *step(), None
    return outs, lens, x.grad, {k: p.grad for k, p in m.named_parameters()}, log

@pytest.mark.parametrize('device', ['cuda:0', pytest.param('cuda:1', marks=two_gpus)])
@pytest.mark.parametrize('name', list(RNN_CASES))
def test_recurrent_layer_packed_on_device(name, device):
    """RNN, LSTM (with projections) and GRU over a PackedSequence on the GPU: the CPU's values, every tensor on its GPU, and
    one sync, as in torch: pad_packed_sequence puts the CPU lengths back in the batch's order with `unsorted_indices.cpu()`."""
    outs0, lens0, gx0, pg0, _ = _packed_run(name, 'cpu')
    outs, lens, gx, pg, log = _packed_run(name, device, count=emulated())
    assert lens.device == lt.device('cpu') and lens.tolist() == lens0.tolist()   # lengths stay on the CPU, as in torch
    for i, (a, b) in enumerate(zip(outs0, outs)): on_device(device, b, f'output {i}'); same(f'output {i}', a, b, True)
    on_device(device, gx, 'input grad'); same('input grad', gx0, gx, True)
    assert list(pg) == list(pg0)
    for k in pg0: on_device(device, pg[k], f'{k} grad'); same(f'{k} grad', pg0[k], pg[k], True)
    if log is not None: assert log.syncs <= 1 and log.count('numpy') == 0, log

# ---------------------------------------------------------------------------------------------------- optimizers
# Host syncs an optimizer's step makes on a GPU, as torch's (foreach=False, capturable=False) does: name -> (syncs per
# step, reason). torch keeps `step` on the CPU for these, so step counting is free; what remains reads device values.
OPT_SYNCS = {
    'ASGD': (lambda n: n, "as torch: _single_tensor_asgd asks mu.item() != 1 for each parameter (mu lives on the device)"),
    'LBFGS': (None, "as torch: the closure's loss and the convergence tests (float(loss), abs(...).max() <= tolerance, "
                    "the strong-Wolfe line search) are read on the host"),
}
OPTIMIZERS = {'SGD': dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01), 'Adam': dict(lr=0.01, amsgrad=True),
              'AdamW': dict(lr=0.01), 'Adadelta': dict(lr=1.0, weight_decay=0.01), 'Adagrad': dict(lr=0.1, lr_decay=0.01),
              'Adamax': dict(lr=0.01), 'NAdam': dict(lr=0.01, decoupled_weight_decay=True, weight_decay=0.01),
              'RAdam': dict(lr=0.01), 'RMSprop': dict(lr=0.01, momentum=0.9, centered=True), 'Rprop': dict(lr=0.01),
              'ASGD': dict(lr=0.01, t0=1), 'LBFGS': dict(lr=0.5, max_iter=3, line_search_fn='strong_wolfe')}

def _optim_run(name, device, steps=3, count=False):
    "The parameters and the optimizer's state after `steps` steps of a small regression on `device` (and the sync logs)."
    lt.manual_seed(0)
    m = lnn.Sequential(lnn.Linear(5, 4), lnn.Tanh(), lnn.Linear(4, 1)).to(device)
    opt = getattr(lt.optim, name)(m.parameters(), **OPTIMIZERS[name])
    x, y = lt.tensor(R(8, 5), device=device), lt.tensor(R(8, 1, seed=1), device=device)
    def closure():
        opt.zero_grad()
        loss = ((m(x) - y) ** 2).mean()
        loss.backward()
        return loss
    logs = []
    for _ in range(steps):
        if name == 'LBFGS': opt.step(closure); continue
        closure()
        if count:
            from cupy import _emulation
            with _emulation.count_syncs() as log: opt.step()
            logs.append(log)
        else: opt.step()
    return list(m.parameters()), opt.state_dict()['state'], logs

@pytest.mark.parametrize('device', ['cuda:0', pytest.param('cuda:1', marks=two_gpus)])
@pytest.mark.parametrize('name', list(OPTIMIZERS))
def test_optimizer_steps_on_device(name, device):
    "Each optimizer steps parameters on the GPU as on the CPU; its state lives on the parameters' GPU; no sync torch would not make."
    p0, s0, _ = _optim_run(name, 'cpu')
    ps, state, logs = _optim_run(name, device, count=emulated())
    for i, (a, b) in enumerate(zip(p0, ps)): on_device(device, b, f'param {i}'); same(f'param {i}', a, b, True)
    assert list(state) == list(s0)
    for k in s0:
        assert list(state[k]) == list(s0[k]), f'state {k}: keys {list(state[k])}, on the CPU {list(s0[k])}'
        for key, v in state[k].items():
            if not isinstance(v, lt.Tensor): continue
            if s0[k][key].device == lt.device('cpu') and v.device == lt.device('cpu'): continue   # torch's CPU `step`
            on_device(device, v, f'state {k}.{key}'); same(f'state {k}.{key}', s0[k][key], v, True)
    allowed = OPT_SYNCS.get(name, (lambda n: 0,))[0]
    for log in logs:
        if allowed is not None: assert log.syncs <= allowed(len(ps)), log
        assert log.count('numpy') == 0, log
