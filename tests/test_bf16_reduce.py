"""bfloat16 reductions, products, norms, indexing and softmax against PyTorch.

torch's CPU kernels compute bfloat16 in float32 and round once; reductions accumulate in float32. NumPy adds
ml_dtypes' bfloat16 in bfloat16 and refuses it in einsum, and its bfloat16 matrix products come back in float32."""
import math
import warnings
import numpy as np
import pytest
import torch
import lit_torch as lt

RTOL, ATOL = 1.6e-2, 1e-5  # torch.testing's bfloat16 tolerance


def pair(shape, seed=0, scale=3., shift=1., positive=False):
    "The same seeded bfloat16 tensor in torch and lit_torch (never zeros: a random normal, scaled and shifted)."
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * scale + shift
    if positive: a = np.abs(a) + 0.5
    return torch.tensor(a).to(torch.bfloat16), lt.tensor(a).to(lt.bfloat16)


def same(ours, theirs, rtol=RTOL, atol=ATOL):
    "Same dtype and values (a tuple of results: each), at bfloat16's tolerance."
    if isinstance(theirs, (tuple, list)):
        for o, t in zip(ours, theirs): same(o, t, rtol, atol)
        return
    assert str(ours.dtype) == str(theirs.dtype), (ours.dtype, theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape), (ours.shape, theirs.shape)
    o, t = ours.float().numpy(), theirs.float().numpy()
    if o.dtype.kind in 'iub': np.testing.assert_array_equal(o, t)
    else: np.testing.assert_allclose(o, t, rtol=rtol, atol=atol, equal_nan=True)


def check(f, *tensors):
    "`f(torch, *torch tensors)` and `f(lit_torch, *lit_torch tensors)` agree."
    same(f(lt, *[p[1] for p in tensors]), f(torch, *[p[0] for p in tensors]))


# ---------------------------------------------------------------- reductions of 3×1000

REDUCTIONS = {
    'var': lambda m, t: t.var(),
    'var_dim1': lambda m, t: t.var(1),
    'var_biased': lambda m, t: m.var(t, (0, 1), correction=0),
    'std': lambda m, t: t.std(),
    'std_dim1': lambda m, t: t.std(1, keepdim=True),
    'var_mean': lambda m, t: m.var_mean(t, 1),
    'std_mean': lambda m, t: m.std_mean(t, None, correction=0),
    'logsumexp_dim1': lambda m, t: m.logsumexp(t / 30, 1),  # terms of one size: a bfloat16 sum of them stalls at 256
    'logsumexp_dim0': lambda m, t: m.logsumexp(t, 0),
    'logsumexp_all': lambda m, t: m.logsumexp(t / 30, (0, 1)),
    'logcumsumexp': lambda m, t: m.logcumsumexp(t, 1),
    'nanmean': lambda m, t: m.nanmean(t, 1),
    'sum_to_size_rows': lambda m, t: t.reshape(1000, 3).sum_to_size(1, 3),
    'sum_to_size_cols': lambda m, t: t.sum_to_size(3, 1),
}


@pytest.mark.parametrize('name', REDUCTIONS)
def test_reductions_of_1000(name):
    check(REDUCTIONS[name], pair((3, 1000)))


def test_cumprod_accumulates_in_float32():
    "A running product of 1,000 numbers near 1: in bfloat16 it drifts 10% from torch's."
    a = np.random.default_rng(1).uniform(0.9, 1.1, (3, 1000)).astype(np.float32)
    same(lt.cumprod(lt.tensor(a).bfloat16(), 1), torch.cumprod(torch.tensor(a).bfloat16(), 1))


def test_nan_reductions_skip_nan():
    t, l = pair((3, 1000), seed=2)
    t[1, 5] = float('nan'); l[1, 5] = float('nan')
    check(lambda m, x: (m.nansum(x, 1), m.nansum(x), m.nanmean(x, 1), m.nanmean(x)), (t, l))


def test_trace_adds_in_float32():
    check(lambda m, x: m.trace(x), pair((1000, 1000), seed=3, scale=0.1))


def test_sum_to_size_in_backward():
    "The gradient of a broadcast bias is a sum over the batch: added in float32."
    (tb, lb), (tx, lx) = pair((3,), seed=4), pair((1000, 3), seed=5)
    grads = []
    for m, b, x in ((torch, tb, tx), (lt, lb, lx)):
        b = b.clone().requires_grad_()
        (x + b).backward(x)
        grads.append(b.grad)
    same(grads[1], grads[0])


# ---------------------------------------------------------------- softmax

@pytest.mark.parametrize('fn, shape, dim', [('softmax', (3, 1000), 0), ('softmax', (50, 7), 1), ('softmax', (4, 40, 3), 0),
    ('softmax', (4, 40, 3), -1), ('log_softmax', (3, 1000), 0), ('log_softmax', (50, 7), 0), ('log_softmax', (4, 40, 3), 1),
    ('log_softmax', (4, 40, 3), -1)])
def test_softmax(fn, shape, dim):
    check(lambda m, x: getattr(m, fn)(x, dim), pair(shape, seed=6))


def test_log_softmax_last_dim_rounds_the_log_sum_as_torch():
    "torch's last-dim kernel keeps each row's log-sum in bfloat16: the row's max element gets -bf16(log Σ), not -log Σ."
    t, l = pair((64, 6), seed=7)
    assert np.array_equal(lt.log_softmax(l, -1).float().numpy(), torch.log_softmax(t, -1).float().numpy())


# ---------------------------------------------------------------- products

PRODUCTS = {
    'addmm': (lambda m, x, a, b: m.addmm(x, a, b), [(2, 3), (2, 40), (40, 3)]),
    'addmm_scaled': (lambda m, x, a, b: m.addmm(x, a, b, beta=0.2, alpha=0.6), [(2, 3), (2, 40), (40, 3)]),
    'addmm_beta0': (lambda m, x, a, b: m.addmm(x, a, b, beta=0), [(2, 3), (2, 40), (40, 3)]),
    'addmv': (lambda m, x, a, b: m.addmv(x, a, b, beta=0.5, alpha=2), [(5,), (5, 30), (30,)]),
    'baddbmm': (lambda m, x, a, b: m.baddbmm(x, a, b, beta=0.2, alpha=0.6), [(5, 5, 10), (5, 5, 20), (5, 20, 10)]),
    'addbmm': (lambda m, x, a, b: m.addbmm(x, a, b), [(5, 10), (6, 5, 20), (6, 20, 10)]),
    'addmm_method': (lambda m, x, a, b: x.addmm(a, b), [(3,), (2, 40), (40, 3)]),
    'addr': (lambda m, x, a, b: m.addr(x, a, b, beta=0.2, alpha=0.6), [(5, 10), (5,), (10,)]),
}


@pytest.mark.parametrize('name', PRODUCTS)
def test_products(name):
    f, shapes = PRODUCTS[name]
    check(f, *[pair(s, seed=10 + i, scale=1., shift=0.2) for i, s in enumerate(shapes)])


def test_baddbmm_inplace():
    (tx, lx), (ta, la), (tb, lb) = (pair(s, seed=20 + i, scale=1., shift=0.) for i, s in enumerate([(5, 5, 10), (5, 5, 5), (5, 5, 10)]))
    same(lx.clone().baddbmm_(la, lb, beta=0.2, alpha=0.6), tx.clone().baddbmm_(ta, tb, beta=0.2, alpha=0.6))


@pytest.mark.parametrize('dtype', ['float32', 'bfloat16'])
def test_matmul_with_an_empty_dim(dtype):
    "A batch of matrices with 0 columns times a matrix: -1 cannot be inferred in the reshape that folds the batch."
    for sa, sb in (((5, 5, 0), (0, 5)), ((0, 5), (5, 5, 0)), ((2, 0, 3), (3, 4))):
        a, b = torch.ones(sa, dtype=getattr(torch, dtype)), torch.ones(sb, dtype=getattr(torch, dtype))
        la, lb = lt.ones(sa, dtype=getattr(lt, dtype)), lt.ones(sb, dtype=getattr(lt, dtype))
        same(la @ lb, a @ b)
        same(lb.__rmatmul__(la), b.__rmatmul__(a))


EINSUMS = {'i->': [(1000,)], 'ij->j': [(1000, 3)], 'ij,jk->ik': [(3, 500), (500, 4)], 'bij,bjk->bik': [(2, 3, 300), (2, 300, 4)],
           'ij,j->': [(3, 400), (400,)], 'i,j,k->ijk': [(3,), (4,), (5,)], 'ij,kj->ik': [(3, 1000), (2, 1000)]}


@pytest.mark.parametrize('eq', EINSUMS)
def test_einsum(eq):
    check(lambda m, *xs: m.einsum(eq, *xs), *[pair(s, seed=30 + i, scale=1., shift=0.3) for i, s in enumerate(EINSUMS[eq])])


# ---------------------------------------------------------------- norms

NORMS = {
    'vector_norm': lambda m, t: m.linalg.vector_norm(t),
    'vector_norm_dim': lambda m, t: m.linalg.vector_norm(t, dim=1),
    'vector_norm_1': lambda m, t: m.linalg.vector_norm(t, 1, dim=1),
    'vector_norm_inf': lambda m, t: m.linalg.vector_norm(t, math.inf, dim=1),
    'vector_norm_-inf': lambda m, t: m.linalg.vector_norm(t, -math.inf, dim=0),
    'vector_norm_0': lambda m, t: m.linalg.vector_norm(t, 0),
    'vector_norm_3': lambda m, t: m.linalg.vector_norm(t, 3, dim=1, keepdim=True),
    'vector_norm_0.5': lambda m, t: m.linalg.vector_norm(t, 0.5, dim=1),
    'linalg.norm': lambda m, t: m.linalg.norm(t),
    'linalg.norm_dim': lambda m, t: m.linalg.norm(t, dim=1),
    'matrix_norm': lambda m, t: m.linalg.matrix_norm(t),
    'matrix_norm_1': lambda m, t: m.linalg.matrix_norm(t, 1),
    'matrix_norm_-inf': lambda m, t: m.linalg.matrix_norm(t, -math.inf),
    'norm': lambda m, t: t.norm(),
    'norm_dim': lambda m, t: m.norm(t, 2, 1),
    'norm_fro': lambda m, t: m.norm(t, 'fro'),
    'norm_inf': lambda m, t: m.norm(t, -math.inf),
    'normalize': lambda m, t: m.nn.functional.normalize(t, dim=1),
}


@pytest.mark.parametrize('name', NORMS)
def test_norms(name):
    check(NORMS[name], pair((3, 1000), seed=40))


@pytest.mark.parametrize('ord', ['nuc', 2, -2])
def test_matrix_norms_that_need_svd_refuse_bfloat16(ord):
    "torch: 'linalg.matrix_norm: Low precision dtypes not supported. Got BFloat16'."
    t, l = pair((4, 4), seed=41)
    with pytest.raises(RuntimeError, match='Low precision dtypes not supported'): torch.linalg.matrix_norm(t, ord)
    with pytest.raises(RuntimeError, match='Low precision dtypes not supported'): lt.linalg.matrix_norm(l, ord)


def test_matrix_exp_computes_bfloat16_in_float32():
    "Differs from PyTorch: torch 2.x's CPU bfloat16 matrix_exp returns NaN or garbage; lit_torch computes in float32 and rounds once."
    t, l = pair((2, 5, 5), seed=42, scale=0.3, shift=0.)
    ours = lt.linalg.matrix_exp(l)
    assert ours.dtype == lt.bfloat16 and lt.matrix_exp(l).dtype == lt.bfloat16
    np.testing.assert_allclose(ours.float().numpy(), torch.linalg.matrix_exp(t.float()).numpy(), rtol=RTOL, atol=ATOL)


# ---------------------------------------------------------------- indexing

def test_gather_and_scatter_take_int32_and_empty_indices():
    "torch takes an int32 index everywhere, and any dtype for an empty index; a non-empty int16 index is refused."
    (tx, lx), (ts, ls) = pair((10, 5), seed=50), pair((5, 5), seed=51)
    ii = np.random.default_rng(52).integers(0, 10, (5, 5))
    for dt in ('int32', 'int64'):
        ti, li = torch.tensor(ii, dtype=getattr(torch, dt)), lt.tensor(ii, dtype=getattr(lt, dt))
        same(lx.gather(0, li), tx.gather(0, ti))
        same(lx.scatter(0, li, ls), tx.scatter(0, ti, ts))
        same(lx.scatter_add(0, li, ls), tx.scatter_add(0, ti, ts))
        same(lx.scatter_reduce(0, li, ls, 'sum'), tx.scatter_reduce(0, ti, ts, 'sum'))
    tv, lv = pair((5,), seed=53)
    for shape in ((0,), (2, 0)):
        same(lv.gather(0, lt.zeros(shape, dtype=lt.uint8)), tv.gather(0, torch.zeros(shape, dtype=torch.uint8)))
    same(lx.scatter(0, lt.zeros((0, 5), dtype=lt.uint8), ls), tx.scatter(0, torch.zeros((0, 5), dtype=torch.uint8), ts))
    for m, x, s in ((torch, tx, ts), (lt, lx, ls)):
        with pytest.raises(RuntimeError, match='Expected dtype int32/int64 for index'): x.scatter(0, m.zeros((2, 5), dtype=m.int16), s)
        with pytest.raises(RuntimeError, match='Expected dtype int32/int64 for index'): x.gather(0, m.zeros((2, 5), dtype=m.int16))


@pytest.mark.parametrize('reduce', ['amax', 'amin'])
def test_scatter_and_index_reduce_extremes(reduce, include_self=False):
    "With include_self=False each reached element starts from ∓inf: NumPy's iinfo was asked for bfloat16's."
    (tx, lx), (ts, ls), (tsrc, lsrc) = pair((10, 5), seed=60), pair((5, 5), seed=61), pair((5, 10, 5), seed=62)
    ii = np.random.default_rng(63).integers(0, 10, (5, 5))
    ti, li = torch.tensor(ii), lt.tensor(ii)
    same(lx.scatter_reduce(0, li, ls, reduce, include_self=include_self), tx.scatter_reduce(0, ti, ts, reduce, include_self=include_self))
    idx = np.random.default_rng(64).integers(0, 5, 10)
    (t3, l3) = pair((5, 5, 5), seed=65)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        theirs = t3.index_reduce(1, torch.tensor(idx), tsrc, reduce, include_self=include_self)
        ours = l3.index_reduce(1, lt.tensor(idx), lsrc, reduce, include_self=include_self)
    same(ours, theirs)
