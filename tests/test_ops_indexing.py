"Flipping, selecting and scattering (nbs/03f_indexing) and sorting (nbs/03g_sorting) against real PyTorch: values, dtypes, gradients, views, node names, errors."
import warnings
import numpy as np
import pytest
import torch
import lit_torch as lt
from op_helpers import check_op, check_gradcheck, check_same_error, make_inputs

pytestmark = pytest.mark.filterwarnings('ignore:index_reduce.. is in beta:UserWarning')

I = lambda m, v: m.tensor(v)                  # an int64 tensor in either library
B = lambda m, v: m.tensor(v, dtype=m.bool)    # a bool tensor in either library

# ---------------------------------------------------------------- forward and gradients against torch
OPS = {
    'flip': (lambda m, x: x.flip(0, 2), [(2, 3, 4)]),
    'flip_fn': (lambda m, x: m.flip(x, [-1]), [(2, 3)]),
    'fliplr': (lambda m, x: m.fliplr(x), [(2, 3)]),
    'flipud': (lambda m, x: x.flipud(), [(2, 3)]),
    'roll': (lambda m, x: x.roll(2, 1), [(2, 5)]),
    'roll_flat': (lambda m, x: m.roll(x, -3), [(2, 5)]),
    'roll_multi': (lambda m, x: x.roll((1, -2), (0, 1)), [(3, 5)]),
    'rot90': (lambda m, x: x.rot90(), [(2, 3)]),
    'rot90_k': (lambda m, x: m.rot90(x, -3, (2, 0)), [(2, 3, 4)]),
    'tile': (lambda m, x: x.tile(2), [(2, 3)]),
    'tile_lead': (lambda m, x: m.tile(x, (2, 1, 2)), [(2, 3)]),
    'repeat_interleave': (lambda m, x: x.repeat_interleave(3), [(2, 3)]),
    'repeat_interleave_dim': (lambda m, x: x.repeat_interleave(2, dim=1), [(2, 3)]),
    'repeat_interleave_counts': (lambda m, x: m.repeat_interleave(x, I(m, [2, 0, 1]), dim=0), [(3, 2)]),
    'broadcast_to': (lambda m, x: x.broadcast_to((4, 2, 3)), [(2, 1)]),
    'broadcast_tensors': (lambda m, x, y: m.broadcast_tensors(x, y), [(2, 1), (3,)]),
    'meshgrid_ij': (lambda m, x, y: m.meshgrid(x, y, indexing='ij'), [(3,), (2,)]),
    'meshgrid_xy': (lambda m, x, y, z: m.meshgrid([x, y, z], indexing='xy'), [(3,), (2,), (4,)]),
    'atleast_3d': (lambda m, x, y: m.atleast_3d(x, y), [(3,), (2, 3)]),
    'hstack': (lambda m, x, y: m.hstack([x, y]), [(2, 3), (2, 1)]),
    'vstack': (lambda m, x, y: m.vstack([x, y]), [(3,), (2, 3)]),
    'dstack': (lambda m, x, y: m.dstack((x, y)), [(2, 3), (2, 3, 2)]),
    'column_stack': (lambda m, x, y: m.column_stack([x, y]), [(3,), (3, 2)]),
    'tensor_split': (lambda m, x: x.tensor_split(3, 1), [(2, 7)]),
    'tensor_split_idx': (lambda m, x: m.tensor_split(x, [1, 4, 4]), [(6, 2)]),
    'hsplit': (lambda m, x: x.hsplit([1, 3]), [(2, 5)]),
    'dsplit': (lambda m, x: m.dsplit(x, 2), [(2, 1, 4)]),
    'diagonal': (lambda m, x: x.diagonal(1), [(3, 4)]),
    'diagonal_dims': (lambda m, x: m.diagonal(x, -1, 2, 0), [(3, 2, 4)]),
    'diag_vec': (lambda m, x: m.diag(x, -1), [(3,)]),
    'diag_mat': (lambda m, x: x.diag(1), [(3, 4)]),
    'diag_embed': (lambda m, x: m.diag_embed(x, 1, 0, 2), [(2, 3)]),
    'diagflat': (lambda m, x: x.diagflat(-1), [(2, 2)]),
    'unfold': (lambda m, x: x.unfold(1, 3, 2), [(2, 7)]),
    'unfold_overlap': (lambda m, x: x.unfold(0, 4, 1), [(6, 2)]),
    'as_strided': (lambda m, x: x.as_strided((3, 3), (1, 2), 1), [(9,)]),
    'as_strided_overlap': (lambda m, x: m.as_strided(x, (4, 3), (2, 1)), [(3, 4)]),
    'block_diag': (lambda m, x, y, z: m.block_diag(x, y, z), [(2, 3), (3,), ()]),
    'cartesian_prod': (lambda m, x, y: m.cartesian_prod(x, y), [(3,), (2,)]),
    'masked_select': (lambda m, x: x.masked_select(B(m, [[True, False, True]])), [(2, 3)]),
    'masked_select_bcast_input': (lambda m, x: m.masked_select(x, B(m, [[True], [False]])), [(3,)]),
    'masked_scatter': (lambda m, x, s: x.masked_scatter(B(m, [True, False, True]), s), [(2, 3), (5,)]),
    'take': (lambda m, x: x.take(I(m, [[0, -1], [3, 3]])), [(2, 3)]),
    'put': (lambda m, x, s: x.put(I(m, [1, -1, 1]), s, accumulate=True), [(2, 3), (3,)]),
    'take_along_dim': (lambda m, x: m.take_along_dim(x, I(m, [[0, 2], [1, 1]]), 1), [(2, 3)]),
    'take_along_dim_bcast': (lambda m, x: x.take_along_dim(I(m, [[2], [0]]).unsqueeze(0), 2), [(3, 2, 4)]),
    'take_along_dim_flat': (lambda m, x: m.take_along_dim(x, I(m, [5, 0])), [(2, 3)]),
    'index_add': (lambda m, x, s: x.index_add(1, I(m, [2, 0, 2]), s, alpha=-2), [(2, 3), (2, 3)]),
    'index_copy': (lambda m, x, s: m.index_copy(x, 0, I(m, [2, 0]), s), [(3, 2), (2, 2)]),
    'index_fill': (lambda m, x: x.index_fill(1, I(m, [0, 2, 2]), -1.5), [(2, 3)]),
    'index_fill_tensor': (lambda m, x, v: x.index_fill(0, I(m, [1]), v), [(2, 3), ()]),
    'index_put': (lambda m, x, v: x.index_put((I(m, [0, 1, 0]), I(m, [2, 2, 2])), v, accumulate=True), [(2, 3), (3,)]),
    'index_reduce_prod': (lambda m, x, s: x.index_reduce(1, I(m, [2, 0, 2]), s, 'prod'), [(2, 3), (2, 3)]),
    'index_reduce_mean': (lambda m, x, s: m.index_reduce(x, 0, I(m, [1, 1]), s, 'mean', include_self=False), [(3, 2), (2, 2)]),
    'index_reduce_amax': (lambda m, x, s: x.index_reduce(0, I(m, [0, 2, 0]), s, 'amax'), [(3, 2), (3, 2)]),
    'index_reduce_amin': (lambda m, x, s: x.index_reduce(1, I(m, [1]), s, 'amin', include_self=False), [(2, 2), (2, 1)]),
    'scatter_reduce_sum': (lambda m, x, s: x.scatter_reduce(0, I(m, [[1, 0, 1], [1, 1, 0]]), s, 'sum'), [(2, 3), (2, 3)]),  # torch: src as large as index (a larger one breaks its backward)
    'scatter_reduce_prod': (lambda m, x, s: m.scatter_reduce(x, 1, I(m, [[0, 0], [2, 0]]), s, 'prod', include_self=False), [(2, 3), (2, 2)]),
    'scatter_reduce_mean': (lambda m, x, s: x.scatter_reduce(1, I(m, [[2, 2, 0]]), s, 'mean'), [(2, 3), (1, 3)]),
    'scatter_reduce_amax': (lambda m, x, s: x.scatter_reduce(0, I(m, [[0, 1], [0, 1]]), s, 'amax'), [(2, 2), (2, 2)]),
    'index_put_bcast': (lambda m, x, v: m.index_put(x, (I(m, [1]),), v), [(2, 3), (3,)]),
    'select_scatter': (lambda m, x, s: m.select_scatter(x, s, 1, -1), [(2, 3), (2,)]),
    'slice_scatter': (lambda m, x, s: x.slice_scatter(s, 0, 1, None, 2), [(5, 2), (2, 2)]),
    'diagonal_scatter': (lambda m, x, s: m.diagonal_scatter(x, s, -1), [(3, 3), (2,)]),
    'view_as': (lambda m, x, y: x.view_as(y), [(2, 3), (3, 2)]),
    'reshape_as': (lambda m, x, y: x.t().reshape_as(y), [(2, 3), (6,)]),
    'ravel': (lambda m, x: m.ravel(x.t()), [(2, 3)]),
    'narrow_copy': (lambda m, x: x.narrow_copy(1, 1, 2), [(2, 4)]),
    'permute_copy': (lambda m, x: m.permute_copy(x, (1, 0)), [(2, 3)]),
    'combinations': (lambda m, x: m.combinations(x, 3), [(4,)]),
    'combinations_repl': (lambda m, x: m.combinations(x, with_replacement=True), [(3,)]),
    'tensordot': (lambda m, x, y: m.tensordot(x, y, ([2, 0], [0, 1])), [(3, 2, 4), (4, 3, 5)]),
    'tensordot_int': (lambda m, x, y: m.tensordot(x, y, 1), [(2, 3), (3, 4)]),
    'cdist_small': (lambda m, x, y: m.cdist(x, y), [(2, 4, 3), (5, 3)]),
    'cdist_mm': (lambda m, x, y: m.cdist(x, y), [(30, 3), (4, 3)]),
    'cdist_p1': (lambda m, x, y: m.cdist(x, y, p=1), [(4, 3), (5, 3)]),
    'cdist_p3': (lambda m, x, y: m.cdist(x, y, p=3.), [(4, 3), (5, 3)]),
    'cdist_inf': (lambda m, x, y: m.cdist(x, y, p=float('inf')), [(4, 3), (5, 3)]),
    'sort': (lambda m, x: x.sort(1), [(3, 5)]),
    'sort_desc': (lambda m, x: m.sort(x, 0, descending=True), [(4, 3)]),
    'argsort': (lambda m, x: x.argsort(-1, descending=True), [(3, 5)]),
    'msort': (lambda m, x: m.msort(x), [(4, 3)]),
    'topk': (lambda m, x: x.topk(2, 0), [(5, 3)]),
    'topk_small': (lambda m, x: m.topk(x, 3, largest=False), [(2, 6)]),
    'kthvalue': (lambda m, x: x.kthvalue(3, 1, keepdim=True), [(2, 5)]),
    'median_all': (lambda m, x: x.median(), [(3, 4)]),
    'median_dim': (lambda m, x: m.median(x, 1), [(3, 4)]),
    'nanmedian_dim': (lambda m, x: x.nanmedian(0, keepdim=True), [(5, 2)]),
    'mode': (lambda m, x: m.mode(x, 1), [(3, 8)]),
    'quantile': (lambda m, x: x.quantile(m.tensor([0.2, 0.5, 1.], dtype=x.dtype), dim=1, keepdim=True), [(3, 6)]),
    'quantile_all': (lambda m, x: m.quantile(x, 0.3, interpolation='midpoint'), [(3, 4)]),
    'nanquantile': (lambda m, x: x.nanquantile(0.75, 0, interpolation='nearest'), [(5, 2)]),
}

@pytest.mark.parametrize('name', OPS)
def test_matches_torch(name):
    fn, shapes = OPS[name]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        if name == 'mode':  # small integers in float: a most frequent value, without ties between the counts
            check_op(fn, arrays=[np.array([[1, 2, 2, 0, 2, 1, 3, 2], [5, 5, 1, 1, 1, 0, 5, 5], [4, 4, 4, 3, 3, 3, 3, 9]], np.float32)])
        else: check_op(fn, shapes)

GRADCHECK = ['flip', 'roll_multi', 'rot90_k', 'repeat_interleave_counts', 'diagonal_dims', 'diag_embed', 'unfold_overlap',
             'as_strided_overlap', 'block_diag', 'masked_scatter', 'take', 'put', 'take_along_dim_bcast', 'index_add',
             'index_copy', 'index_fill_tensor', 'index_put', 'index_reduce_prod', 'index_reduce_mean', 'index_reduce_amax', 'scatter_reduce_sum', 'scatter_reduce_prod', 'scatter_reduce_mean', 'scatter_reduce_amax', 'select_scatter', 'slice_scatter', 'diagonal_scatter',
             'tensordot', 'cdist_small', 'cdist_p3', 'sort_desc', 'topk', 'kthvalue', 'median_dim', 'median_all', 'quantile', 'quantile_all']

@pytest.mark.parametrize('name', GRADCHECK)
def test_gradcheck_float64(name):
    fn, shapes = OPS[name]
    values = lambda m, *xs: (lambda out: out.values if hasattr(out, 'values') else out)(fn(m, *xs))  # sort & co: the values
    check_gradcheck(values, shapes, gradgrad=name in ('flip', 'unfold_overlap', 'take', 'index_add', 'diagonal_scatter', 'cdist_small', 'topk'))

# ---------------------------------------------------------------- views share memory and the version counter
VIEWS = {
    'diagonal': lambda x: x.diagonal(),
    'unfold': lambda x: x.unfold(1, 2, 1),
    'as_strided': lambda x: x.as_strided((2, 2), (1, 3), 1),
    'broadcast_to': lambda x: x.broadcast_to((2, 3, 4)),
    'meshgrid': lambda x: lt.meshgrid(x[0], x[1], indexing='ij')[0],
    'atleast_3d': lambda x: lt.atleast_3d(x),
    'tensor_split': lambda x: x.tensor_split(2, 1)[1],
    'hsplit': lambda x: x.hsplit(2)[0],
    'view_as': lambda x: x.view_as(lt.zeros(12)),
    'ravel': lambda x: x.ravel(),
}
COPIES = {'flip': lambda x: x.flip(0), 'roll': lambda x: x.roll(1), 'rot90': lambda x: x.rot90(), 'tile': lambda x: x.tile(2),
          'diag': lambda x: x.diag(), 'take': lambda x: x.take(lt.tensor([0, 1])), 'narrow_copy': lambda x: x.narrow_copy(0, 0, 1),
          'permute_copy': lambda x: lt.permute_copy(x, (1, 0)), 'masked_select': lambda x: x.masked_select(x > 0)}

@pytest.mark.parametrize('name', VIEWS)
def test_views_share_memory_and_version(name):
    x = lt.arange(12.).reshape(3, 4)
    v = VIEWS[name](x)
    assert np.shares_memory(v._data, x._data) and v._version is x._version
    if name != 'broadcast_to' and name != 'meshgrid':  # a stride-0 view is read-only, as in torch
        v.view(-1)[0].fill_(100.) if v.is_contiguous() else v[(0,) * v.ndim].fill_(100.)
        assert x._version[0] == 1 and (x == 100.).sum().item() == 1

@pytest.mark.parametrize('name', COPIES)
def test_copies_do_not_share(name):
    x = lt.arange(12.).reshape(3, 4)
    assert not np.shares_memory(COPIES[name](x)._data, x._data)

def test_diagonal_write_reaches_base_and_torch_agrees():
    for m in (torch, lt):
        x = m.zeros(3, 3)
        x.diagonal().fill_(1.)
        x.diagonal(1).add_(2.)
        assert x.tolist() == [[1, 2, 0], [0, 1, 2], [0, 0, 1]], m

def test_inplace_views_match_torch():
    for m in (torch, lt):
        x = m.zeros(2, 1, 3)
        y = x.squeeze_(1)
        assert y is x and tuple(x.shape) == (2, 3) and (x._version if m is torch else x._version[0]) == 1
        x.t_().unsqueeze_(0).transpose_(0, 2).swapdims_(1, 2)
        assert tuple(x.shape) == (2, 1, 3)
        x.as_strided_((3, 2), (1, 3))
        assert tuple(x.shape) == (3, 2)
    a = torch.randn(2, 3, requires_grad=True); b = lt.tensor(a.detach().numpy(), requires_grad=True)
    outs = []
    for m, x in ((torch, a), (lt, b)):
        h = x * 1
        h.t_()
        h.unsqueeze_(0)
        outs.append((type(h.grad_fn).__name__ if m is torch else h.grad_fn.name()))
        (h * m.arange(2.)).sum().backward()
    assert outs == ['UnsqueezeBackward1', 'UnsqueezeBackward1']
    np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy())

def test_inplace_index_ops_match_torch():
    for name, fn in {
        'index_add_': lambda m, x: x.index_add_(0, I(m, [1, 1]), m.ones(2, 3), alpha=2),
        'index_copy_': lambda m, x: x.index_copy_(1, I(m, [0]), m.ones(2, 1)),
        'index_fill_': lambda m, x: x.index_fill_(1, I(m, [2, 0]), 7.),
        'index_put_': lambda m, x: x.index_put_((I(m, [0, 0]), I(m, [1, 1])), m.tensor([1., 2.]), True),
        'masked_scatter_': lambda m, x: x.masked_scatter_(x > 2, m.tensor([9., 8., 7.])),
        'put_': lambda m, x: x.put_(I(m, [5, 0]), m.tensor([-1., -2.])),
        'tril_': lambda m, x: x.tril_(-1), 'triu_': lambda m, x: x.triu_(1),
        'index_reduce_': lambda m, x: x.index_reduce_(1, I(m, [0, 0]), m.tensor([[2., 3.], [4., 5.]]), 'prod'),
        'scatter_reduce_': lambda m, x: x.scatter_reduce_(1, I(m, [[2, 2], [0, 1]]), m.tensor([[2., 3.], [4., 5.]]), 'amin', include_self=False),
    }.items():
        t, l = torch.arange(6.).reshape(2, 3), lt.arange(6.).reshape(2, 3)
        assert fn(torch, t) is t and fn(lt, l) is l, name
        assert l.tolist() == t.tolist() and l._version[0] == t._version, name

def test_inplace_index_fill_on_a_graph():
    for m in (torch, lt):
        w = m.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
        h = w * 2
        h.index_fill_(1, m.tensor([1]), 0.)
        (h * h).sum().backward()
        assert w.grad.tolist() == [[8, 0, 24], [32, 0, 48]], m
        try: w.index_fill_(0, m.tensor([0]), 1.)
        except RuntimeError as e: assert 'leaf Variable' in str(e)
        else: raise AssertionError(m)

# ---------------------------------------------------------------- node names
NODES = {
    'FlipBackward0': lambda m, x: x.flip(0), 'RollBackward0': lambda m, x: x.roll(1), 'Rot90Backward0': lambda m, x: x.view(3, 3).rot90(),
    'DiagonalBackward0': lambda m, x: x.view(3, 3).diagonal(), 'DiagEmbedBackward0': lambda m, x: m.diag_embed(x),
    'UnfoldBackward0': lambda m, x: x.unfold(0, 1, 1), 'AsStridedBackward0': lambda m, x: x.as_strided((2,), (1,)),
    'BlockDiagBackward0': lambda m, x: m.block_diag(x, x), 'MaskedSelectBackward0': lambda m, x: x.masked_select(x > -9),
    'MaskedScatterBackward0': lambda m, x: x.masked_scatter(x > -9, x), 'TakeBackward0': lambda m, x: x.take(m.tensor([0])),
    'IndexAddBackward0': lambda m, x: x.index_add(0, m.tensor([0]), x[:1]), 'IndexCopyBackward0': lambda m, x: x.index_copy(0, m.tensor([0]), x[:1]),
    'IndexFillBackward0': lambda m, x: x.index_fill(0, m.tensor([0]), 1.), 'IndexPutBackward0': lambda m, x: x.index_put((m.tensor([0]),), x[:1]),
    'SelectScatterBackward0': lambda m, x: m.select_scatter(x.view(3, 3), x[:3], 0, 0), 'SliceScatterBackward0': lambda m, x: m.slice_scatter(x, x[:1], 0, 0, 1),
    'DiagonalScatterBackward0': lambda m, x: m.diagonal_scatter(x.view(3, 3), x[:3]), 'CdistBackward0': lambda m, x: m.cdist(x.view(3, 3), x.view(3, 3)),
    'SortBackward0': lambda m, x: x.sort().values, 'TopkBackward0': lambda m, x: x.topk(2).values, 'KthvalueBackward0': lambda m, x: x.kthvalue(2).values,
    'MedianBackward0': lambda m, x: x.median(), 'MedianBackward1': lambda m, x: x.median(0).values, 'ModeBackward0': lambda m, x: x.mode().values,
    'NanmedianBackward0': lambda m, x: x.nanmedian(), 'Unique2Backward0': lambda m, x: m.unique(x),
}

@pytest.mark.parametrize('node', NODES)
def test_node_names(node):
    data = np.arange(9.)
    t = NODES[node](torch, torch.tensor(data, requires_grad=True))
    l = NODES[node](lt, lt.tensor(data, requires_grad=True))
    assert type(t.grad_fn).__name__ == node and l.grad_fn.name() == node

# ---------------------------------------------------------------- sorting: ties, NaN, return types, unique, searchsorted
def test_stable_sort_with_ties_and_nan_matches_torch():
    a = np.array([[2., np.nan, 1., 2., 1., np.nan, 0., 2.]] * 2)
    a[1] = a[1][::-1]
    for descending in (False, True):
        t = torch.tensor(a).sort(dim=1, descending=descending, stable=True)
        l = lt.tensor(a).sort(dim=1, descending=descending, stable=True)
        assert l.indices.tolist() == t.indices.tolist()
        np.testing.assert_array_equal(l.values.numpy(), t.values.numpy())
    b = np.random.default_rng(0).integers(0, 3, 50).astype(np.int64)
    assert lt.tensor(b).argsort(stable=True).tolist() == torch.tensor(b).argsort(stable=True).tolist()
    assert lt.tensor(b).argsort(descending=True, stable=True).tolist() == torch.tensor(b).argsort(descending=True, stable=True).tolist()

def test_return_types():
    x = lt.tensor([[3., 1.], [2., 4.]])
    for name, out in (('sort', x.sort()), ('topk', x.topk(1)), ('kthvalue', x.kthvalue(1)), ('median', x.median(0)),
                      ('nanmedian', x.nanmedian(0)), ('mode', x.mode())):
        assert type(out).__name__ == name and out._fields == ('values', 'indices') and out.indices.dtype == lt.int64
        assert repr(out).startswith(f'torch.return_types.{name}(')
        assert type(out) is getattr(lt.return_types, name)

def test_median_nan_and_lower_median_match_torch():
    a = np.array([[1., 4., 2., 3.], [5., np.nan, 0., 9.], [np.nan, np.nan, np.nan, 1.]])
    for f in (lambda m, x: x.median(1), lambda m, x: x.nanmedian(1), lambda m, x: x[0].median(), lambda m, x: x.nanmedian()):
        t, l = f(torch, torch.tensor(a)), f(lt, lt.tensor(a))
        tt, ll = (t, l) if isinstance(t, torch.Tensor) else (t.values, l.values)
        np.testing.assert_array_equal(ll.numpy(), tt.numpy())
        if not isinstance(t, torch.Tensor): assert l.indices.tolist() == t.indices.tolist()

UNIQUE = {
    'flat': lambda m, x: m.unique(x, return_inverse=True, return_counts=True),
    'method': lambda m, x: x.unique(sorted=True, return_counts=True),
    'dim0': lambda m, x: m.unique(x, dim=0, return_inverse=True, return_counts=True),
    'dim1': lambda m, x: x.unique(dim=1, return_inverse=True),
    'consecutive': lambda m, x: m.unique_consecutive(x, return_inverse=True, return_counts=True),
    'consecutive_dim': lambda m, x: x.unique_consecutive(dim=0, return_counts=True),
}

@pytest.mark.parametrize('name', UNIQUE)
@pytest.mark.parametrize('dtype', ['int64', 'float32', 'bool'])
def test_unique_matches_torch(name, dtype):
    a = np.random.default_rng(3).integers(0, 3, (6, 4)).astype(dtype)
    a[3] = a[1]
    t, l = UNIQUE[name](torch, torch.tensor(a)), UNIQUE[name](lt, lt.tensor(a))
    t, l = (t, l) if isinstance(t, tuple) else ((t,), (l,))
    assert len(t) == len(l)
    for tt, ll in zip(t, l):
        assert str(ll.dtype) == str(tt.dtype) and ll.tolist() == tt.tolist()

def test_unique_nan_and_empty_match_torch():
    for a in (np.array([np.nan, 1., np.nan, 1.]), np.zeros((0, 3))):
        t, l = torch.unique(torch.tensor(a), return_counts=True), lt.unique(lt.tensor(a), return_counts=True)
        assert [x.shape for x in l] == [tuple(x.shape) for x in t]
    check_same_error(lambda m: m.unique(m.zeros(0, 3), dim=1))

SEARCH = {
    'left': lambda m: m.searchsorted(m.tensor([1., 3., 3., 5.]), m.tensor([[0., 3.], [4., 9.]])),
    'right': lambda m: m.searchsorted(m.tensor([1., 3., 3., 5.]), m.tensor([3., 5.]), right=True),
    'side': lambda m: m.searchsorted(m.tensor([1, 3, 5]), m.tensor([3]), side='right', out_int32=True),
    'batched': lambda m: m.searchsorted(m.tensor([[1., 2., 3.], [10., 20., 30.]]), m.tensor([[2.5], [5.]])),
    'sorter': lambda m: m.searchsorted(m.tensor([3., 1., 2.]), m.tensor([2.5, 0.]), sorter=m.tensor([1, 2, 0])),
    'scalar': lambda m: m.searchsorted(m.tensor([1., 2., 3.]), 2.5),
    'mixed_dtypes': lambda m: m.searchsorted(m.tensor([1, 2, 3]), m.tensor([1.5])),
    'bucketize': lambda m: m.bucketize(m.tensor([[0.5, 3.], [10., 1.]]), m.tensor([1., 3., 5.])),
    'bucketize_right': lambda m: m.bucketize(m.tensor([1., 3.]), m.tensor([1., 3., 5.]), right=True),
}

@pytest.mark.parametrize('name', SEARCH)
def test_searchsorted_matches_torch(name):
    t, l = SEARCH[name](torch), SEARCH[name](lt)
    assert str(l.dtype) == str(t.dtype) and l.tolist() == t.tolist()

# ---------------------------------------------------------------- errors: the same exception type as torch
ERRORS = {
    'flip_dup': lambda m: m.ones(2, 2).flip(0, -2), 'fliplr_1d': lambda m: m.fliplr(m.ones(3)),
    'roll_align': lambda m: m.ones(2, 2).roll((1, 2), 0), 'roll_0d': lambda m: m.tensor(1.).roll(1, 0),
    'rot90_same': lambda m: m.ones(2, 2).rot90(1, (0, 0)), 'rot90_1d': lambda m: m.ones(3).rot90(),
    'repeat_interleave_neg': lambda m: m.ones(3).repeat_interleave(-1), 'repeat_interleave_size': lambda m: m.ones(3).repeat_interleave(m.tensor([1, 2])),
    'broadcast_to': lambda m: m.ones(3).broadcast_to((1,)), 'broadcast_shapes': lambda m: m.broadcast_shapes((2,), (3,)),
    'meshgrid_2d': lambda m: m.meshgrid(m.ones(2, 2), indexing='ij'), 'hsplit': lambda m: m.ones(4).hsplit(3),
    'vsplit_1d': lambda m: m.ones(4).vsplit(2), 'tensor_split_0d': lambda m: m.tensor(1.).tensor_split(2),
    'diagonal_same': lambda m: m.ones(3, 3).diagonal(0, 1, 1), 'diag_3d': lambda m: m.diag(m.ones(2, 2, 2)),
    'unfold_size': lambda m: m.ones(3).unfold(0, 4, 1), 'unfold_step': lambda m: m.ones(3).unfold(0, 2, 0),
    'as_strided_oob': lambda m: m.ones(3).as_strided((4,), (1,)), 'as_strided_neg': lambda m: m.ones(3).as_strided((2,), (-1,)),
    'block_diag_3d': lambda m: m.block_diag(m.ones(1, 1, 1)), 'cartesian_2d': lambda m: m.cartesian_prod(m.ones(2, 2)),
    'masked_select_mask': lambda m: m.ones(2).masked_select(m.ones(2)), 'masked_scatter_short': lambda m: m.ones(3).masked_scatter(m.ones(3) > 0, m.ones(2)),
    'masked_scatter_dtype': lambda m: m.ones(3).masked_scatter(m.ones(3) > 0, m.ones(3, dtype=m.float64)),
    'take_oob': lambda m: m.ones(3).take(m.tensor([3])), 'take_int32': lambda m: m.ones(3).take(m.tensor([0], dtype=m.int32)),
    'take_along_dim_ndim': lambda m: m.ones(3, 3).take_along_dim(m.tensor([0]), 1),
    'index_add_count': lambda m: m.ones(3, 2).index_add(0, m.tensor([0]), m.ones(2, 2)),
    'index_add_oob': lambda m: m.ones(3).index_add(0, m.tensor([5]), m.ones(1)),
    'index_add_dtype': lambda m: m.ones(3).index_add(0, m.tensor([1]), m.ones(1, dtype=m.float64)),
    'index_copy_oob': lambda m: m.ones(3).index_copy(0, m.tensor([5]), m.ones(1)),
    'index_fill_int32': lambda m: m.ones(3).index_fill(0, m.tensor([0], dtype=m.int32), 1.),
    'index_fill_value_1d': lambda m: m.ones(3).index_fill(0, m.tensor([0]), m.ones(1)),
    'index_reduce_sum': lambda m: m.ones(3).index_reduce(0, m.tensor([0]), m.ones(1), 'sum'),
    'scatter_reduce_op': lambda m: m.ones(3).scatter_reduce(0, m.tensor([0]), m.ones(1), 'maximum'),
    'scatter_reduce_dtype': lambda m: m.ones(3).scatter_reduce(0, m.tensor([0]), m.ones(1, dtype=m.float64), 'sum'),
    'index_put_dtype': lambda m: m.ones(3).index_put((m.tensor([0]),), m.ones(1, dtype=m.float64)),
    'index_put_none': lambda m: m.ones(2, 3).index_put((None, m.tensor([0])), m.ones(1)),
    'select_scatter_size': lambda m: m.select_scatter(m.ones(3, 3), m.ones(2), 0, 0),
    'select_scatter_oob': lambda m: m.select_scatter(m.ones(3, 3), m.ones(3), 0, 5),
    'slice_scatter_step': lambda m: m.slice_scatter(m.ones(3, 3), m.ones(3, 3), 0, step=0),
    'cdist_cols': lambda m: m.cdist(m.ones(2, 3), m.ones(2, 4)), 'cdist_int': lambda m: m.cdist(m.ones(2, 3, dtype=m.int64), m.ones(2, 3)),
    'cdist_p': lambda m: m.cdist(m.ones(2, 3), m.ones(2, 3), p=-1), 'tensordot_dims': lambda m: m.tensordot(m.ones(2, 3), m.ones(2, 3), ([1], [1, 0])),
    'tensordot_size': lambda m: m.tensordot(m.ones(2, 3), m.ones(2, 3), ([1], [0])), 'combinations_2d': lambda m: m.combinations(m.ones(2, 2)),
    't_3d': lambda m: m.ones(1, 2, 3).t_(), 'squeeze_leaf': lambda m: m.ones(1, 2, requires_grad=True).squeeze_(),
    'narrow_copy_0d': lambda m: m.tensor(1.).narrow_copy(0, 0, 1), 'topk_k': lambda m: m.ones(3).topk(4),
    'quantile_q': lambda m: m.ones(3).quantile(1.5), 'quantile_int': lambda m: m.ones(3, dtype=m.int64).quantile(0.5),
    'quantile_interp': lambda m: m.ones(3).quantile(0.5, interpolation='cubic'), 'quantile_q2d': lambda m: m.ones(3).quantile(m.ones(1, 1) / 2),
    'kthvalue_k': lambda m: m.ones(3).kthvalue(0), 'median_empty': lambda m: m.ones(0, 2).median(0), 'mode_empty': lambda m: m.ones(0).mode(),
    'searchsorted_side': lambda m: m.searchsorted(m.tensor([1.]), m.tensor([1.]), side='left', right=True),
    'searchsorted_side_name': lambda m: m.searchsorted(m.tensor([1.]), m.tensor([1.]), side='middle'),
    'searchsorted_shape': lambda m: m.searchsorted(m.ones(2, 3), m.ones(3, 1)), 'searchsorted_scalar_2d': lambda m: m.searchsorted(m.ones(2, 3), 1.),
    'searchsorted_sorter': lambda m: m.searchsorted(m.tensor([1., 2.]), m.tensor([1.]), sorter=m.tensor([0])),
    'bucketize_2d': lambda m: m.bucketize(m.tensor([1.]), m.ones(2, 2)), 'unravel_float': lambda m: m.unravel_index(m.tensor([1.]), (2, 3)),
    'nonzero_static_neg': lambda m: m.nonzero_static(m.ones(3), size=-1), 'out_overlap': lambda m: (lambda x: m.take(x, m.tensor([0]), out=x))(m.ones(3)),
}

@pytest.mark.parametrize('name', ERRORS)
def test_errors_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check_same_error(ERRORS[name])

def test_error_messages():
    for fn, text in [(lambda: lt.ones(2, 2).flip(0, 0), 'dim 0 appears multiple times in the list of dims'),
                     (lambda: lt.ones(3).unfold(0, 4, 1), 'maximum size for tensor at dimension 0 is 3 but size is 4'),
                     (lambda: lt.ones(3).broadcast_to((1,)), 'The expanded size of the tensor (1) must match the existing size (3) at non-singleton dimension 0'),
                     (lambda: lt.ones(3).take(lt.tensor([5])), 'out of range: tried to access index 5 on a tensor of 3 elements.'),
                     (lambda: lt.ones(3).topk(4), 'selected index k out of range'),
                     (lambda: lt.ones(2, 2).index_add(0, lt.tensor([0]), lt.ones(2, 2)), 'Number of indices (1) should be equal to source.size(dim): (2), for dim: 0')]:
        with pytest.raises(Exception, match=None) as e: fn()
        assert text in str(e.value), (text, str(e.value))

def test_public_names_are_top_level():
    import lit_torch.functional as F, lit_torch.shape_ops as S
    for name in ['flip', 'roll', 'rot90', 'tile', 'repeat_interleave', 'broadcast_to', 'nonzero', 'argwhere', 'masked_select', 'take',
                 'take_along_dim', 'index_add', 'index_put', 'diagonal', 'diag_embed', 'as_strided', 'sort', 'topk', 'searchsorted']:
        assert getattr(lt, name) is getattr(S, name), name
    for name in ['meshgrid', 'broadcast_tensors', 'broadcast_shapes', 'atleast_2d', 'block_diag', 'cartesian_prod', 'tensordot',
                 'cdist', 'chain_matmul', 'unique', 'unique_consecutive', 'unravel_index']:
        assert getattr(lt, name) is getattr(F, name), name

# ---------------------------------------------------------------- checks of existing Tensor methods the issue lists
def test_type_as_expand_as_and_new_star_match_torch():
    for m in (torch, lt):
        x = m.tensor([1.5, 2.5], requires_grad=True)
        i = m.tensor([1, 2], dtype=m.int32)
        assert str(x.type_as(i).dtype) == 'torch.int32' and x.type_as(i).tolist() == [1, 2]
        y = x.type_as(m.zeros(1, dtype=m.float64))
        (y * 2).sum().backward()
        assert str(y.dtype) == 'torch.float64' and str(x.grad.dtype) == 'torch.float32' and x.grad.tolist() == [2., 2.]
        assert tuple(x.detach().expand_as(m.zeros(3, 2)).shape) == (3, 2)
        base = m.zeros(2, dtype=m.float64)
        for made, shape, dtype in ((base.new_zeros(2, 3), (2, 3), 'torch.float64'), (base.new_ones((1,)), (1,), 'torch.float64'),
                                   (base.new_full((2,), 7), (2,), 'torch.float64'), (base.new_empty(4, dtype=m.int64), (4,), 'torch.int64'),
                                   (base.new_tensor([1, 2]), (2,), 'torch.float64')):
            assert tuple(made.shape) == shape and str(made.dtype) == dtype and not made.requires_grad, (m, made)
        assert base.new_zeros(2, requires_grad=True).requires_grad

def test_inplace_index_reduce_on_a_graph_keeps_the_saved_input():
    "index_reduce_'s backward reads the input's old values: the in-place form must not overwrite what it saved."
    grads = []
    for m in (torch, lt):
        w = m.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
        s = m.tensor([[2., 3.], [4., 5.]], requires_grad=True)
        h = w * 1
        h.index_reduce_(1, m.tensor([0, 0]), s, 'prod')
        (h * m.tensor([[1., 2., 3.], [4., 5., 6.]])).sum().backward()
        grads.append((w.grad.tolist(), s.grad.tolist()))
    assert grads[0] == grads[1]
