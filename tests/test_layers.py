"Every layer and loss against PyTorch, with the same weights: forward, parameter and input gradients, state_dict keys, repr."
import math
from collections import OrderedDict
import numpy as np
import pytest
import torch
import lit_torch as lt
import lit_torch.safetensors

def pair(make):
    "The same layer in both libraries, the lit_torch one loaded with torch's weights."
    t, l = make(torch), make(lt)
    t_sd = t.state_dict()
    assert list(l.state_dict()) == list(t_sd)
    l.load_state_dict({k: lt.tensor(v.numpy()) for k, v in t_sd.items()})
    return t, l

def compare(make, shapes, target=None, atol=1e-5, int_input=None, train=True):
    t, l = pair(make)
    t.train(train); l.train(train)
    rng = np.random.default_rng(0)
    if int_input is not None: arrays = [rng.integers(0, int_input, s) for s in shapes]
    else: arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    t_in = [torch.tensor(a, requires_grad=int_input is None) for a in arrays]
    l_in = [lt.tensor(a, requires_grad=int_input is None) for a in arrays]
    extra = [] if target is None else [target(torch), target(lt)]
    yt = t(*t_in, *extra[:1]); yl = l(*l_in, *extra[1:])
    assert tuple(yl.shape) == tuple(yt.shape) and repr(yl.dtype) == repr(yt.dtype)
    np.testing.assert_allclose(yl.detach().numpy(), yt.detach().numpy(), atol=atol, rtol=1e-4)
    w = rng.standard_normal(tuple(yt.shape)).astype(np.float32)
    (yt * torch.tensor(w)).sum().backward(); (yl * lt.tensor(w)).sum().backward()
    for (n, pt), (_, pl) in zip(t.named_parameters(), l.named_parameters()):
        np.testing.assert_allclose(pl.grad.numpy(), pt.grad.numpy(), atol=1e-4, rtol=1e-4, err_msg=n)
    for a, b in zip(t_in, l_in):
        if a.requires_grad: np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), atol=1e-4, rtol=1e-4)
    assert repr(l) == repr(t)

LAYERS = {
    'linear': (lambda m: m.nn.Linear(5, 3), [(4, 5)]),
    'linear_nobias_3d': (lambda m: m.nn.Linear(5, 3, bias=False), [(2, 4, 5)]),
    'identity': (lambda m: m.nn.Identity(3, foo=1), [(2, 3)]),
    'layernorm': (lambda m: m.nn.LayerNorm(6), [(3, 6)]),
    'layernorm_2d_nobias': (lambda m: m.nn.LayerNorm([2, 3], bias=False), [(4, 2, 3)]),
    'layernorm_noaffine': (lambda m: m.nn.LayerNorm(4, elementwise_affine=False), [(3, 4)]),
    'flatten': (lambda m: m.nn.Flatten(), [(2, 3, 4)]),
    'unflatten': (lambda m: m.nn.Unflatten(1, (2, 3)), [(4, 6)]),
    'relu': (lambda m: m.nn.ReLU(), [(3, 4)]),
    'gelu': (lambda m: m.nn.GELU(), [(3, 4)]),
    'gelu_tanh': (lambda m: m.nn.GELU('tanh'), [(3, 4)]),
    'silu': (lambda m: m.nn.SiLU(), [(3, 4)]),
    'tanh': (lambda m: m.nn.Tanh(), [(3, 4)]),
    'sigmoid': (lambda m: m.nn.Sigmoid(), [(3, 4)]),
    'softmax': (lambda m: m.nn.Softmax(dim=1), [(3, 4)]),
    'logsoftmax': (lambda m: m.nn.LogSoftmax(dim=-1), [(3, 4)]),
    'dropout_eval': (lambda m: m.nn.Dropout(0.3), [(3, 4)]),
    'conv1d': (lambda m: m.nn.Conv1d(3, 4, 3, padding='same'), [(2, 3, 9)]),
    'conv2d': (lambda m: m.nn.Conv2d(3, 4, 3, stride=2, padding=1), [(2, 3, 9, 9)]),
    'conv2d_groups_dilation': (lambda m: m.nn.Conv2d(4, 6, 3, dilation=2, groups=2, bias=False), [(2, 4, 9, 9)]),
    'maxpool': (lambda m: m.nn.MaxPool2d(2), [(2, 3, 6, 6)]),
    'avgpool': (lambda m: m.nn.AvgPool2d(3, stride=2, padding=1), [(2, 3, 7, 7)]),
    'adaptive': (lambda m: m.nn.AdaptiveAvgPool2d(1), [(2, 3, 6, 6)]),
    'sequential': (lambda m: m.nn.Sequential(m.nn.Linear(4, 8), m.nn.ReLU(), m.nn.Linear(8, 2)), [(3, 4)]),
}

@pytest.mark.parametrize('name', LAYERS)
def test_layer_matches_torch(name):
    make, shapes = LAYERS[name]
    compare(make, shapes, train=name != 'dropout_eval')

def test_embedding_matches_torch():
    compare(lambda m: m.nn.Embedding(10, 4, padding_idx=0), [(3, 5)], int_input=10)

LOSSES = {
    'mse': (lambda m: m.nn.MSELoss(), lambda m: m.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))),
    'l1_sum': (lambda m: m.nn.L1Loss(reduction='sum'), lambda m: m.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))),
    'ce': (lambda m: m.nn.CrossEntropyLoss(), lambda m: m.tensor([0, 3, 1])),
    'ce_options': (lambda m: m.nn.CrossEntropyLoss(weight=m.tensor([1., 2., 0.5, 1.]), ignore_index=1, label_smoothing=0.1),
                   lambda m: m.tensor([0, 3, 1])),
    'ce_none': (lambda m: m.nn.CrossEntropyLoss(reduction='none'), lambda m: m.tensor([2, 3, 1])),
    'nll': (lambda m: m.nn.NLLLoss(), lambda m: m.tensor([0, 3, 1])),
    'bce_logits': (lambda m: m.nn.BCEWithLogitsLoss(pos_weight=m.tensor([1., 2., 3., 4.])),
                   lambda m: m.tensor((np.arange(12).reshape(3, 4) % 2).astype(np.float32))),
}

@pytest.mark.parametrize('name', LOSSES)
def test_loss_matches_torch(name):
    make, target = LOSSES[name]
    compare(make, [(3, 4)], target=target)

def test_nested_containers_state_dict_keys_and_order():
    def make(m):
        nn = m.nn
        net = nn.Sequential(OrderedDict([('stem', nn.Conv2d(1, 2, 3)),
                                         ('blocks', nn.ModuleList([nn.Sequential(nn.Linear(2, 2), nn.ReLU()), nn.LayerNorm(2)])),
                                         ('heads', nn.ModuleDict({'a': nn.Linear(2, 1), 'b': nn.Linear(2, 3)}))]))
        net.extra = nn.ParameterList([nn.Parameter(m.ones(2)), nn.Parameter(m.ones(3))])
        net.table = nn.ParameterDict({'x': nn.Parameter(m.ones(1))})
        return net
    t, l = make(torch), make(lt)
    assert list(l.state_dict()) == list(t.state_dict())
    assert [tuple(v.shape) for v in l.state_dict().values()] == [tuple(v.shape) for v in t.state_dict().values()]
    assert repr(l.stem) == repr(t.stem) and repr(l.heads) == repr(t.heads)

def test_sequential_indexing_like_torch():
    for m in (torch, lt):
        s = m.nn.Sequential(m.nn.ReLU(), m.nn.Tanh(), m.nn.Sigmoid())
        m._names = (type(s[1]).__name__, type(s[-1]).__name__, len(s[1:]), [type(x).__name__ for x in s[::2]])
        s.append(m.nn.ReLU()); del s[0]
        m._after = [n for n, _ in s.named_children()]
    assert lt._names == torch._names and lt._after == torch._after

@pytest.mark.parametrize('make', [lambda m: m.nn.Linear(300, 200), lambda m: m.nn.Conv2d(16, 32, 5), lambda m: m.nn.Conv1d(8, 4, 3)])
def test_default_initialisation_is_torchs(make):
    "Weights and biases of Linear/Conv are U(-1/sqrt(fan_in), 1/sqrt(fan_in)), as PyTorch's: same bound, same spread."
    t, l = make(torch), make(lt)
    fan_in = int(np.prod(t.weight.shape[1:]))
    bound = 1 / math.sqrt(fan_in)
    for (n, pt), (_, pl) in zip(t.named_parameters(), l.named_parameters()):
        a, b = pt.detach().numpy(), pl.detach().numpy()
        assert a.shape == b.shape and np.abs(b).max() <= bound + 1e-7, n
        if b.size >= 1000: assert abs(b.std() - bound / math.sqrt(3)) < 0.05 * bound and abs(b.std() - a.std()) < 0.05 * a.std(), n

def test_embedding_initialisation_is_standard_normal_with_zero_padding_row():
    e = lt.nn.Embedding(500, 64, padding_idx=3)
    w = e.weight.detach().numpy()
    assert abs(w.std() - 1) < 0.05 and abs(w.mean()) < 0.05 and not w[3].any()

@pytest.mark.parametrize('bad', [
    lambda m: m.nn.Conv2d(3, 4, 3)(m.randn(1, 5, 8, 8)),
    lambda m: m.nn.Dropout(1.5),
    lambda m: m.nn.Conv2d(3, 4, 3, groups=2),
    lambda m: m.nn.Conv2d(3, 4, 3, padding='full'),
    lambda m: m.nn.CrossEntropyLoss(reduction='avg')(m.randn(2, 3), m.tensor([0, 1])),
    lambda m: m.nn.Linear(3, 2)(m.randn(4, 5)),
])
def test_errors_match_torch(bad):
    from op_helpers import check_same_error
    check_same_error(bad)

def test_init_functions_match_torch_bounds_and_errors():
    for fn, kw in [('xavier_uniform_', {}), ('xavier_normal_', {}), ('kaiming_uniform_', {'nonlinearity': 'relu'}),
                   ('kaiming_normal_', {'mode': 'fan_out'}), ('uniform_', {'a': -2, 'b': 3}), ('normal_', {'std': 0.5}),
                   ('trunc_normal_', {'std': 2.0})]:
        a = getattr(torch.nn.init, fn)(torch.empty(400, 300), **kw).numpy()
        b = getattr(lt.nn.init, fn)(lt.empty(400, 300), **kw).numpy()
        assert abs(a.std() - b.std()) < 0.02 * a.std() + 1e-3, fn
        assert abs(a.mean() - b.mean()) < 0.02 + 0.02 * abs(a.mean()), fn
    for v in (torch, lt):
        assert v.nn.init.constant_(v.empty(2), 3.5).tolist() == [3.5, 3.5]
    assert lt.nn.init.calculate_gain('tanh') == torch.nn.init.calculate_gain('tanh')
    from op_helpers import check_same_error
    check_same_error(lambda m: m.nn.init.xavier_uniform_(m.empty(3)))
    check_same_error(lambda m: m.nn.init.kaiming_uniform_(m.empty(3, 3), mode='fan_avg'))

def test_real_layers_round_trip_through_safetensors_both_ways(tmp_path):
    from safetensors.torch import save_file, load_file
    def make(m):
        nn = m.nn
        return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                             nn.LayerNorm(4 * 4 * 4), nn.Linear(64, 5))
    t, l = make(torch), make(lt)
    x = np.random.default_rng(2).standard_normal((3, 1, 8, 8)).astype(np.float32)
    save_file(t.state_dict(), str(tmp_path / 't.safetensors'))
    l.load_state_dict(lt.load(tmp_path / 't.safetensors'))
    np.testing.assert_allclose(l(lt.tensor(x)).detach().numpy(), t(torch.tensor(x)).detach().numpy(), rtol=1e-4, atol=1e-5)
    l2, t2 = make(lt), make(torch)
    lt.safetensors.save_file(l2.state_dict(), tmp_path / 'l.safetensors')
    t2.load_state_dict(load_file(str(tmp_path / 'l.safetensors')))
    np.testing.assert_allclose(l2(lt.tensor(x)).detach().numpy(), t2(torch.tensor(x)).detach().numpy(), rtol=1e-4, atol=1e-5)

def test_optimizer_state_dict_saves_and_loads(tmp_path):
    model = lt.nn.Linear(4, 2)
    opt = lt.optim.Adam(model.parameters(), lr=0.01, amsgrad=True)
    for _ in range(3):
        opt.zero_grad(); model(lt.randn(8, 4)).pow(2).sum().backward(); opt.step()
    lt.save({'model': model.state_dict(), 'optim': opt.state_dict()}, tmp_path / 'ckpt.pt')
    ckpt = lt.load(tmp_path / 'ckpt.pt')
    model2 = lt.nn.Linear(4, 2); model2.load_state_dict(ckpt['model'])
    opt2 = lt.optim.Adam(model2.parameters(), lr=0.01, amsgrad=True); opt2.load_state_dict(ckpt['optim'])
    x = lt.randn(8, 4)
    for m, o in ((model, opt), (model2, opt2)):
        o.zero_grad(); m(x).pow(2).sum().backward(); o.step()
    np.testing.assert_array_equal(model.weight.detach().numpy(), model2.weight.detach().numpy())
    assert repr(opt2.state_dict()['param_groups']) == repr(opt.state_dict()['param_groups'])
