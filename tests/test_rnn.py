"""Recurrent networks against PyTorch: nn.RNN/LSTM/GRU, their cells, and nn.utils.rnn's packing.

Each module is built in both libraries, PyTorch's state_dict is loaded into lit_torch's, and both run on
the same seeded inputs: outputs, final states, the input's and initial states' gradients and every
parameter's gradient are compared (float32, ~1e-5). Float64 gradcheck (and gradgradcheck) runs on tiny
layers, through the packed path too.
"""
import copy, pickle, warnings
import numpy as np
import pytest
import torch
import lit_torch as lt
from lit_torch.nn.modules import rnn as R
from op_helpers import check_same_error

MODES = [('RNN', {}), ('RNN', {'nonlinearity': 'relu'}), ('GRU', {}), ('LSTM', {}), ('LSTM', {'proj_size': 3})]
MODE_IDS = ['rnn_tanh', 'rnn_relu', 'gru', 'lstm', 'lstm_proj']
I, H, T, B = 4, 6, 5, 3
DEVICES = ['cpu', 'cpu:1', pytest.param('cuda', marks=pytest.mark.skipif(not lt.cuda.is_available(), reason='no GPU: CuPy or a device is missing'))]


def make_pair(name, *args, dtype=None, **kw):
    "The same module in both libraries, lit_torch's loaded with PyTorch's state_dict."
    torch.manual_seed(0)
    tm = getattr(torch.nn, name)(*args, **kw)
    lm = getattr(lt.nn, name)(*args, **kw)
    lm.load_state_dict({k: lt.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    if dtype == 'float64': tm.double(); lm.double()
    return tm, lm


def rand(*shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return np.where(np.abs(a) < 1e-3, 1e-3, a).astype(np.float32)


def flat(out):
    "The tensors of an RNN module's output: (output or its packed data, h_n[, c_n])."
    o, h = out
    o = o.data if isinstance(o, (torch.nn.utils.rnn.PackedSequence, lt.nn.utils.rnn.PackedSequence)) else o
    return [o] + (list(h) if isinstance(h, tuple) else [h])


def compare(tm, lm, make_args, atol=1e-5, device=None):
    "Run both modules on `make_args(lib)` -> (args, leaves); compare outputs, leaf gradients and parameter gradients."
    got = {}
    for lib, m in ((torch, tm), (lt, lm)):
        if lib is lt and device is not None: m.to(device)
        args, leaves = make_args(lib)
        outs = flat(m(*args))
        weights = [rand(*o.shape, seed=10 + k) for k, o in enumerate(outs)]
        sum((o * lib.tensor(w, dtype=o.dtype, device=o.device)).sum() for o, w in zip(outs, weights)).backward()
        got[lib] = (outs, [l.grad for l in leaves], [(n, p.grad) for n, p in m.named_parameters()])
    (to, tl, tp), (lo, ll, lp) = got[torch], got[lt]
    for a, b in zip(lo, to):
        assert tuple(a.shape) == tuple(b.shape)
        if device is not None: assert a.device == lt.device(device)
        np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().numpy(), atol=atol, rtol=1e-4)
    for a, b in zip(ll, tl): np.testing.assert_allclose(a.cpu().numpy(), b.numpy(), atol=atol, rtol=1e-4)
    assert [n for n, _ in lp] == [n for n, _ in tp]
    for (n, a), (_, b) in zip(lp, tp):
        assert (a is None) == (b is None), n
        if a is not None: np.testing.assert_allclose(a.cpu().numpy(), b.numpy(), atol=atol, rtol=1e-4, err_msg=n)


def state_shapes(name, kw, num_layers, bidirectional, batch):
    d = num_layers * (2 if bidirectional else 1)
    hs = kw.get('proj_size', 0) or H
    hshape = (d, batch, hs) if batch else (d, hs)
    if name != 'LSTM': return [hshape]
    return [hshape, (d, batch, H) if batch else (d, H)]


# ---------------------------------------------------------------- padded (and unbatched) inputs, every option
@pytest.mark.parametrize('mode', MODES, ids=MODE_IDS)
@pytest.mark.parametrize('num_layers', [1, 2])
@pytest.mark.parametrize('bidirectional', [False, True])
@pytest.mark.parametrize('batch_first', [False, True])
@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('unbatched', [False, True])
@pytest.mark.parametrize('with_h0', [False, True])
def test_module_matches_torch(mode, num_layers, bidirectional, batch_first, bias, unbatched, with_h0):
    name, kw = mode
    tm, lm = make_pair(name, I, H, num_layers=num_layers, bias=bias, batch_first=batch_first, bidirectional=bidirectional, **kw)
    xs = (T, I) if unbatched else (B, T, I) if batch_first else (T, B, I)
    shapes = state_shapes(name, kw, num_layers, bidirectional, None if unbatched else B)
    def make_args(lib):
        x = lib.tensor(rand(*xs), requires_grad=True)
        if not with_h0: return (x,), [x]
        hx = [lib.tensor(rand(*s, seed=2 + k), requires_grad=True) for k, s in enumerate(shapes)]
        return (x, tuple(hx) if name == 'LSTM' else hx[0]), [x] + hx
    compare(tm, lm, make_args)


# ---------------------------------------------------------------- PackedSequence inputs
@pytest.mark.parametrize('mode', MODES, ids=MODE_IDS)
@pytest.mark.parametrize('num_layers', [1, 2])
@pytest.mark.parametrize('bidirectional', [False, True])
@pytest.mark.parametrize('enforce_sorted', [True, False])
@pytest.mark.parametrize('with_h0', [False, True])
def test_packed_matches_torch(mode, num_layers, bidirectional, enforce_sorted, with_h0):
    name, kw = mode
    tm, lm = make_pair(name, I, H, num_layers=num_layers, bidirectional=bidirectional, **kw)
    lengths = [5, 4, 4, 2] if enforce_sorted else [2, 5, 4, 1]
    shapes = state_shapes(name, kw, num_layers, bidirectional, len(lengths))
    def make_args(lib):
        seqs = [lib.tensor(rand(n, I, seed=k), requires_grad=True) for k, n in enumerate(lengths)]
        packed = lib.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=enforce_sorted)
        if not with_h0: return (packed,), seqs
        hx = [lib.tensor(rand(*s, seed=7 + k), requires_grad=True) for k, s in enumerate(shapes)]
        return (packed, tuple(hx) if name == 'LSTM' else hx[0]), seqs + hx
    compare(tm, lm, make_args)


@pytest.mark.parametrize('mode', MODES, ids=MODE_IDS)
def test_packed_output_is_packed_and_unpacks_like_torch(mode):
    name, kw = mode
    tm, lm = make_pair(name, I, H, bidirectional=True, batch_first=True, **kw)
    x, lengths = rand(3, T, I), [2, 5, 3]
    outs = {}
    for lib, m in ((torch, tm), (lt, lm)):
        U = lib.nn.utils.rnn
        packed = U.pack_padded_sequence(lib.tensor(x), lengths, batch_first=True, enforce_sorted=False)
        out, _ = m(packed)
        assert isinstance(out, U.PackedSequence)
        assert out.batch_sizes.tolist() == packed.batch_sizes.tolist() and out.sorted_indices.tolist() == packed.sorted_indices.tolist()
        outs[lib] = U.pad_packed_sequence(out, batch_first=True, total_length=T + 1)
    np.testing.assert_allclose(outs[lt][0].detach().numpy(), outs[torch][0].detach().numpy(), atol=1e-5)
    assert outs[lt][1].tolist() == outs[torch][1].tolist()


@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('mode', MODES, ids=MODE_IDS)
def test_on_device(mode, device):
    "On a virtual CPU device (and a GPU where there is one): outputs and gradients stay there and match torch on the CPU."
    name, kw = mode
    tm, lm = make_pair(name, I, H, num_layers=2, bidirectional=True, **kw)
    def make_args(lib):
        d = {} if lib is torch else {'device': device}
        seqs = [lib.tensor(rand(n, I, seed=k), requires_grad=True, **d) for k, n in enumerate([3, 5, 1])]
        return (lib.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False),), seqs
    compare(tm, lm, make_args, device=device)


# ---------------------------------------------------------------- cells
CELLS = [('RNNCell', {}), ('RNNCell', {'nonlinearity': 'relu'}), ('LSTMCell', {}), ('GRUCell', {})]

@pytest.mark.parametrize('cell', CELLS, ids=['rnn_tanh', 'rnn_relu', 'lstm', 'gru'])
@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('batched', [True, False])
@pytest.mark.parametrize('with_hx', [True, False])
def test_cell_matches_torch(cell, bias, batched, with_hx):
    name, kw = cell
    tm, lm = make_pair(name, I, H, bias=bias, **kw)
    xs, hs = ((B, I), (B, H)) if batched else ((I,), (H,))
    def make_args(lib):
        x = lib.tensor(rand(*xs), requires_grad=True)
        if not with_hx: return (x,), [x]
        hx = [lib.tensor(rand(*hs, seed=3 + k), requires_grad=True) for k in range(2 if name == 'LSTMCell' else 1)]
        return (x, tuple(hx) if name == 'LSTMCell' else hx[0]), [x] + hx
    got = {}
    for lib, m in ((torch, tm), (lt, lm)):
        args, leaves = make_args(lib)
        out = m(*args)
        outs = list(out) if isinstance(out, tuple) else [out]
        sum((o * lib.tensor(rand(*o.shape, seed=20 + k))).sum() for k, o in enumerate(outs)).backward()
        got[lib] = outs + [l.grad for l in leaves] + [p.grad for p in m.parameters()]
    for a, b in zip(got[lt], got[torch]): np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-5, rtol=1e-4)


def test_cell_loop_equals_layer():
    "An LSTMCell stepped by hand over a sequence is one layer of an LSTM with the same weights."
    cell, layer = lt.nn.LSTMCell(I, H), lt.nn.LSTM(I, H)
    layer.load_state_dict({k + '_l0': v for k, v in cell.state_dict().items()})
    x = lt.tensor(rand(T, B, I))
    h = c = lt.zeros(B, H)
    outs = []
    for x_t in x: h, c = cell(x_t, (h, c)); outs.append(h)
    out, (h_n, c_n) = layer(x)
    np.testing.assert_allclose(lt.stack(outs).detach().numpy(), out.detach().numpy(), atol=1e-6)
    np.testing.assert_allclose(c.detach().numpy(), c_n[0].detach().numpy(), atol=1e-6)


# ---------------------------------------------------------------- gradcheck in float64
@pytest.mark.parametrize('mode', ['RNN_TANH', 'RNN_RELU', 'GRU', 'LSTM', 'LSTM_PROJ'])
@pytest.mark.parametrize('packed', [False, True])
def test_gradcheck_stack(mode, packed):
    "The two-layer bidirectional stack, gradients of input, initial state and every weight checked against finite differences."
    proj = mode == 'LSTM_PROJ'
    mode = 'LSTM' if proj else mode
    gates, h, p = R._GATES[mode] * 2, 2, 1 if proj else 2
    rng = np.random.default_rng(0)
    t = lambda *s: lt.tensor(rng.standard_normal(s) * 0.7, requires_grad=True)  # float64
    weights = []
    for layer in range(2):
        for _ in range(2):
            weights += [t(gates, 2 if layer == 0 else 2 * p), t(gates, p), t(gates), t(gates)] + ([t(p, h)] if proj else [])
    bs = lt.tensor([3, 2, 1]) if packed else None
    x = t(6, 2) if packed else t(3, 2, 2)
    h0 = t(4, 3, p)
    c0 = t(4, 3, h)
    def f(x, h0, c0, *w):
        out, hn, cn = R._rnn_impl(mode, x, bs, (h0, c0) if mode == 'LSTM' else h0, list(w), True, 2, 0.0, False, True)
        return (out, hn) if cn is None else (out, hn, cn)
    assert lt.autograd.gradcheck(f, (x, h0, c0, *weights))


@pytest.mark.parametrize('mode', ['RNN_TANH', 'GRU', 'LSTM'])
def test_gradgradcheck_layer(mode):
    "Second derivatives of the fused layer go through the composite replay."
    rng = np.random.default_rng(1)
    t = lambda *s: lt.tensor(rng.standard_normal(s) * 0.7, requires_grad=True)
    g = R._GATES[mode] * 2
    args = [t(4, 2), t(2, 2), t(g, 2), t(g, 2), t(g), t(g)] + ([t(2, 2)] if mode == 'LSTM' else [])
    def f(x, h0, w_ih, w_hh, b_ih, b_hh, *c0):
        out, hn, cn = R._RNNLayer.apply(x, h0, c0[0] if c0 else None, w_ih, w_hh, b_ih, b_hh, None, mode, np.array([2, 1, 1]), False)
        return (out, hn) if cn is None else (out, hn, cn)
    assert lt.autograd.gradgradcheck(f, args)


def test_module_gradcheck_float64():
    "The modules themselves in float64, input and initial state as the checked arguments."
    for name in ('RNN', 'GRU', 'LSTM'):
        m = getattr(lt.nn, name)(2, 3, num_layers=2, bidirectional=True).double()
        x = lt.tensor(np.random.default_rng(2).standard_normal((3, 2, 2)), requires_grad=True)
        if name == 'LSTM':
            f = lambda x, h, c: m(x, (h, c))[0]
            args = (x, lt.zeros(4, 2, 3, dtype=lt.float64, requires_grad=True), lt.zeros(4, 2, 3, dtype=lt.float64, requires_grad=True))
        else:
            f = lambda x, h: m(x, h)[0]
            args = (x, lt.zeros(4, 2, 3, dtype=lt.float64, requires_grad=True))
        assert lt.autograd.gradcheck(f, args)


def test_fused_equals_composite_layer():
    "The fused node and the per-step composite agree, and the module can run on either."
    x = lt.tensor(rand(T, B, I))
    lm = lt.nn.LSTM(I, H, num_layers=2, bidirectional=True, proj_size=2)
    hx = (lt.zeros(4, B, 2), lt.zeros(4, B, H))
    a = R._rnn_impl('LSTM', x, None, hx, lm._flat_weights, True, 2, 0.0, False, True)
    b = R._rnn_impl('LSTM', x, None, hx, lm._flat_weights, True, 2, 0.0, False, True, layer=R._layer_composite)
    for u, v in zip(a, b): np.testing.assert_allclose(u.detach().numpy(), v.detach().numpy(), atol=1e-6)


def test_second_backward_raises_and_retain_graph_works():
    m = lt.nn.LSTM(I, H)
    x = lt.tensor(rand(T, B, I), requires_grad=True)
    out, _ = m(x)
    loss = out.sum()
    loss.backward(retain_graph=True)
    g = x.grad.numpy().copy()
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * g, rtol=1e-5)
    with pytest.raises(RuntimeError, match='backward through the graph a second time'):
        loss.backward()


# ---------------------------------------------------------------- dropout
def test_dropout_eval_equals_no_dropout_and_train_differs():
    torch.manual_seed(0)
    for name in ('RNN', 'GRU', 'LSTM'):
        plain = getattr(lt.nn, name)(I, H, num_layers=2)
        dropped = getattr(lt.nn, name)(I, H, num_layers=2, dropout=0.5)
        dropped.load_state_dict(plain.state_dict())
        x = lt.tensor(rand(T, B, I))
        ref = plain(x)[0].detach().numpy()
        dropped.eval()
        np.testing.assert_allclose(dropped(x)[0].detach().numpy(), ref, atol=1e-6)
        dropped.train()
        lt.manual_seed(3); a = dropped(x)[0].detach().numpy()
        lt.manual_seed(3); b = dropped(x)[0].detach().numpy()
        assert np.abs(a - ref).max() > 1e-3  # masks applied between the layers
        np.testing.assert_array_equal(a, b)  # lit_torch's generator: the same seed, the same masks


def test_dropout_one_zeroes_the_next_layers_input():
    "With p=1 the second layer reads zeros: its output is what it gives on a zero input, and the first layer's state is untouched."
    m = lt.nn.GRU(I, H, num_layers=2, dropout=1.0)
    x = lt.tensor(rand(T, B, I))
    out, h_n = m(x)
    top = lt.nn.GRU(H, H)
    top.load_state_dict({k.replace('_l1', '_l0'): v for k, v in m.state_dict().items() if '_l1' in k})
    np.testing.assert_allclose(out.detach().numpy(), top(lt.zeros(T, B, H))[0].detach().numpy(), atol=1e-6)
    m.eval()
    np.testing.assert_allclose(m(x)[1][0].detach().numpy(), h_n[0].detach().numpy(), atol=1e-6)


def test_dropout_warns_for_one_layer_like_torch():
    for lib in (torch, lt):
        with pytest.warns(UserWarning, match='num_layers greater than 1, but got dropout=0.5 and num_layers=1'):
            lib.nn.LSTM(I, H, dropout=0.5)


# ---------------------------------------------------------------- parameters, names, state_dict
@pytest.mark.parametrize('mode', MODES, ids=MODE_IDS)
@pytest.mark.parametrize('num_layers', [1, 3])
@pytest.mark.parametrize('bidirectional', [False, True])
@pytest.mark.parametrize('bias', [True, False])
def test_state_dict_keys_order_shapes_and_repr(mode, num_layers, bidirectional, bias):
    name, kw = mode
    tm, lm = make_pair(name, I, H, num_layers=num_layers, bidirectional=bidirectional, bias=bias, batch_first=True, **kw)
    assert list(lm.state_dict()) == list(tm.state_dict())
    assert [tuple(v.shape) for v in lm.state_dict().values()] == [tuple(v.shape) for v in tm.state_dict().values()]
    assert lm._flat_weights_names == tm._flat_weights_names
    assert [[tuple(p.shape) for p in ws] for ws in lm.all_weights] == [[tuple(p.shape) for p in ws] for ws in tm.all_weights]
    assert all(a is b for a, b in zip(lm._flat_weights, lm.parameters()))
    assert repr(lm) == repr(tm)


@pytest.mark.parametrize('name', ['RNNCell', 'LSTMCell', 'GRUCell'])
def test_cell_state_dict_and_repr(name):
    for bias in (True, False):
        tm, lm = make_pair(name, I, H, bias=bias)
        assert list(lm.state_dict()) == list(tm.state_dict()) and repr(lm) == repr(tm)
        assert [tuple(v.shape) for v in lm.state_dict().values()] == [tuple(v.shape) for v in tm.state_dict().values()]
    assert repr(lt.nn.RNNCell(2, 3, nonlinearity='relu', bias=False)) == repr(torch.nn.RNNCell(2, 3, nonlinearity='relu', bias=False))


@pytest.mark.parametrize('name', ['RNN', 'LSTM', 'GRU', 'RNNCell', 'LSTMCell', 'GRUCell'])
def test_initialisation_is_uniform_in_one_over_sqrt_hidden(name):
    lt.manual_seed(0)
    m = getattr(lt.nn, name)(8, 16)
    values = np.concatenate([p.detach().numpy().ravel() for p in m.parameters()])
    bound = 1 / np.sqrt(16)
    assert values.min() >= -bound and values.max() <= bound
    assert values.min() < -0.9 * bound and values.max() > 0.9 * bound  # it fills the interval
    assert abs(values.mean()) < 0.02 and abs(values.std() - bound / np.sqrt(3)) < 0.01
    lt.manual_seed(0)
    np.testing.assert_array_equal(getattr(lt.nn, name)(8, 16).weight_hh_l0.detach().numpy() if 'Cell' not in name
                                  else getattr(lt.nn, name)(8, 16).weight_hh.detach().numpy(),
                                  m.weight_hh_l0.detach().numpy() if 'Cell' not in name else m.weight_hh.detach().numpy())


def test_flat_weights_follow_replaced_parameters_and_flatten_is_a_no_op():
    m = lt.nn.GRU(I, H, num_layers=2)
    assert m.flatten_parameters() is None
    new = lt.nn.Parameter(lt.zeros(3 * H, H))
    m.weight_hh_l1 = new
    assert m._flat_weights[m._flat_weights_names.index('weight_hh_l1')] is new
    del m._parameters['weight_hh_l0']  # swapped behind the module's back: forward notices through the weak references
    m._parameters['weight_hh_l0'] = other = lt.nn.Parameter(lt.zeros(3 * H, H))
    m(lt.tensor(rand(T, B, I)))
    assert m._flat_weights[1] is other
    m.double()
    assert m._flat_weights[0].dtype == lt.float64 and m._flat_weights[0] is m.weight_ih_l0


def test_pickle_deepcopy_and_save_load(tmp_path):
    m = lt.nn.LSTM(I, H, num_layers=2, proj_size=2)
    x = lt.tensor(rand(T, B, I))
    ref = m(x)[0].detach().numpy()
    for copied in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m)):
        assert copied._flat_weights[0] is copied.weight_ih_l0 and copied._flat_weight_refs[0]() is copied.weight_ih_l0
        np.testing.assert_allclose(copied(x)[0].detach().numpy(), ref, atol=1e-6)
    lt.save(m.state_dict(), tmp_path / 'lstm.pt')
    other = lt.nn.LSTM(I, H, num_layers=2, proj_size=2)
    other.load_state_dict(lt.load(tmp_path / 'lstm.pt'))
    np.testing.assert_allclose(other(x)[0].detach().numpy(), ref, atol=1e-6)
    t = torch.nn.LSTM(I, H, num_layers=2, proj_size=2)  # and the weights move to PyTorch under the same names
    t.load_state_dict({k: torch.tensor(v.numpy()) for k, v in m.state_dict().items()})
    np.testing.assert_allclose(t(torch.tensor(x.numpy()))[0].detach().numpy(), ref, atol=1e-5)


def test_data_parallel_replicas():
    m = lt.nn.LSTM(I, H, batch_first=True)
    dp = lt.nn.DataParallel(m, device_ids=['cpu:0', 'cpu:1'])
    x = lt.tensor(rand(4, T, I))
    np.testing.assert_allclose(dp(x)[0].detach().numpy(), m(x)[0].detach().numpy(), atol=1e-6)


# ---------------------------------------------------------------- errors: PyTorch's types and messages
ERRORS = {
    'input_size': lambda lib: lib.nn.LSTM(4, 5)(lib.randn(3, 2, 6)),
    'input_dtype': lambda lib: lib.nn.GRU(4, 5)(lib.randn(3, 2, 4).double()),
    'input_4d': lambda lib: lib.nn.RNN(4, 5)(lib.randn(3, 2, 4, 1)),
    'input_4d_lstm': lambda lib: lib.nn.LSTM(4, 5)(lib.randn(3, 2, 4, 1)),
    'input_4d_gru': lambda lib: lib.nn.GRU(4, 5)(lib.randn(3, 2, 4, 1)),
    'hidden_size': lambda lib: lib.nn.GRU(4, 5)(lib.randn(3, 2, 4), lib.randn(1, 3, 5)),
    'hidden_dims': lambda lib: lib.nn.RNN(4, 5)(lib.randn(3, 2, 4), lib.randn(3, 5)),
    'hidden_dims_unbatched': lambda lib: lib.nn.GRU(4, 5)(lib.randn(3, 4), lib.randn(1, 3, 5)),
    'lstm_hidden0': lambda lib: lib.nn.LSTM(4, 5)(lib.randn(3, 2, 4), (lib.randn(1, 3, 5), lib.randn(1, 2, 5))),
    'lstm_hidden1': lambda lib: lib.nn.LSTM(4, 5)(lib.randn(3, 2, 4), (lib.randn(1, 2, 5), lib.randn(1, 3, 5))),
    'lstm_proj_hidden0': lambda lib: lib.nn.LSTM(4, 5, proj_size=2)(lib.randn(3, 2, 4), (lib.randn(1, 2, 5), lib.randn(1, 2, 5))),
    'lstm_hx_dims': lambda lib: lib.nn.LSTM(4, 5)(lib.randn(3, 2, 4), (lib.randn(2, 5), lib.randn(1, 2, 5))),
    'lstm_hx_dims_unbatched': lambda lib: lib.nn.LSTM(4, 5)(lib.randn(3, 4), (lib.randn(1, 2, 5), lib.randn(1, 2, 5))),
    'packed_hidden': lambda lib: lib.nn.GRU(4, 5)(lib.nn.utils.rnn.pack_sequence([lib.randn(3, 4), lib.randn(2, 4)]), lib.randn(1, 3, 5)),
    'nonlinearity': lambda lib: lib.nn.RNN(4, 5, nonlinearity='sigmoid'),
    'rnn_proj': lambda lib: lib.nn.RNN(4, 5, proj_size=2),
    'gru_proj': lambda lib: lib.nn.GRU(4, 5, proj_size=2),
    'proj_too_big': lambda lib: lib.nn.LSTM(4, 5, proj_size=5),
    'proj_negative': lambda lib: lib.nn.LSTM(4, 5, proj_size=-1),
    'dropout_range': lambda lib: lib.nn.LSTM(4, 5, dropout=1.5),
    'dropout_bool': lambda lib: lib.nn.GRU(4, 5, dropout=True),
    'hidden_zero': lambda lib: lib.nn.LSTM(4, 0),
    'input_zero': lambda lib: lib.nn.LSTM(0, 3),
    'layers_zero': lambda lib: lib.nn.LSTM(4, 3, num_layers=0),
    'input_float': lambda lib: lib.nn.LSTM(4.0, 3),
    'hidden_float': lambda lib: lib.nn.GRU(4, 3.0),
    'bias_int': lambda lib: lib.nn.LSTM(4, 3, bias=1),
    'batch_first_int': lambda lib: lib.nn.LSTM(4, 3, batch_first=0),
    'cell_input_size': lambda lib: lib.nn.LSTMCell(4, 5)(lib.randn(3, 6)),
    'cell_batch': lambda lib: lib.nn.LSTMCell(4, 5)(lib.randn(3, 4), (lib.randn(2, 5), lib.randn(3, 5))),
    'cell_hidden0': lambda lib: lib.nn.GRUCell(4, 5)(lib.randn(3, 4), lib.randn(3, 6)),
    'cell_hidden1': lambda lib: lib.nn.LSTMCell(4, 5)(lib.randn(3, 4), (lib.randn(3, 5), lib.randn(3, 6))),
    'cell_3d': lambda lib: lib.nn.RNNCell(4, 5)(lib.randn(3, 4, 1)),
    'cell_hidden_3d': lambda lib: lib.nn.GRUCell(4, 5)(lib.randn(3, 4), lib.randn(1, 3, 5)),
    'lstm_cell_hx_3d': lambda lib: lib.nn.LSTMCell(4, 5)(lib.randn(3, 4), (lib.randn(1, 3, 5), lib.randn(3, 5))),
    'cell_nonlinearity': lambda lib: lib.nn.RNNCell(4, 5, nonlinearity='sig')(lib.randn(3, 4)),
    'cell_dtype': lambda lib: lib.nn.RNNCell(4, 5)(lib.randn(3, 4).double()),
    'pack_unsorted': lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.randn(4, 3, 2), [4, 2, 3]),
    'pack_len_count': lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.randn(4, 3, 2), [4, 2]),
    'pack_zero_len': lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.randn(4, 3, 2), [4, 2, 0]),
    'pack_lengths_2d': lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.randn(4, 3, 2), lib.tensor([[4, 2, 1]])),
    'pack_empty': lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.randn(0, 3, 2), [0, 0, 0]),
    'pad_total_length': lambda lib: lib.nn.utils.rnn.pad_packed_sequence(lib.nn.utils.rnn.pack_sequence([lib.randn(4, 2)]), total_length=3),
    'pad_empty': lambda lib: lib.nn.utils.rnn.pad_sequence([]),
    'pad_trailing': lambda lib: lib.nn.utils.rnn.pad_sequence([lib.randn(2, 3), lib.randn(3, 4)]),
    'pad_side': lambda lib: lib.nn.utils.rnn.pad_sequence([lib.randn(2, 3)], padding_side='middle'),
    'pad_not_iterable': lambda lib: lib.nn.utils.rnn.pad_sequence(5),
    'packed_from_one_tensor': lambda lib: lib.nn.utils.rnn.PackedSequence(lib.randn(3)),
    'unpad_lengths': lambda lib: lib.nn.utils.rnn.unpad_sequence(lib.randn(3, 2, 4), lib.tensor([3, 1, 2])),
}

@pytest.mark.parametrize('name', ERRORS)
def test_errors_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        got = check_same_error(ERRORS[name])
        try: ERRORS[name](torch)
        except Exception as e: want = e
    assert str(got) == str(want), (str(got), str(want))


def test_errors_lit_torch_is_stricter():
    "Where PyTorch reads past the end of a tensor (a length longer than the input), lit_torch raises."
    with pytest.raises(RuntimeError, match='exceeds'):
        lt.nn.utils.rnn.pack_padded_sequence(lt.randn(4, 3, 2), [5, 2, 1])


# ---------------------------------------------------------------- nn.utils.rnn: values and gradients
def both(fn, arrays, grad=True):
    "Run `fn(lib, *tensors)` on both libraries; compare each output and the inputs' gradients of a weighted sum."
    got = {}
    for lib in (torch, lt):
        ts = [lib.tensor(a, requires_grad=grad) for a in arrays]
        out = fn(lib, *ts)
        outs = out if isinstance(out, (list, tuple)) else [out]
        outs = [o.data if hasattr(o, 'batch_sizes') else o for o in outs]
        floats = [o for o in outs if o.dtype.is_floating_point]
        if grad: sum((o * lib.tensor(rand(*o.shape, seed=30 + k))).sum() for k, o in enumerate(floats)).backward()
        got[lib] = (outs, [t.grad for t in ts] if grad else [])
    for a, b in zip(got[lt][0], got[torch][0]):
        assert repr(a.dtype) == repr(b.dtype) and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-6)
    for a, b in zip(got[lt][1], got[torch][1]): np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-6)
    return got


SEQS = [rand(2, 3, seed=1), rand(5, 3, seed=2), rand(3, 3, seed=3), rand(5, 3, seed=4)]

@pytest.mark.parametrize('batch_first', [False, True])
@pytest.mark.parametrize('padding_side', ['right', 'left'])
def test_pad_sequence(batch_first, padding_side):
    both(lambda lib, *s: lib.nn.utils.rnn.pad_sequence(s, batch_first=batch_first, padding_value=-2.5, padding_side=padding_side), SEQS)
    both(lambda lib, a: lib.nn.utils.rnn.pad_sequence(a, batch_first=batch_first), [rand(3, 4, 2)])  # a tensor: its rows are the sequences


@pytest.mark.parametrize('batch_first', [False, True])
@pytest.mark.parametrize('enforce_sorted', [True, False])
@pytest.mark.parametrize('lengths_as', ['list', 'tensor'])
def test_pack_padded_and_pad_packed(batch_first, enforce_sorted, lengths_as):
    lengths = [5, 4, 2, 2] if enforce_sorted else [2, 5, 1, 4]
    x = rand(4, 6, 3) if batch_first else rand(6, 4, 3)
    def fn(lib, x):
        U = lib.nn.utils.rnn
        ls = lengths if lengths_as == 'list' else lib.tensor(lengths)
        p = U.pack_padded_sequence(x, ls, batch_first=batch_first, enforce_sorted=enforce_sorted)
        padded, lens = U.pad_packed_sequence(p, batch_first=not batch_first, padding_value=0.5, total_length=7)
        extra = [p.sorted_indices, p.unsorted_indices] if not enforce_sorted else []
        return [p.data, p.batch_sizes, padded, lens] + extra
    both(fn, [x])


def test_pack_sequence_unpack_unpad():
    def fn(lib, *s):
        U = lib.nn.utils.rnn
        p = U.pack_sequence(s, enforce_sorted=False)
        return [p.data] + U.unpack_sequence(p) + U.unpad_sequence(U.pad_sequence(s, batch_first=True), lib.tensor([len(a) for a in s]), batch_first=True)
    both(fn, SEQS)
    sorted_seqs = sorted(SEQS, key=len, reverse=True)
    both(lambda lib, *s: [lib.nn.utils.rnn.pack_sequence(s).data, lib.nn.utils.rnn.pack_sequence(s).batch_sizes], sorted_seqs)


def test_unpad_sequence_time_major_leaves_the_input_alone():
    x = lt.tensor(rand(5, 3, 2))
    parts = lt.nn.utils.rnn.unpad_sequence(x, lt.tensor([5, 2, 3]))
    assert [tuple(p.shape) for p in parts] == [(5, 2), (2, 2), (3, 2)] and tuple(x.shape) == (5, 3, 2)
    np.testing.assert_array_equal(parts[2].numpy(), x[:3, 2].numpy())


def test_pack_pad_gradcheck():
    U = lt.nn.utils.rnn
    x = lt.tensor(np.random.default_rng(0).standard_normal((4, 3, 2)), requires_grad=True)
    f = lambda x: U.pad_packed_sequence(U.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False), batch_first=True)[0]
    assert lt.autograd.gradcheck(f, (x,)) and lt.autograd.gradgradcheck(f, (x,))
    seqs = [lt.tensor(np.random.default_rng(k).standard_normal((n, 2)), requires_grad=True) for k, n in enumerate([3, 1, 2])]
    g = lambda *s: U.pad_sequence(s, batch_first=True, padding_side='left')
    assert lt.autograd.gradcheck(g, seqs) and lt.autograd.gradgradcheck(g, seqs)


def test_packed_sequence_class():
    U = lt.nn.utils.rnn
    p = U.pack_sequence([lt.randn(3, 2), lt.randn(1, 2), lt.randn(2, 2)], enforce_sorted=False)
    assert isinstance(p, tuple) and p._fields == torch.nn.utils.rnn.PackedSequence._fields
    data, batch_sizes, sorted_indices, unsorted_indices = p
    assert batch_sizes.tolist() == [3, 2, 1] and sorted_indices.tolist() == [0, 2, 1] and unsorted_indices.tolist() == [0, 2, 1]
    assert p.to('cpu') is p and p.to(lt.float32) is p and not p.is_cuda and not p.is_pinned()
    for method, dtype in (('double', lt.float64), ('half', lt.float16), ('long', lt.int64), ('int', lt.int32), ('short', lt.int16),
                          ('char', lt.int8), ('byte', lt.uint8), ('float', lt.float32)):
        q = getattr(p, method)()
        assert type(q) is U.PackedSequence and q.data.dtype == dtype and q.batch_sizes.dtype == lt.int64 and q.sorted_indices is p.sorted_indices
    q = p.to('cpu:1')
    assert q.data.device == lt.device('cpu:1') and q.sorted_indices.device == lt.device('cpu:1') and q.batch_sizes.device == lt.device('cpu')
    assert p.cpu() is p and p.pin_memory().data.shape == p.data.shape
    assert pickle.loads(pickle.dumps(p)).batch_sizes.tolist() == [3, 2, 1]
    assert U.invert_permutation(lt.tensor([2, 0, 3, 1])).tolist() == torch.nn.utils.rnn.invert_permutation(torch.tensor([2, 0, 3, 1])).tolist()
    assert U.invert_permutation(None) is None


def test_sort_of_equal_lengths_matches_torch():
    "enforce_sorted=False sorts stably, as PyTorch's CPU sort does: equal lengths keep their order."
    lengths = [2, 3, 3, 1, 3]
    for lib in (torch, lt):
        seqs = [lib.ones(n, 1) for n in lengths]
        p = lib.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False)
        if lib is torch: want = p.sorted_indices.tolist()
    assert p.sorted_indices.tolist() == want == [1, 2, 4, 0, 3]
