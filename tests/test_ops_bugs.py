"""Regression tests for the bugs of issue 19 (item 4) and those earlier helpers reported, each against PyTorch:
the same values, shapes and dtypes where torch works, the same exception type (and message where practical) where
torch raises, and no NumPy RuntimeWarning where torch is silent."""
import warnings
import numpy as np
import pytest
import torch
import lit_torch as lt
from op_helpers import check_op, check_same_error

def same(f, *, dtype=True):
    "Run `f(lib)` on both libraries; compare values, shape and dtype."
    t, l = f(torch), f(lt)
    assert tuple(l.shape) == tuple(t.shape), (l.shape, t.shape)
    if dtype: assert repr(l.dtype) == repr(t.dtype), (l.dtype, t.dtype)
    np.testing.assert_allclose(l.detach().numpy().astype(np.float64), t.detach().numpy().astype(np.float64), rtol=1e-6, atol=1e-6)

def raises_same(f, match=None):
    "Both libraries raise, the same exception type; with `match`, lit_torch's message contains torch's text."
    with pytest.raises(Exception) as te: f(torch)
    with pytest.raises(Exception) as le: f(lt)
    assert le.type is te.type, (le.value, te.value)
    if match: assert match in str(te.value) and match in str(le.value), (str(le.value), str(te.value))

# ---------------------------------------------------------------- views

def test_view_of_a_transpose_raises():
    raises_same(lambda m: m.ones(2, 3).t().view(6), "view size is not compatible with input tensor's size and stride")

def test_view_and_reshape_where_strides_allow():
    same(lambda m: m.arange(24.).reshape(2, 3, 4).transpose(0, 1)[:, :, 1:3].reshape(3, 4))
    same(lambda m: m.arange(24.).reshape(2, 3, 4).transpose(1, 2).view(2, 4, 3))  # split/merge of adjacent dims only
    same(lambda m: m.arange(12.).reshape(3, 4)[:, :2].reshape(6))  # a copy: reshape may, view may not
    raises_same(lambda m: m.arange(12.).reshape(3, 4)[:, :2].view(6))

def test_writes_through_a_view_reach_the_base():
    for m in (torch, lt):
        x = m.zeros(2, 3)
        x.view(6)[4] = 7.
        x.view(3, 2).t()[0, 1] = 5.
        assert x.tolist() == [[0., 0., 5.], [0., 7., 0.]]

def test_reshape_of_a_copy_has_torchs_graph():
    for m in (torch, lt):
        y = m.randn(2, 3, requires_grad=True).t().reshape(6)
        assert (y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()) == ('UnsafeViewBackward0', 'CloneBackward0')
    check_op(lambda m, x: x.t().reshape(6) * 2, [(2, 3)])

# ---------------------------------------------------------------- printing

@pytest.mark.parametrize('shape', [(2, 784), (1001,), (3, 400), (1000, 2), (2, 2, 300)])
def test_repr_of_big_tensors(shape):
    assert repr(lt.zeros(*shape)) == repr(torch.zeros(*shape))
    n = int(np.prod(shape))
    assert repr(lt.arange(n).reshape(shape)) == repr(torch.arange(n).reshape(shape))

# ---------------------------------------------------------------- reductions and scans

@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
def test_half_precision_cumsum_accumulates_in_float32(dtype):
    same(lambda m: m.cumsum(m.ones(5000, dtype=getattr(m, dtype)), 0).float())

def test_prod_with_a_dtype_keeps_it():
    same(lambda m: m.prod(m.tensor([True, False]), dtype=m.bool))
    same(lambda m: m.prod(m.tensor([[True, True]]), 1, dtype=m.bool))
    same(lambda m: m.prod(m.tensor([2, 3], dtype=m.int32), dtype=m.int32))
    same(lambda m: m.prod(m.tensor([2, 3], dtype=m.int32)))

@pytest.mark.parametrize('dim', [(), (0,), (0, 1), (1, -2), 1])
@pytest.mark.parametrize('op', ['all', 'any'])
def test_all_any_dims(op, dim):
    data = [[True, False, True], [True, True, False]]
    same(lambda m: getattr(m, op)(m.tensor(data), dim=dim))
    same(lambda m: getattr(m.tensor(data), op)(dim=dim, keepdim=True))

def test_argmax_of_empty():
    raises_same(lambda m: m.argmax(m.ones(0)), 'Expected reduction dim to be specified')
    raises_same(lambda m: m.argmin(m.ones(0, 3), 0), 'Expected reduction dim 0 to have non-zero size')
    same(lambda m: m.argmax(m.ones(0, 3), 1))

def test_amax_amin_of_empty():
    same(lambda m: m.amax(m.ones(5, 0, 5), 0)); same(lambda m: m.amin(m.ones(5, 0, 5), (0, 2)))
    raises_same(lambda m: m.amax(m.ones(5, 0, 5), 1), 'Expected reduction dim 1 to have non-zero size')
    raises_same(lambda m: m.amin(m.ones(0)), 'Expected reduction dim to be specified')
    raises_same(lambda m: m.max(m.ones(0)), 'Expected reduction dim to be specified')

def test_sign_of_nan():
    same(lambda m: m.sign(m.tensor([float('nan'), -2., 0., 3.])))
    same(lambda m: m.tensor([float('nan'), -1.], dtype=m.float64).sign())

# ---------------------------------------------------------------- creation

def test_arange_counts_in_the_integer_dtype():
    same(lambda m: m.arange(0.0, -8.000001, -4.0, dtype=m.int64))
    same(lambda m: m.arange(0.5, 5.7, 1.5, dtype=m.int32))
    same(lambda m: m.arange(0.0, -8.000001, -4.0))
    same(lambda m: m.arange(0.5, 5.7, 1.5, dtype=m.int64)); same(lambda m: m.arange(-0.5, -5.7, -1.5, dtype=m.int16))

def test_linspace_with_tensor_bounds():
    same(lambda m: m.linspace(m.tensor(0.), m.tensor(1.), 5))
    same(lambda m: m.linspace(m.tensor(-2.), 3, 4))

def test_randperm_errors_and_generator():
    raises_same(lambda m: m.randperm(-1), 'negative dimension')
    raises_same(lambda m: m.randperm(3, m.Generator()))  # the generator is keyword-only
    a = lt.randperm(10, generator=lt.Generator().manual_seed(3)); b = lt.randperm(10, generator=lt.Generator().manual_seed(3))
    assert a.tolist() == b.tolist() and sorted(a.tolist()) == list(range(10))

def test_randint_like_takes_a_generator():
    x = lt.ones(4, 5)
    a, b = (lt.randint_like(x, 3, 9, generator=lt.Generator().manual_seed(1)) for _ in range(2))
    assert a.tolist() == b.tolist() and a.dtype == lt.float32 and 3 <= a.min().item() and a.max().item() < 9
    assert torch.randint_like(torch.ones(4, 5), 3, 9, generator=torch.Generator().manual_seed(1)).shape == a.shape

# ---------------------------------------------------------------- indexing, gather and scatter

def test_index_select_of_a_0d_input():
    same(lambda m: m.index_select(m.tensor(5.), 0, m.tensor([0])))
    same(lambda m: m.index_select(m.tensor(5.), 0, m.tensor(0)))
    raises_same(lambda m: m.index_select(m.tensor(5.), 0, m.tensor([0, 0])), 'Index to scalar can have only 1 value')
    check_op(lambda m, x: m.index_select(x.sum(), 0, m.tensor([0])), [(3,)])

def test_gather_with_uint8_index_raises():
    raises_same(lambda m: m.gather(m.arange(4.), 0, m.tensor([1, 2], dtype=m.uint8)), 'Expected dtype int32/int64 for index')

def test_gather_scatter_with_0d_tensors():
    same(lambda m: m.gather(m.arange(5.), 0, m.tensor(3)))
    same(lambda m: m.gather(m.tensor(5.), 0, m.tensor(0)))
    same(lambda m: m.tensor(1.).scatter_add(0, m.tensor(0), m.tensor(2.)))
    same(lambda m: m.tensor(1.).scatter_add(0, m.tensor([0]), m.tensor([2.])))
    same(lambda m: m.zeros(5).scatter_(0, m.tensor(3), value=1))
    same(lambda m: m.zeros(5).scatter(0, m.tensor(3), 1.))
    same(lambda m: m.zeros(5).scatter(0, m.tensor(3), m.tensor(2.)))
    same(lambda m: m.tensor(1.).scatter_(0, m.tensor(0), m.tensor(4.)))
    raises_same(lambda m: m.zeros(2, 5).scatter_(1, m.tensor(3), value=1))

@pytest.mark.parametrize('reduce', ['add', 'multiply'])
def test_scatter_with_reduce(reduce):
    idx = [[0, 1, 0], [1, 2, 1]]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # torch warns that reduce= with a tensor src is deprecated
        same(lambda m: m.full((2, 4), 2.).scatter(1, m.tensor(idx), m.arange(1., 7.).reshape(2, 3), reduce=reduce))
        same(lambda m: m.full((2, 4), 2.).scatter(1, m.tensor(idx), 3., reduce=reduce))
        same(lambda m: m.full((2, 4), 2.).scatter_(1, m.tensor(idx), m.arange(1., 7.).reshape(2, 3), reduce=reduce))
        same(lambda m: m.full((2, 4), 2.).scatter_(1, m.tensor(idx), 3., reduce=reduce))
    raises_same(lambda m: m.zeros(5).scatter(0, m.tensor([1, 1]), 2., reduce='mean'), 'reduce argument must be either add or multiply')

# ---------------------------------------------------------------- einsum

@pytest.mark.parametrize('eq,shapes', [('iji->j', [(3, 4, 3)]), ('ii', [(3, 3)]), ('ii->i', [(3, 3)]), ('iii->', [(3, 3, 3)]),
                                       ('iij,jk->ik', [(3, 3, 4), (4, 2)]), ('...ii->...i', [(2, 3, 3)]),
                                       ('bii,bj->bij', [(2, 3, 3), (2, 4)])])
def test_einsum_repeated_subscripts(eq, shapes):
    check_op(lambda m, *xs: m.einsum(eq, *xs), shapes)

@pytest.mark.parametrize('eq,match', [('ij->l', 'output subscript l does not appear'), ('ij->ii', 'appears more than once'),
                                      ('i1->i', 'invalid subscript given at index 1')])
def test_einsum_bad_subscripts(eq, match):
    raises_same(lambda m: m.einsum(eq, m.ones(2, 2)), match)

# ---------------------------------------------------------------- pow, in-place, zero-size, operands

def test_int_to_negative_int_tensor_power():
    same(lambda m: m.pow(2, m.tensor([-1, -2, 1, 0])))
    same(lambda m: m.tensor([2, 1, -1, -1, 3]) ** m.tensor([-1, -2, -3, -2, 2]))
    same(lambda m: m.pow(m.tensor([2, -1], dtype=m.int32), m.tensor([-1, -3], dtype=m.int32)))
    raises_same(lambda m: m.pow(m.tensor([2, 1]), -1), 'Integers to negative integer powers are not allowed')

@pytest.mark.parametrize('op', [lambda x: x.add_(1), lambda x: x.mul_(2), lambda x: x.relu_(),
                                lambda x: x.scatter_(1, torch.tensor([[0]]) if isinstance(x, torch.Tensor) else lt.tensor([[0]]), 5.),
                                lambda x: x.exp_()])
def test_in_place_on_an_expanded_tensor_raises(op):
    raises_same(lambda m: op(m.ones(1, 3).expand(2, 3)), 'more than one element of the written-to tensor refers to a single memory location')

@pytest.mark.parametrize('make', [lambda m: m.softmax(m.ones(0, 3), 1), lambda m: m.log_softmax(m.ones(3, 0), 1),
                                  lambda m: m.log_softmax(m.ones(0, 3), 1), lambda m: m.nn.functional.softmax(m.ones(2, 0, 3), 1),
                                  lambda m: m.ones(2, 0) @ m.ones(0, 3), lambda m: m.ones(0, 2) @ m.ones(2, 3),
                                  lambda m: m.matmul(m.ones(4, 0, 2), m.ones(2, 3)),
                                  lambda m: m.nn.functional.avg_pool1d(m.ones(0, 2, 4), 2),
                                  lambda m: m.nn.functional.batch_norm(m.ones(0, 3), m.zeros(3), m.ones(3)),
                                  lambda m: m.nn.functional.batch_norm(m.ones(0, 3, 2), m.zeros(3), m.ones(3))])
def test_zero_size_inputs(make):
    same(make)

def test_zero_size_backward():
    check_op(lambda m, x: m.log_softmax(x, 1), [(3, 0)])
    check_op(lambda m, x, y: x @ y, [(2, 0), (0, 3)])

@pytest.mark.parametrize('f', [lambda m: m.log(m.tensor([0., -1.])), lambda m: m.softmax(m.tensor([[-float('inf')] * 2]), 1),
                               lambda m: m.tensor([1., 0.]) / 0, lambda m: m.sqrt(m.tensor([-1.])),
                               lambda m: m.log_softmax(m.tensor([[-float('inf')] * 3]), 1),
                               lambda m: m.nn.functional.cross_entropy(m.tensor([[-float('inf'), 0.]]), m.tensor([0]))])
def test_no_numpy_warnings_where_torch_is_silent(f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('default')
        warnings.filterwarnings('ignore', category=RuntimeWarning, module=r'lit_torch(\.|$)')  # what import lit_torch installs
        t, l = f(torch), f(lt)
    assert [str(x.message) for x in w] == []
    np.testing.assert_array_equal(l.numpy(), t.numpy())

def test_operands_of_two_numbers():
    from lit_torch.ops import _operands
    with pytest.raises(TypeError): _operands(2, 3)
    same(lambda m: m.add(2, 3)); same(lambda m: m.mul(2, 3.5))

# ---------------------------------------------------------------- shape errors

def test_movedim_repeated_dims():
    raises_same(lambda m: m.movedim(m.ones(2, 3), (0, 0), (0, 1)), 'movedim: repeated dim in `source` ([0, 0])')
    raises_same(lambda m: m.movedim(m.ones(2, 3), (0, 1), (1, 1)), 'movedim: repeated dim in `destination` ([1, 1])')
    raises_same(lambda m: m.movedim(m.ones(2, 3), (0, 1), (1,)))

def test_narrow_errors():
    raises_same(lambda m: m.ones(3).narrow(0, 0, -1), 'narrow(): length must be non-negative.')
    raises_same(lambda m: m.ones(3).narrow(0, 2, 5), 'start (2) + length (5) exceeds dimension size (3).')
    raises_same(lambda m: m.ones(3).narrow(3, 0, 1), 'Dimension out of range')

@pytest.mark.parametrize('size,match', [((4, 3), 'The expanded size of the tensor (4) must match the existing size (2) at non-singleton dimension 0.'),
                                        ((3,), 'the number of sizes provided (1) must be greater or equal to the number of dimensions in the tensor (2)'),
                                        ((-2, 3), 'The expanded size of the tensor (-2) must match the existing size (2)'),
                                        ((-1, -1, 3), "isn't allowed in a leading, non-existing dimension 0"),
                                        ((2, 3, 3), 'The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension 1.')])
def test_expand_errors(size, match):
    raises_same(lambda m: m.ones(2, 3).expand(*size), match)
    same(lambda m: m.ones(1, 3).expand(2, -1, 3))
