"The backend (devices, dtypes, promotion, RNG) against real PyTorch."
import itertools, pickle
import numpy as np
import pytest
import lit_torch as lt

torch = pytest.importorskip('torch')

NAMES = ['float16', 'float32', 'float64', 'int8', 'int16', 'int32', 'int64', 'uint8', 'bool']
PAIRS = list(itertools.product(NAMES, NAMES))

def both(name): return getattr(lt, name), getattr(torch, name)

def same_error(f_lt, f_torch):
    "Both calls raise, and with the same exception type."
    with pytest.raises(Exception) as want: f_torch()
    with pytest.raises(Exception) as got: f_lt()
    assert type(got.value) is type(want.value), (got.value, want.value)
    return got.value

@pytest.mark.parametrize('name', NAMES + ['half', 'float', 'double', 'short', 'int', 'long'])
def test_dtype_names_and_attributes(name):
    ours, theirs = both(name)
    assert repr(ours) == repr(theirs)
    assert (ours.is_floating_point, ours.is_signed, ours.itemsize) == (theirs.is_floating_point, theirs.is_signed, theirs.itemsize)

@pytest.mark.parametrize('a,b', PAIRS)
def test_promote_types(a, b):
    assert repr(lt.promote_types(getattr(lt, a), getattr(lt, b))) == repr(torch.promote_types(getattr(torch, a), getattr(torch, b)))

SCALARS = [True, 3, 2.5]

def torch_operand(kind, name):
    if kind == 'dim': return torch.ones(2, dtype=getattr(torch, name))
    return torch.ones((), dtype=getattr(torch, name))

@pytest.mark.parametrize('a,b', PAIRS)
@pytest.mark.parametrize('kinds', [('dim', 'zero'), ('zero', 'dim'), ('zero', 'zero')])
def test_result_dtype_tensors(a, b, kinds):
    groups = {'dim': [], 'zero': []}
    for kind, name in zip(kinds, (a, b)): groups[kind].append(getattr(lt._C, '_bool' if name == 'bool' else name))
    want = torch.result_type(torch_operand(kinds[0], a), torch_operand(kinds[1], b))
    assert repr(lt._C.result_dtype(groups['dim'], groups['zero'])) == repr(want)

@pytest.mark.parametrize('name', NAMES)
@pytest.mark.parametrize('scalar', SCALARS)
@pytest.mark.parametrize('kind', ['dim', 'zero'])
@pytest.mark.parametrize('default', ['float32', 'float64'])
def test_result_dtype_scalars(name, scalar, kind, default):
    d = getattr(lt._C, '_bool' if name == 'bool' else name)
    torch.set_default_dtype(getattr(torch, default)); lt.set_default_dtype(getattr(lt, default))
    try:
        want = torch.result_type(torch_operand(kind, name), scalar)
        args = ([d], [], [lt._C.scalar_dtype(scalar)]) if kind == 'dim' else ([], [d], [lt._C.scalar_dtype(scalar)])
        assert repr(lt._C.result_dtype(*args)) == repr(want)
    finally:
        torch.set_default_dtype(torch.float32); lt.set_default_dtype(lt.float32)

@pytest.mark.parametrize('args', [('cpu',), ('cuda',), ('cuda:1',), ('cuda', 2), ('cpu', 3)])
def test_device_parsing(args):
    ours, theirs = lt.device(*args), torch.device(*args)
    assert (repr(ours), str(ours), ours.type, ours.index) == (repr(theirs), str(theirs), theirs.type, theirs.index)
    assert pickle.loads(pickle.dumps(ours)) == ours

@pytest.mark.parametrize('args', [('gpu',), ('cuda:x',), ('cuda:-1',), ('cuda', -1), ('cuda:1', 1), (-1,), (1.5,), ('',)])
def test_device_errors(args):
    err = same_error(lambda: lt.device(*args), lambda: torch.device(*args))
    assert not str(args[0]) or str(args[0]) in str(err) or str(args[-1]) in str(err)

def test_int_device_is_cuda():
    "PyTorch reads an int as the current accelerator's index (raising where there is none); ours is always CUDA."
    assert lt.device(1) == lt.device('cuda', 1)

def test_device_equality_like_torch():
    assert (lt.device('cpu') == lt.device('cpu', 0)) == (torch.device('cpu') == torch.device('cpu', 0))
    assert (lt.device('cuda:0') == lt.device('cuda', 0)) == (torch.device('cuda:0') == torch.device('cuda', 0))

def test_default_dtype_errors():
    same_error(lambda: lt.set_default_dtype(lt.int64), lambda: torch.set_default_dtype(torch.int64))
    assert lt.get_default_dtype() is lt.float32

def test_manual_seed_range_errors():
    same_error(lambda: lt.manual_seed(2**64), lambda: torch.manual_seed(2**64))
    lt.manual_seed(-5); torch.manual_seed(-5)
    assert lt.initial_seed() == torch.initial_seed()

def test_default_initial_seed_matches_torch():
    assert lt.Generator().initial_seed() == torch.Generator().initial_seed()

def test_generator_state_round_trip():
    g = lt.Generator().manual_seed(1234)
    g.numpy().random(7)  # advance, so the state is not the seed's
    state = g.get_state()
    a = g.numpy().standard_normal(5)
    g.set_state(state)
    np.testing.assert_array_equal(g.numpy().standard_normal(5), a)

def test_bad_state_changes_nothing():
    g = lt.Generator().manual_seed(7)
    state = g.get_state()
    with pytest.raises(TypeError): g.set_state(state.numpy().astype(np.int32))
    with pytest.raises(RuntimeError, match='wrong size'): g.set_state(state[:-1])
    np.testing.assert_array_equal(g.get_state().numpy(), state.numpy())

def test_rng_state_is_a_byte_tensor_like_torch():
    ours, theirs = lt.get_rng_state(), torch.get_rng_state()
    assert isinstance(ours, lt.Tensor) and repr(ours.dtype) == repr(theirs.dtype) == 'torch.uint8' and ours.dim() == 1

def test_global_seed_reproduces():
    lt.manual_seed(3); a = lt.default_generator.numpy().random(4)
    s = lt.get_rng_state(); b = lt.default_generator.numpy().random(4)
    lt.manual_seed(3); np.testing.assert_array_equal(lt.default_generator.numpy().random(4), a)
    lt.set_rng_state(s); np.testing.assert_array_equal(lt.default_generator.numpy().random(4), b)

def test_virtual_cpu_devices_and_missing_cuda():
    assert lt._C.canonical_device('cpu:0') == lt.device('cpu')
    with pytest.raises(RuntimeError, match='cpu:8'): lt._C.canonical_device('cpu:8')
    if not lt.cuda.is_available():
        with pytest.raises(RuntimeError, match='CuPy|GPU'): lt._C.canonical_device('cuda:0')
        assert lt.cuda.device_count() == 0

def test_device_context_on_cpu_is_one_shared_object():
    "The CPU's device context does nothing and allocates nothing per call: the hot paths enter it freely."
    ctx = lt._C.device_context(lt.device('cpu'))
    assert ctx is lt._C.device_context(lt.device('cpu:3'))
    with ctx, ctx: pass  # reentrant
    if lt.cuda.device_count() > 1:
        with lt._C.device_context(lt.device('cuda:1')): assert lt.cuda.current_device() == 1

def test_unknown_dtype_is_type_error():
    with pytest.raises(TypeError, match='uint16'): lt._C.dtype_from_numpy(np.uint16)  # complex64 is a dtype now
    with pytest.raises(TypeError, match='float32'): lt._C.check_dtype('float32')

@pytest.mark.skipif(not lt.cuda.is_available(), reason='no GPU: CuPy or a device is missing')
def test_cuda_generator_round_trip():
    g = lt._C.default_generator_for('cuda:0')
    g.manual_seed(5); s = g.get_state(); a = g.cupy().standard_normal(4).get()
    g.set_state(s); np.testing.assert_array_equal(g.cupy().standard_normal(4).get(), a)
