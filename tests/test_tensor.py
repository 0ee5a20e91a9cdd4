"Tensor creation, attributes, conversions and printing, against real PyTorch."
import numpy as np
import pytest
import lit_torch as lt

torch = pytest.importorskip('torch')

@pytest.fixture(autouse=True)
def seeded():
    np.random.seed(0); torch.manual_seed(0); lt.manual_seed(0)

DATA = [1.5, [1, 2, 3], [[1.0, 2.0], [3.0, 4.5]], [True, False], 7, np.arange(6, dtype=np.int32).reshape(2, 3),
        np.linspace(0, 1, 5), np.float32(2.5), [[1, 2.5]], []]

@pytest.mark.parametrize('data', DATA, ids=range(len(DATA)))
def test_tensor_infers_dtype_and_shape_like_torch(data):
    ours, theirs = lt.tensor(data), torch.tensor(data)
    assert repr(ours.dtype) == repr(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape) and ours.dim() == theirs.dim() and ours.numel() == theirs.numel()
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())

@pytest.mark.parametrize('default', ['float32', 'float64'])
def test_default_dtype_drives_inference(default):
    lt.set_default_dtype(getattr(lt, default)); torch.set_default_dtype(getattr(torch, default))
    try:
        for make in [lambda m: m.tensor([1.5]), lambda m: m.zeros(2), lambda m: m.arange(0, 1, 0.5), lambda m: m.full((2,), 1.0),
                     lambda m: m.linspace(0, 1, 3), lambda m: m.rand(2), lambda m: m.eye(2)]:
            assert repr(make(lt).dtype) == repr(make(torch).dtype)
    finally:
        lt.set_default_dtype(lt.float32); torch.set_default_dtype(torch.float32)

FACTORIES = {
    'zeros': lambda m: m.zeros(2, 3), 'ones': lambda m: m.ones((3,), dtype=m.int32), 'full': lambda m: m.full((2, 2), 7),
    'full_bool': lambda m: m.full((2,), True), 'eye': lambda m: m.eye(3, 2), 'arange': lambda m: m.arange(5),
    'arange_float': lambda m: m.arange(1, 2.5, 0.5), 'arange_neg': lambda m: m.arange(5, 0, -2), 'linspace': lambda m: m.linspace(-1, 1, 5),
    'zeros_like': lambda m: m.zeros_like(m.ones(2, dtype=m.float64)), 'full_like': lambda m: m.full_like(m.ones(2, dtype=m.int64), 3),
    'ones_like': lambda m: m.ones_like(m.ones(2, 2)),
}

@pytest.mark.parametrize('name', FACTORIES)
def test_factories_match(name):
    ours, theirs = FACTORIES[name](lt), FACTORIES[name](torch)
    assert repr(ours.dtype) == repr(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)

@pytest.mark.parametrize('name', ['rand', 'randn', 'randint', 'randperm', 'rand_like', 'randn_like', 'randint_like', 'empty'])
def test_random_factories_shapes_and_dtypes(name):
    f = {'rand': lambda m: m.rand(3, 4), 'randn': lambda m: m.randn((2, 5), dtype=m.float64), 'randint': lambda m: m.randint(2, 9, (50,)),
         'randperm': lambda m: m.randperm(7), 'rand_like': lambda m: m.rand_like(m.zeros(2, dtype=m.float64)),
         'randn_like': lambda m: m.randn_like(m.zeros(3)), 'randint_like': lambda m: m.randint_like(m.zeros(4), 3),
         'empty': lambda m: m.empty(2, 3)}[name]
    ours, theirs = f(lt), f(torch)
    assert repr(ours.dtype) == repr(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)

def test_random_ranges():
    x = lt.rand(10000).numpy(); assert 0 <= x.min() and x.max() < 1
    r = lt.randint(2, 9, (10000,)).numpy(); assert r.min() == 2 and r.max() == 8
    n = lt.randn(20000, dtype=lt.float64).numpy(); assert abs(n.mean()) < 0.05 and abs(n.std() - 1) < 0.05
    assert sorted(lt.randperm(50).tolist()) == list(range(50))

def test_seeded_runs_reproduce_and_generators_are_independent():
    lt.manual_seed(5); a = lt.randn(4).numpy()
    lt.manual_seed(5); np.testing.assert_array_equal(lt.randn(4).numpy(), a)
    g = lt.Generator().manual_seed(5)
    np.testing.assert_array_equal(lt.randn(4, generator=g).numpy(), a)

REPRS = [lambda m: m.tensor([1.5, 2.0, 3.25]), lambda m: m.tensor([1., 2.]), lambda m: m.tensor([1e-5, 1.0]),
         lambda m: m.tensor([1e9, 1.0]), lambda m: m.tensor(3.5), lambda m: m.tensor([True, False]),
         lambda m: m.tensor([[1, 2], [3, 4]], dtype=m.int32), lambda m: m.tensor([1., 2.], dtype=m.float64, requires_grad=True),
         lambda m: m.tensor([0.1234567, -2.5], dtype=m.float16), lambda m: m.tensor([float('nan'), float('inf'), 1.5]),
         lambda m: m.tensor([]), lambda m: m.zeros(2, 0), lambda m: m.zeros(0, dtype=m.int64), lambda m: m.tensor([123456.5, 1.5]),
         lambda m: m.arange(2000.), lambda m: m.tensor(np.arange(12).reshape(3, 4)),
         lambda m: m.tensor(np.linspace(-3, 3, 24).reshape(2, 3, 4)), lambda m: m.tensor([[-1.25, 100.5], [0.001, 2.0]]),
         lambda m: m.tensor(7), lambda m: m.tensor([-0.0, 0.0]), lambda m: m.tensor(np.arange(30.).reshape(5, 6) * 1.5),
         lambda m: m.tensor(np.arange(3000).reshape(3, 1000)), lambda m: m.tensor([1, 2], dtype=m.uint8)]

@pytest.mark.parametrize('i', range(len(REPRS)))
def test_repr_matches_torch(i):
    assert repr(REPRS[i](lt)) == repr(REPRS[i](torch))

def test_attributes_and_conversions():
    t = lt.tensor([[1., 2.], [3., 4.]])
    assert t.size() == (2, 2) and t.size(-1) == 2 and repr(t.shape) == repr(torch.zeros(2, 2).shape)
    assert t.is_leaf and not t.requires_grad and t.device == lt.device('cpu') and t.ndim == 2
    assert t.tolist() == [[1., 2.], [3., 4.]] and lt.tensor([[2.5]]).item() == 2.5
    with pytest.raises(IndexError): t.size(2)
    assert len(t) == 2 and bool(lt.tensor([1])) and float(lt.tensor(2.5)) == 2.5

@pytest.mark.parametrize('bad', [
    lambda m: m.zeros(2, -1), lambda m: m.tensor([1, 2], requires_grad=True), lambda m: m.tensor([1., 2.]).item(),
    lambda m: bool(m.zeros(3)), lambda m: len(m.tensor(1.)), lambda m: m.tensor([1., 2.], requires_grad=True).numpy(),
    lambda m: m.arange(0, 5, 0), lambda m: m.randint(5, 2, (3,)), lambda m: m.tensor([1.], dtype='float32'),
    lambda m: m.zeros(2, 1.5), lambda m: m.set_default_dtype(m.int32)])
def test_errors_match_torch_types(bad):
    with pytest.raises(Exception) as want: bad(torch)
    with pytest.raises(Exception) as got: bad(lt)
    assert type(got.value) is type(want.value), (got.value, want.value)

def test_requires_grad_rules():
    x = lt.tensor([1., 2.]).requires_grad_()
    assert x.requires_grad and x.is_leaf
    with pytest.raises(RuntimeError, match='floating point'): lt.tensor([1, 2]).requires_grad_()

def test_dlpack_zero_copy_both_ways_with_numpy_and_torch():
    a = np.arange(4.0)
    t = lt.from_dlpack(a); a[0] = 9
    assert t.tolist()[0] == 9
    tt = torch.from_dlpack(t)  # lit_torch -> torch
    tt[1] = 7
    assert t.tolist()[1] == 7
    back = lt.from_dlpack(torch.arange(3.0))  # torch -> lit_torch
    assert repr(back.dtype) == 'torch.float32' and back.tolist() == [0., 1., 2.]

def test_from_numpy_and_as_tensor_share_memory():
    a = np.ones(3, np.float32)
    assert lt.from_numpy(a).numpy() is a
    assert np.shares_memory(lt.as_tensor(a).numpy(), a)
    assert not np.shares_memory(lt.tensor(a).numpy(), a)
    with pytest.raises(TypeError): lt.from_numpy([1, 2])

def test_virtual_devices():
    t = lt.zeros(2, device='cpu:1')
    assert t.device == lt.device('cpu', 1) and lt.zeros(2, device='cpu:0').device == lt.device('cpu')
    with pytest.raises(RuntimeError, match='cpu:9'): lt.zeros(2, device='cpu:9')

def test_tensor_class_constructor_like_torch():
    for args in [(2, 3), ([1, 2],), ([[1.5]],)]:
        ours, theirs = lt.Tensor(*args), torch.Tensor(*args)
        assert repr(ours.dtype) == repr(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)

@pytest.mark.parametrize('value,dtype', [(float('inf'), 'int64'), (float('nan'), 'int32'), (300, 'uint8'), (2**70, 'int64'), (-129, 'int8')])
def test_full_integer_overflow_raises_like_torch(value, dtype):
    from op_helpers import check_same_error
    check_same_error(lambda m: m.full((2,), value, dtype=getattr(m, dtype)))
