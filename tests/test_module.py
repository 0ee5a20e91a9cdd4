"nn.Module, Parameter, hooks, state_dict, load_state_dict and safetensors save/load, against real PyTorch."
import copy, io
import numpy as np
import pytest
import torch
import lit_torch as lt
import lit_torch.safetensors
from op_helpers import check_same_error

def build(m):
    "The same small tree in either library: nested modules, a shared submodule, buffers (one non-persistent)."
    nn = m.nn
    class Lin(nn.Module):
        def __init__(self, i, o):
            super().__init__()
            self.weight = nn.Parameter(m.randn(o, i))
            self.bias = nn.Parameter(m.zeros(o))
        def forward(self, x): return x @ self.weight.T + self.bias
    class Block(nn.Module):
        def __init__(self, shared):
            super().__init__()
            self.register_buffer('running', m.zeros(3))
            self.register_buffer('scratch', m.zeros(1), persistent=False)
            self.lin = Lin(3, 3)
            self.shared = shared
        def forward(self, x): return self.shared(self.lin(x).relu())
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            shared = Lin(3, 3)
            self.first = Lin(4, 3)
            self.blocks = nn.Module()
            self.blocks.add_module('0', Block(shared))
            self.blocks.add_module('1', Block(shared))
            self.register_buffer('steps', m.zeros(1, dtype=m.int64))
        def forward(self, x): return getattr(self.blocks, '1')(getattr(self.blocks, '0')(self.first(x)))
    return Net()

def same_weights(t_net, l_net):
    l_net.load_state_dict({k: lt.tensor(v.numpy()) for k, v in t_net.state_dict().items()})

def test_names_and_order_match_torch():
    t, l = build(torch), build(lt)
    assert list(l.state_dict()) == list(t.state_dict())
    assert [n for n, _ in l.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in l.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in l.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in l.named_children()] == [n for n, _ in t.named_children()]
    assert [n for n, _ in l.named_parameters(prefix='model', recurse=False)] == [n for n, _ in t.named_parameters(prefix='model', recurse=False)]
    assert [n for n, _ in l.named_modules(remove_duplicate=False)] == [n for n, _ in t.named_modules(remove_duplicate=False)]
    assert dict(l.state_dict()._metadata) == dict(t.state_dict()._metadata)

def test_forward_and_gradients_match_after_loading_torch_weights():
    t, l = build(torch), build(lt)
    same_weights(t, l)
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    yt, yl = t(torch.tensor(x)), l(lt.tensor(x))
    np.testing.assert_allclose(yl.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-5)
    yt.sum().backward(); yl.sum().backward()
    for (n, pt), (_, pl) in zip(t.named_parameters(), l.named_parameters()):
        np.testing.assert_allclose(pl.grad.numpy(), pt.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=n)

def test_load_state_dict_reports_like_torch():
    t, l = build(torch), build(lt)
    for net, m in ((t, torch), (l, lt)):
        sd = net.state_dict()
        del sd['first.bias']; sd['extra.weight'] = m.zeros(1); sd['blocks.0.bogus'] = m.zeros(1)
        net._res = net.load_state_dict(sd, strict=False)
    assert l._res.missing_keys == t._res.missing_keys and l._res.unexpected_keys == t._res.unexpected_keys
    assert repr(lt.nn.Module().load_state_dict({})) == repr(torch.nn.Module().load_state_dict({}))

@pytest.mark.parametrize('change', ['missing', 'unexpected', 'shape', 'not_tensor'])
def test_failed_strict_load_raises_like_torch_and_leaves_module_untouched(change):
    def attempt(m):
        net = build(m)
        sd = net.state_dict()
        sd = {k: v.clone() + 1 if v.dtype.is_floating_point else v for k, v in sd.items()}
        if change == 'missing': del sd['blocks.1.lin.bias']
        if change == 'unexpected': sd['nope'] = m.zeros(1)
        if change == 'shape': sd['blocks.1.lin.weight'] = m.zeros(2, 2)
        if change == 'not_tensor': sd['blocks.1.lin.weight'] = 3.0
        net.load_state_dict(sd)
    err = check_same_error(attempt)
    assert 'Error(s) in loading state_dict' in str(err)
    net = build(lt)
    before = copy.deepcopy(net.state_dict())
    with pytest.raises(RuntimeError):
        sd = {k: v + 1 if v.dtype.is_floating_point else v for k, v in net.state_dict().items()}
        sd['blocks.1.lin.weight'] = lt.zeros(2, 2)
        net.load_state_dict(sd)
    for k, v in net.state_dict().items(): np.testing.assert_array_equal(v.numpy(), before[k].numpy(), err_msg=k)

def test_assign_takes_the_given_tensors():
    l = build(lt)
    sd = {k: v.clone() for k, v in l.state_dict().items()}
    l.load_state_dict(sd, assign=True)
    assert l.first.weight._data is sd['first.weight']._data and isinstance(l.first.weight, lt.nn.Parameter)

@pytest.mark.parametrize('bad', [
    lambda m: setattr(build(m).first, 'weight', m.zeros(3, 4)),
    lambda m: setattr(build(m), 'blocks', 3),
    lambda m: build(m).register_buffer('a.b', m.zeros(1)),
    lambda m: build(m).register_buffer('', m.zeros(1)),
    lambda m: build(m).register_buffer('first', m.zeros(1)),
    lambda m: build(m).register_buffer('x', 3),
    lambda m: build(m).register_parameter('x', m.zeros(1)),
    lambda m: build(m).add_module('x', 3),
    lambda m: build(m).get_submodule('blocks.7'),
    lambda m: build(m).get_parameter('first.nope'),
    lambda m: build(m).train('yes'),
    lambda m: build(m).to(m.int64),
    lambda m: build(m).nope,
    lambda m: m.nn.Module()(1),
])
def test_errors_match_torch(bad):
    check_same_error(bad)

def test_hook_order_matches_torch():
    logs = {}
    for m in (torch, lt):
        log = []
        class Double(m.nn.Module):
            def forward(self, x, scale=1.0): log.append('forward'); return x * 2 * scale
        net = Double()
        gh = m.nn.modules.module.register_module_forward_hook(lambda mod, a, o: log.append('global fwd')) if m is torch else \
             lt.nn.register_module_forward_hook(lambda mod, a, o: log.append('global fwd'))
        net.register_forward_pre_hook(lambda mod, a: log.append('pre'))
        net.register_forward_pre_hook(lambda mod, a, kw: log.append(('pre kw', sorted(kw))), with_kwargs=True)
        net.register_forward_pre_hook(lambda mod, a: log.append('pre first'), prepend=True)
        net.register_forward_hook(lambda mod, a, o: log.append('fwd'))
        net.register_forward_hook(lambda mod, a, kw, o: o + 1, with_kwargs=True)
        net.register_full_backward_pre_hook(lambda mod, go: log.append(('bw pre', [g.tolist() for g in go])))
        net.register_full_backward_hook(lambda mod, gi, go: log.append(('bw', [g.tolist() for g in gi])))
        x = m.tensor([1., 2.], requires_grad=True)
        y = net(x, scale=3.0)
        log.append(('out', y.tolist()))
        y.sum().backward()
        log.append(('grad', x.grad.tolist()))
        gh.remove()
        logs[m.__name__] = log
    assert logs['lit_torch'] == logs['torch']

def test_always_call_runs_when_forward_raises():
    for m in (torch, lt):
        class Boom(m.nn.Module):
            def forward(self, x): raise ValueError('boom')
        seen = []
        b = Boom()
        b.register_forward_hook(lambda mod, a, o: seen.append(o), always_call=True)
        with pytest.raises(ValueError): b(1)
        assert seen == [None]

def test_apply_train_eval_zero_grad_requires_grad():
    for m in (torch, lt):
        net = build(m)
        order = []
        net.apply(lambda mod: order.append(type(mod).__name__))
        net.eval(); assert not any(mod.training for mod in net.modules())
        net.train(); assert all(mod.training for mod in net.modules())
        net(m.randn(2, 4)).sum().backward()
        net.zero_grad(); assert all(p.grad is None for p in net.parameters())
        net.requires_grad_(False); assert not any(p.requires_grad for p in net.parameters())
        net._order = order
    assert build(lt).__class__.__name__ == 'Net'

def test_to_keeps_parameter_objects_and_moves_grads():
    l = build(lt)
    p = l.first.weight
    l(lt.randn(2, 4)).sum().backward()
    l.double()
    assert l.first.weight is p and p.dtype is lt.float64 and p.grad.dtype is lt.float64
    assert l.steps.dtype is lt.int64
    l.to('cpu:1')
    assert p.device == lt.device('cpu:1') and p.grad.device == lt.device('cpu:1') and l.steps.device == lt.device('cpu:1')

def test_repr_matches_torch_form():
    for m in (torch, lt):
        class Scale(m.nn.Module):
            def __init__(self, k): super().__init__(); self.k = k
            def extra_repr(self): return f'k={self.k}'
        outer = m.nn.Module(); outer.a = Scale(2); outer.b = m.nn.Module(); outer.b.c = Scale(3)
        m._repr = repr(outer)
    assert lt._repr == torch._repr
    assert repr(lt.nn.Parameter(lt.tensor([1., 2.]))) == repr(torch.nn.Parameter(torch.tensor([1., 2.])))

def test_state_dict_hooks():
    for m in (torch, lt):
        net = build(m)
        net.register_load_state_dict_post_hook(lambda mod, keys: setattr(mod, '_loaded', (list(keys.missing_keys), list(keys.unexpected_keys))))
        net.load_state_dict(net.state_dict())
        m._loaded = net._loaded
    assert lt._loaded == torch._loaded

def test_safetensors_round_trip_both_ways(tmp_path):
    from safetensors.torch import save_file, load_file
    t, l = build(torch), build(lt)
    save_file({k: v.clone() for k, v in t.state_dict().items()}, str(tmp_path / 'from_torch.safetensors'))  # safetensors refuses shared storage
    l.load_state_dict(lt.load(tmp_path / 'from_torch.safetensors'))
    x = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(l(lt.tensor(x)).detach().numpy(), t(torch.tensor(x)).detach().numpy(), rtol=1e-6, atol=1e-6)
    l2, t2 = build(lt), build(torch)
    lt.safetensors.save_file({k: v.clone() for k, v in l2.state_dict().items()}, tmp_path / 'from_lit.safetensors')  # as for torch
    t2.load_state_dict(load_file(str(tmp_path / 'from_lit.safetensors')))
    np.testing.assert_allclose(l2(lt.tensor(x)).detach().numpy(), t2(torch.tensor(x)).detach().numpy(), rtol=1e-6, atol=1e-6)

def test_save_load_nested_and_file_objects():
    obj = {'state': {0: {'step': lt.tensor(2.), 'buf': lt.randn(3)}, 1: {}},
           'param_groups': [{'lr': 0.1, 'betas': (0.9, 0.99), 'nesterov': False, 'name': 'g', 'wd': None, 'params': [0, 1]}]}
    f = io.BytesIO(); lt.save(obj, f); f.seek(0)
    back = lt.load(f)
    assert back['param_groups'] == obj['param_groups'] and list(back['state']) == [0, 1] and back['state'][1] == {}
    np.testing.assert_array_equal(back['state'][0]['buf'].numpy(), obj['state'][0]['buf'].numpy())
    back = lt.load(io.BytesIO(f.getvalue()), map_location='cpu:1')
    assert back['state'][0]['buf'].device == lt.device('cpu:1')

@pytest.mark.parametrize('damage', ['truncate_header', 'truncate_data', 'garbage', 'empty'])
def test_corrupt_files_raise_and_change_nothing(tmp_path, damage):
    l = build(lt)
    path = tmp_path / 'm.safetensors'
    lt.safetensors.save_file({k: v.clone() for k, v in l.state_dict().items()}, path)
    data = path.read_bytes()
    data = {'truncate_header': data[:20], 'truncate_data': data[:-16], 'garbage': b'\x00' * 4 + b'not safetensors at all',
            'empty': b''}[damage]
    path.write_bytes(data)
    before = copy.deepcopy(l.state_dict())
    with pytest.raises(RuntimeError, match='not a valid safetensors file'):
        l.load_state_dict(lt.load(path))
    for k, v in l.state_dict().items(): np.testing.assert_array_equal(v.numpy(), before[k].numpy())

def test_save_refuses_what_it_cannot_store_safely():
    "save pickles as torch.save does, so an unpicklable object fails as in torch; the pickle-free format refuses non-data."
    check_same_error(lambda m: m.save({'f': lambda: 0}, io.BytesIO()))  # a local function: AttributeError in both
    anon = type('Anon', (), {})  # a class its module does not hold: PicklingError in both
    check_same_error(lambda m: m.save({'f': anon()}, io.BytesIO()))
    with pytest.raises(TypeError, match='can store'): lt.serialization.save_safetensors({'f': lambda: 0}, io.BytesIO())

def test_deepcopy_module():
    l = build(lt)
    c = copy.deepcopy(l)
    assert list(c.state_dict()) == list(l.state_dict())
    assert c.blocks._modules['0'].shared is c.blocks._modules['1'].shared  # sharing is preserved
    assert not np.shares_memory(c.first.weight.detach().numpy(), l.first.weight.detach().numpy())

def test_setstate_chain_like_torch():
    "A subclass's __setstate__ may call super().__setstate__, as torch's own modules do; copies share nothing."
    import copy
    for lib in (torch, lt):
        class Old(lib.nn.Linear):
            def __setstate__(self, state):
                state.setdefault('extra', 7)
                super().__setstate__(state)
        m = Old(3, 2)
        c = copy.deepcopy(m)
        assert c.extra == 7 and c.weight is not m.weight
        assert np.array_equal(c.weight.detach().numpy(), m.weight.detach().numpy())


def test_one_element_loads_into_zero_d_as_torch():
    "torch's backward-compatibility rule: a [1] tensor loads into a 0-d parameter or buffer; [2] or [1, 1] do not."
    for T in (lt, torch):
        m = T.nn.BatchNorm1d(2)
        m.load_state_dict({**m.state_dict(), 'num_batches_tracked': T.tensor([7])})
        assert int(m.num_batches_tracked) == 7 and m.num_batches_tracked.dim() == 0
        for bad in (T.tensor([7, 8]), T.tensor([[7]])):
            with pytest.raises(RuntimeError, match='size mismatch for num_batches_tracked'):
                m.load_state_dict({**m.state_dict(), 'num_batches_tracked': bad})
