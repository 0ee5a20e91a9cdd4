"torch.linalg and the top-level linear-algebra ops against PyTorch: values and float64 gradients on seeded, well-conditioned inputs."
import numpy as np
import pytest
import torch
import lit_torch as lt

RNG = np.random.default_rng(0)

def arr(*shape): return RNG.standard_normal(shape)
def spd(*shape):
    a = arr(*shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
def sym(*shape):
    a = arr(*shape)
    return (a + np.swapaxes(a, -1, -2)) / 2

def _out(x, lib):
    "The tensors of a result (a tensor or a tuple of them), as a flat list."
    if isinstance(x, (tuple, list)): return [t for o in x for t in _out(o, lib)]
    return [x] if isinstance(x, lib.Tensor) else []

def check(fn, *arrays, grad=True, loss=None, atol=1e-7, dtype='float64', seed=1):
    "Run fn on torch and lit_torch from the same arrays; compare every output and, for float64, the gradients of a random loss."
    t_in = [torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=grad) for a in arrays]
    l_in = [lt.tensor(a, dtype=getattr(lt, dtype), requires_grad=grad) for a in arrays]
    t_out, l_out = _out(fn(torch, *t_in), torch), _out(fn(lt, *l_in), lt)
    assert len(t_out) == len(l_out)
    for t, l in zip(t_out, l_out):
        assert tuple(t.shape) == tuple(l.shape), (t.shape, l.shape)
        assert str(t.dtype).split('.')[-1] == str(l.dtype).split('.')[-1]
        np.testing.assert_allclose(l.detach().numpy(), t.detach().numpy(), atol=atol, rtol=1e-5 if dtype == 'float32' else 1e-7)
    if not grad: return
    rng = np.random.default_rng(seed)
    pairs = [(t, l) for t, l in zip(t_out, l_out) if t.requires_grad and t.dtype.is_floating_point]
    ws = [rng.standard_normal(tuple(t.shape)) for t, _ in pairs]
    f_t = loss(torch, [t for t, _ in pairs]) if loss else sum((t * torch.tensor(w)).sum() for (t, _), w in zip(pairs, ws))
    f_l = loss(lt, [l for _, l in pairs]) if loss else sum((l * lt.tensor(w)).sum() for (_, l), w in zip(pairs, ws))
    gt = torch.autograd.grad(f_t, t_in, allow_unused=True)
    gl = lt.autograd.grad(f_l, l_in, allow_unused=True)
    for a, b in zip(gt, gl):
        if a is None: assert b is None or not np.any(b.numpy()); continue
        np.testing.assert_allclose(b.numpy(), a.numpy(), atol=1e-6, rtol=1e-6)

def gradchecks(fn, *arrays):
    ins = [lt.tensor(a, dtype=lt.float64, requires_grad=True) for a in arrays]
    assert lt.autograd.gradcheck(fn, ins) and lt.autograd.gradgradcheck(fn, ins)

B = (2, 3)  # a batch shape

def test_inv_det_slogdet():
    a = arr(*B, 4, 4)
    check(lambda m, A: m.linalg.inv(A), a)
    check(lambda m, A: m.linalg.det(A), a)
    check(lambda m, A: m.linalg.slogdet(A), a)
    check(lambda m, A: m.logdet(A @ A.mT), a)
    check(lambda m, A: m.linalg.inv_ex(A), a)
    check(lambda m, A: m.inverse(A), a, dtype='float32', grad=False, atol=1e-4)
    gradchecks(lambda A: lt.linalg.det(A), arr(3, 3))

def test_solve():
    a, b, v = arr(*B, 4, 4), arr(*B, 4, 2), arr(4)
    check(lambda m, A, X: m.linalg.solve(A, X), a, b)
    check(lambda m, A, X: m.linalg.solve(A, X), a, v)
    check(lambda m, A, X: m.linalg.solve(A, X, left=False), a, arr(*B, 2, 4))
    check(lambda m, A, X: m.linalg.solve(A, X), a[0, 0], arr(3, 4, 2))  # B's batch broadcasts over A
    check(lambda m, A, X: m.linalg.solve_ex(A, X), a, b)

def test_solve_triangular():
    a, b = arr(*B, 4, 4) + 3 * np.eye(4), arr(*B, 4, 2)
    for upper in (True, False):
        for unit in (True, False):
            check(lambda m, A, X: m.linalg.solve_triangular(A, X, upper=upper, unitriangular=unit), a, b)
            check(lambda m, A, X: m.linalg.solve_triangular(A, X, upper=upper, left=False, unitriangular=unit), a, np.swapaxes(b, -1, -2))
    check(lambda m, X, A: m.triangular_solve(X, A, upper=False, transpose=True), b, a)

def test_cholesky():
    a = spd(*B, 4, 4)
    check(lambda m, A: m.linalg.cholesky(A), a)
    check(lambda m, A: m.linalg.cholesky(A, upper=True), a)
    check(lambda m, A: m.linalg.cholesky_ex(A), a)
    L = np.linalg.cholesky(a)
    check(lambda m, X, L: m.cholesky_solve(X, L), arr(*B, 4, 2), L)
    check(lambda m, L: m.cholesky_inverse(L), L[0, 0])

@pytest.mark.parametrize('shape', [(5, 3), (3, 3), (3, 5)])
def test_qr(shape):
    a = arr(*B, *shape)
    check(lambda m, A: m.linalg.qr(A), a)
    check(lambda m, A: m.linalg.qr(A, mode='r').R, a, grad=False)
    check(lambda m, A: m.qr(A), a)
    if shape[0] <= shape[1]: check(lambda m, A: m.linalg.qr(A, mode='complete'), a)

def _sign_free(m, outs):
    "A loss of the SVD/eigh factors that does not depend on each vector's sign."
    return sum((o.abs() ** 1.5).sum() if o.ndim else o for o in outs)

@pytest.mark.parametrize('shape', [(5, 3), (3, 3), (3, 5)])
def test_svd(shape):
    a = arr(*B, *shape)
    check(lambda m, A: [x.abs() for x in m.linalg.svd(A, full_matrices=False)], a)
    check(lambda m, A: m.linalg.svdvals(A), a)
    check(lambda m, A: [x.abs() for x in m.svd(A)], a)
    check(lambda m, A: m.linalg.svd(A).S, a)
    check(lambda m, A: m.linalg.svd(A).U.abs() if A.shape[-2] <= A.shape[-1] else m.linalg.svd(A).Vh.abs(), a, grad=False)  # the unique factor

def test_eigh():
    a = sym(*B, 4, 4)
    check(lambda m, A: [x.abs() for x in m.linalg.eigh(A)], a)
    check(lambda m, A: [x.abs() for x in m.linalg.eigh(A, UPLO='U')], a)
    check(lambda m, A: m.linalg.eigvalsh(A), a)

def test_pinv_rank_lstsq():
    for shape in ((5, 3), (3, 5), (4, 4)):
        a = arr(*B, *shape)
        check(lambda m, A: m.linalg.pinv(A), a)
        check(lambda m, A: m.pinverse(A), a)
        check(lambda m, A: m.linalg.matrix_rank(A), a, grad=False)
    check(lambda m, A: m.linalg.pinv(A, hermitian=True), sym(*B, 4, 4))
    low = arr(4, 2) @ arr(2, 5)
    check(lambda m, A: m.linalg.matrix_rank(A), low, grad=False)
    check(lambda m, A: m.linalg.matrix_rank(A, atol=1.0, rtol=0.), low, grad=False)
    check(lambda m, A: m.linalg.pinv(A), low, grad=False)
    for shape in ((5, 3), (3, 3), (3, 5)):
        for driver in (None, 'gelsd', 'gelss', 'gels') if shape[0] >= shape[1] else (None, 'gelsd'):
            check(lambda m, A, X: m.linalg.lstsq(A, X, driver=driver), arr(*B, *shape), arr(*B, shape[0], 2))
    check(lambda m, A, X: m.linalg.lstsq(A, X), arr(5, 3), arr(5))

def test_norms():
    a = arr(*B, 4, 5)
    for ord in ('fro', 'nuc', 2, -2, 1, -1, np.inf, -np.inf):
        check(lambda m, A: m.linalg.matrix_norm(A, ord), a)
        check(lambda m, A: m.linalg.matrix_norm(A, ord, dim=(0, 2), keepdim=True), a)
    for ord in (2, 1, 3.5, np.inf, -np.inf, 0.5):
        check(lambda m, A: m.linalg.vector_norm(A, ord, dim=(1, 2)), a)
        check(lambda m, A: m.linalg.norm(A[0, 0, 0], ord), a)
    check(lambda m, A: m.linalg.norm(A), a)
    check(lambda m, A: m.linalg.norm(A[0, 0], 'nuc'), a)
    check(lambda m, A: m.linalg.norm(A, dim=(1, 2)), a)
    check(lambda m, A: m.norm(A), a)
    check(lambda m, A: m.norm(A, p=1, dim=1), a)
    check(lambda m, A: m.norm(A[0, 0], p='nuc'), a)
    check(lambda m, A: A.norm(dim=-1, keepdim=True), a)
    check(lambda m, A: m.linalg.cond(A), arr(*B, 4, 4))
    check(lambda m, A: m.linalg.cond(A, 'fro'), arr(*B, 4, 4), grad=False)  # (torch's backward fails here: its inverse is modified in place)

def test_matrix_functions():
    a = arr(*B, 4, 4)
    for n in (0, 1, 2, 5, -3):
        check(lambda m, A: m.linalg.matrix_power(A, n), a)
    check(lambda m, A: m.linalg.matrix_exp(A), a)
    check(lambda m, A: m.matrix_exp(A), 5 * a, atol=1e-6)
    check(lambda m, A: m.linalg.matrix_exp(A), a, dtype='float32', grad=False, atol=1e-4)
    gradchecks(lambda A: lt.linalg.matrix_exp(A), arr(2, 3, 3))

def test_products():
    check(lambda m, x, y: m.linalg.cross(x, y), arr(1, 4, 3), arr(2, 1, 3))
    _raises(lambda m, x, y: m.linalg.cross(x, y), arr(4, 3), arr(2, 1, 3), match='same number of dimensions')
    check(lambda m, x, y: m.linalg.cross(x, y, dim=0), arr(3, 4), arr(3, 4))
    check(lambda m, x, y: m.linalg.vecdot(x, y), arr(4, 5), arr(5))
    check(lambda m, a, b, c, d: m.linalg.multi_dot([a, b, c, d]), arr(3), arr(3, 4), arr(4, 2), arr(2))
    check(lambda m, a, b, c: m.linalg.multi_dot([a, b, c]), arr(2, 3), arr(3, 4), arr(4, 2))
    check(lambda m, A: m.linalg.diagonal(A, offset=1), arr(*B, 4, 4))
    check(lambda m, A, x: m.linalg.matmul(A, x), arr(2, 3), arr(3))

def test_lu():
    for shape in ((4, 4), (5, 3), (3, 5)):
        a = arr(*B, *shape)
        sq = shape[0] == shape[1]
        check(lambda m, A: m.linalg.lu_factor(A), a, grad=sq)
        check(lambda m, A: m.linalg.lu(A), a, grad=sq)
        check(lambda m, A: m.linalg.lu_factor_ex(A), a, grad=sq)
        LU, piv = torch.linalg.lu_factor(torch.tensor(a))
        check(lambda m, LU: m.lu_unpack(LU, m.tensor(piv.numpy())), LU.numpy(), grad=sq)
        check(lambda m, A: m.lu(A), a, grad=False)
    a = arr(*B, 4, 4)
    LU, piv = (x.numpy() for x in torch.linalg.lu_factor(torch.tensor(a)))
    for left in (True, False):
        for adjoint in (True, False):
            rhs = arr(*B, 4, 2) if left else arr(*B, 2, 4)
            check(lambda m, LU, X: m.linalg.lu_solve(LU, m.tensor(piv), X, left=left, adjoint=adjoint), LU, rhs)
    check(lambda m, X, LU: m.lu_solve(X, LU, m.tensor(piv)), arr(*B, 4, 2), LU)

def test_rest():
    check(lambda m, A, tau: m.linalg.householder_product(A, tau), arr(*B, 5, 3), arr(*B, 2))
    check(lambda m, A, tau: m.orgqr(A, tau), arr(4, 4), arr(3))  # (torch's backward fails when tau has all n reflectors)
    check(lambda m, x: m.linalg.vander(x), arr(*B, 4))
    check(lambda m, x: m.linalg.vander(x, N=6), arr(4))
    check(lambda m, x: m.vander(x, 3, increasing=True), arr(4), grad=False)  # (torch's backward of increasing=True fails)
    check(lambda m, x: m.vander(x), arr(4), grad=False)  # (torch's backward fails)
    check(lambda m, A: m.linalg.tensorinv(A, ind=1), arr(6, 2, 3))
    check(lambda m, A, X: m.linalg.tensorsolve(A, X), arr(2, 3, 6), arr(2, 3))
    check(lambda m, A, X: m.linalg.tensorsolve(A, X, dims=(0,)), arr(6, 2, 3), arr(2, 3))

def _raises(fn, *arrays, match=None):
    with pytest.raises(Exception) as te: fn(torch, *[torch.tensor(a) for a in arrays])
    with pytest.raises(Exception) as le: fn(lt, *[lt.tensor(a) for a in arrays])
    builtin = lambda e: next(c for c in type(e).__mro__ if c.__module__ == 'builtins')
    assert builtin(le.value) is builtin(te.value), (te.value, le.value)
    if match: assert match in str(le.value) and match in str(te.value), (str(te.value), str(le.value))
    return te.value, le.value

def test_errors():
    sing = np.array([[[1., 0.], [0., 1.]], [[1., 2.], [2., 4.]]])
    t, l = _raises(lambda m, A: m.linalg.inv(A), sing, match='(Batch element 1): The diagonal element 2 is zero')
    assert isinstance(t, torch.linalg.LinAlgError) and isinstance(l, lt.linalg.LinAlgError)
    _raises(lambda m, A: m.linalg.solve(A, A), sing, match='singular')
    _raises(lambda m, A: m.linalg.cholesky(A), np.array([[1., 2.], [2., 1.]]), match='the leading minor of order 2 is not positive-definite')
    _raises(lambda m, A: m.linalg.inv(A), np.array([[1, 2], [3, 4]]), match='Expected a floating point or complex tensor as input. Got Long')
    _raises(lambda m, A: m.linalg.det(A), arr(2, 3), match='A must be batches of square matrices, but they are 2 by 3 matrices')
    _raises(lambda m, A: m.linalg.inv(A), arr(3), match='The input tensor A must have at least 2 dimensions.')
    _raises(lambda m, A: m.linalg.qr(A, mode='x'), arr(3, 3), match="unrecognized mode 'x'")
    _raises(lambda m, A: m.linalg.eigh(A, UPLO='X'), arr(3, 3))
    _raises(lambda m, A: m.linalg.multi_dot([A]), arr(3, 3), match='expected at least 2 tensors but got 1')
    _raises(lambda m, A: m.linalg.solve(A, A[:2]), arr(3, 3))
    _raises(lambda m, A: m.linalg.matrix_norm(A, 3), arr(3, 3))
    _raises(lambda m, A: m.linalg.norm(A, 2), arr(2, 3, 3), match='If dim is not specified but ord is, the input must be 1D or 2D')
    _raises(lambda m, A: m.linalg.tensorinv(A), arr(2, 3, 4))
    _raises(lambda m, A: m.linalg.lstsq(A, A, driver='x'), arr(3, 3))
    t, l = _raises(lambda m, A: m.linalg.qr(A.requires_grad_(), mode='r').R.sum().backward(), arr(3, 3))

def test_infos():
    sing = np.array([[[1., 0.], [0., 1.]], [[1., 2.], [2., 4.]]])
    for name in ('inv_ex', 'cholesky_ex', 'lu_factor_ex'):
        t = getattr(torch.linalg, name)(torch.tensor(sing)).info
        l = getattr(lt.linalg, name)(lt.tensor(sing)).info
        assert t.tolist() == l.tolist() and str(l.dtype) == 'torch.int32', (name, t, l)
    assert lt.linalg.solve_ex(lt.tensor(sing), lt.tensor(sing)).info.tolist() == torch.linalg.solve_ex(torch.tensor(sing), torch.tensor(sing)).info.tolist()

def test_return_types_and_node_names():
    A = lt.tensor(spd(3, 3), requires_grad=True)
    tA = torch.tensor(spd(3, 3), requires_grad=True)
    for name in ('slogdet', 'qr', 'svd', 'eigh', 'inv_ex', 'cholesky_ex', 'lu_factor', 'lu_factor_ex', 'lu'):
        assert getattr(lt.linalg, name)(A)._fields == type(getattr(torch.linalg, name)(tA)).__match_args__, name
    for name in ('slogdet', 'qr', 'svd'): assert getattr(lt, name)(A)._fields == type(getattr(torch, name)(tA)).__match_args__, name
    assert repr(lt.linalg.qr(A)).startswith('torch.return_types.linalg_qr(')
    for f in (lambda m, A: m.linalg.inv(A), lambda m, A: m.linalg.det(A), lambda m, A: m.linalg.cholesky(A),
              lambda m, A: m.linalg.qr(A).Q, lambda m, A: m.linalg.svd(A).U, lambda m, A: m.linalg.eigh(A).eigenvalues,
              lambda m, A: m.linalg.matrix_exp(A), lambda m, A: m.linalg.solve(A, A), lambda m, A: m.linalg.slogdet(A).logabsdet,
              lambda m, A: m.linalg.solve_triangular(A, A, upper=True), lambda m, A: m.linalg.lu_factor(A).LU):
        assert f(lt, A).grad_fn.name() == f(torch, tA).grad_fn.name()

def test_double_backward():
    for f, a in ((lambda A: lt.linalg.inv(A), arr(3, 3)), (lambda A: lt.linalg.cholesky(A @ A.mT + 3 * lt.eye(3, dtype=lt.float64)), arr(3, 3)),
                 (lambda A: lt.linalg.qr(A).R, arr(4, 3)), (lambda A: lt.linalg.svdvals(A), arr(3, 4)),
                 (lambda A: lt.linalg.eigvalsh(A + A.mT), arr(3, 3)), (lambda A: lt.linalg.slogdet(A).logabsdet, arr(3, 3)),
                 (lambda A: lt.linalg.pinv(A), arr(4, 3)), (lambda A: lt.linalg.lu_factor(A).LU, arr(3, 3))):
        gradchecks(f, a)

# Every torch.linalg function that takes out=, on seeded arrays (S: a well-conditioned SPD matrix); `kw` carries out=.
OUT_CALLS = {
    'inv_ex': lambda m, A, S, **kw: m.linalg.inv_ex(S, **kw), 'inv': lambda m, A, S, **kw: m.linalg.inv(S, **kw),
    'det': lambda m, A, S, **kw: m.linalg.det(A, **kw), 'slogdet': lambda m, A, S, **kw: m.linalg.slogdet(A, **kw),
    'solve_ex': lambda m, A, S, **kw: m.linalg.solve_ex(S, A, **kw), 'solve': lambda m, A, S, **kw: m.linalg.solve(S, A, **kw),
    'solve_triangular': lambda m, A, S, **kw: m.linalg.solve_triangular(S.triu(), A, upper=True, **kw),
    'cholesky_ex': lambda m, A, S, **kw: m.linalg.cholesky_ex(S, **kw), 'cholesky': lambda m, A, S, **kw: m.linalg.cholesky(S, **kw),
    'qr': lambda m, A, S, **kw: m.linalg.qr(A, **kw), 'svd': lambda m, A, S, **kw: m.linalg.svd(S, **kw),
    'svdvals': lambda m, A, S, **kw: m.linalg.svdvals(A, **kw), 'eigh': lambda m, A, S, **kw: m.linalg.eigh(S, **kw),
    'eigvalsh': lambda m, A, S, **kw: m.linalg.eigvalsh(S, **kw), 'pinv': lambda m, A, S, **kw: m.linalg.pinv(A, **kw),
    'matrix_rank': lambda m, A, S, **kw: m.linalg.matrix_rank(A, **kw),
    'vector_norm': lambda m, A, S, **kw: m.linalg.vector_norm(A, 3, 1, **kw),
    'matrix_norm': lambda m, A, S, **kw: m.linalg.matrix_norm(A, 'nuc', **kw), 'norm': lambda m, A, S, **kw: m.linalg.norm(A, **kw),
    'cond': lambda m, A, S, **kw: m.linalg.cond(S, **kw), 'matrix_power': lambda m, A, S, **kw: m.linalg.matrix_power(A, 3, **kw),
    'matmul': lambda m, A, S, **kw: m.linalg.matmul(A, S, **kw), 'cross': lambda m, A, S, **kw: m.linalg.cross(A, S, **kw),
    'vecdot': lambda m, A, S, **kw: m.linalg.vecdot(A, S, **kw), 'multi_dot': lambda m, A, S, **kw: m.linalg.multi_dot([A, S, A], **kw),
    'lu_factor_ex': lambda m, A, S, **kw: m.linalg.lu_factor_ex(A, **kw), 'lu_factor': lambda m, A, S, **kw: m.linalg.lu_factor(A, **kw),
    'lu': lambda m, A, S, **kw: m.linalg.lu(A, **kw),
    'lu_solve': lambda m, A, S, **kw: m.linalg.lu_solve(*m.linalg.lu_factor(S), A, **kw),
    'householder_product': lambda m, A, S, **kw: m.linalg.householder_product(A, A[0], **kw),
    'tensorinv': lambda m, A, S, **kw: m.linalg.tensorinv(S.reshape(3, 1, 3), ind=2, **kw),
    'tensorsolve': lambda m, A, S, **kw: m.linalg.tensorsolve(S, A[0], **kw),
}

def test_out_covers_every_linalg_function():
    import inspect
    takes_out = {n for n in lt.linalg.__all__ if 'out' in inspect.signature(getattr(lt.linalg, n)).parameters}
    assert takes_out == set(OUT_CALLS)

def _with_out(m, name, wrong=False):
    "The plain result, the out= tensors (int64 where `wrong`), and what the out= call returned (or the type it raised)."
    rng = np.random.default_rng(1)
    a, s = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    s = s @ s.T + 3 * np.eye(3)
    plain = OUT_CALLS[name](m, m.tensor(a), m.tensor(s))
    many = isinstance(plain, tuple)
    outs = [m.empty(0, dtype=m.int64 if wrong and r.is_floating_point() else r.dtype) for r in (plain if many else [plain])]
    try: got = OUT_CALLS[name](m, m.tensor(a), m.tensor(s), out=tuple(outs) if many else outs[0])
    except Exception as e: got = type(e).__name__
    return list(plain) if many else [plain], outs, got

@pytest.mark.parametrize('name', list(OUT_CALLS))
def test_out(name):
    "out= is written and returned, as torch's is; an int64 out for a float result raises what torch raises."
    t_plain, t_outs, _ = _with_out(torch, name)
    l_plain, l_outs, got = _with_out(lt, name)
    for t, l, o in zip(t_plain, l_plain, l_outs):
        assert np.array_equal(o.numpy(), l.numpy()) and str(o.dtype) == str(t.dtype)
        np.testing.assert_allclose(o.numpy(), t.numpy(), atol=1e-7, rtol=1e-7)
    assert (got is l_outs[0]) if len(l_outs) == 1 else all(g is o for g, o in zip(got, l_outs))
    raised = lambda m: (lambda got: got if isinstance(got, str) else 'nothing')(_with_out(m, name, wrong=True)[2])
    assert raised(lt) == raised(torch)

@pytest.mark.parametrize('ord', [2, 1, 3, 0.5, float('inf'), -float('inf')])
def test_vector_norm_complex(ord):
    "A complex tensor's norm is its moduli's, real, with torch's complex gradient."
    rng = np.random.default_rng(2)
    z = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    g = rng.standard_normal(3)
    x, tx = lt.tensor(z, requires_grad=True), torch.tensor(z, requires_grad=True)
    y, ty = lt.linalg.vector_norm(x, ord, 1), torch.linalg.vector_norm(tx, ord, 1)
    y.backward(lt.tensor(g)); ty.backward(torch.tensor(g))
    assert str(y.dtype) == str(ty.dtype) == 'torch.float64'
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(lt.linalg.matrix_norm(lt.tensor(z)).item(), torch.linalg.matrix_norm(torch.tensor(z)).item(), rtol=1e-12)

def test_complex_matrices_are_refused_by_name():
    with pytest.raises(NotImplementedError, match='linalg.svd: .*real matrices only, got ComplexDouble'):
        lt.linalg.svd(lt.tensor(np.eye(2) + 1j))
