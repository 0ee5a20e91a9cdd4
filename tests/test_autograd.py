"The autograd engine against real PyTorch: graphs, accumulation, retain_graph, hooks, grad, modes, Functions."
import gc, threading, weakref
import numpy as np
import pytest
import torch
import lit_torch as lt
from op_helpers import check_same_error

def pair(a, requires_grad=True):
    return torch.tensor(a, requires_grad=requires_grad), lt.tensor(a, requires_grad=requires_grad)

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4)).astype(np.float32)
B = RNG.standard_normal((4,)).astype(np.float32)

def close(l, t): np.testing.assert_allclose(l.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-5)

def test_diamond_graph_runs_each_node_once_and_sums():
    (ta, la), (tb, lb) = pair(A), pair(B)
    for m, a, b in [(torch, ta, tb), (lt, la, lb)]:
        h = a * b
        calls = []
        h.register_hook(lambda g, calls=calls: calls.append(1))
        y = (h * 2 + h * h).sum()
        y.backward()
        assert len(calls) == 1  # the shared node's gradient arrives once, summed
    close(la.grad, ta.grad); close(lb.grad, tb.grad)

def test_leaves_accumulate_across_backward_calls():
    (ta, la), (tb, lb) = pair(A), pair(B)
    for a, b in [(ta, tb), (la, lb)]:
        (a * b).sum().backward()
        (a * b * 3).sum().backward()
    close(la.grad, ta.grad); close(lb.grad, tb.grad)

class _Twice(lt.autograd.Function):
    made = []  # ids of the gradient arrays backward returned
    @staticmethod
    def forward(ctx, x): return x._data * 2
    @staticmethod
    def backward(ctx, g):
        a = g._data * 2
        _Twice.made.append(id(a))
        return lt.from_numpy(a)

def test_fresh_gradient_is_taken_without_a_copy_unless_a_hook_keeps_it():
    x = lt.tensor(A, requires_grad=True)
    _Twice.apply(x).sum().backward()
    assert id(x.grad._data) == _Twice.made[-1]  # nobody else holds it: .grad takes the array
    kept = []
    x.grad = None
    x.register_hook(kept.append)
    _Twice.apply(x).sum().backward()
    assert id(x.grad._data) != _Twice.made[-1]  # the hook kept the tensor: .grad is a copy
    _Twice.apply(x).sum().backward()
    np.testing.assert_array_equal(kept[0].numpy(), np.full_like(A, 2))  # accumulating left the kept one alone

def test_grad_is_not_shared_between_leaves():
    la, lb = lt.tensor(A, requires_grad=True), lt.tensor(A, requires_grad=True)
    (la + lb).sum().backward()
    assert not np.shares_memory(la.grad.numpy(), lb.grad.numpy())

def test_second_backward_through_freed_graph_raises():
    def f(m):
        x = m.tensor(A, requires_grad=True)
        y = (x * x).sum()
        y.backward()
        y.backward()
    err = check_same_error(f)
    assert 'second time' in str(err)

def test_retain_graph_allows_second_backward():
    ta, la = pair(A)
    for a in (ta, la):
        y = (a * a).sum()
        y.backward(retain_graph=True); y.backward()
    close(la.grad, ta.grad)

@pytest.mark.parametrize('case', ['nonscalar', 'no_grad_tensor', 'int_requires_grad', 'wrong_gradient_shape'])
def test_backward_errors(case):
    f = {'nonscalar': lambda m: (m.tensor(A, requires_grad=True) * 2).backward(),
         'no_grad_tensor': lambda m: (m.tensor(A) * 2).sum().backward(),
         'int_requires_grad': lambda m: m.tensor([1, 2], requires_grad=True),
         'wrong_gradient_shape': lambda m: (m.tensor(A, requires_grad=True) * 2).backward(m.ones(2))}[case]
    check_same_error(f)

def test_gradient_argument_for_nonscalar():
    ta, la = pair(A)
    g = RNG.standard_normal(A.shape).astype(np.float32)
    (ta * ta).backward(torch.tensor(g)); (la * la).backward(lt.tensor(g))
    close(la.grad, ta.grad)

def test_version_counter_error():
    def f(m):
        x = m.tensor(A, requires_grad=True)
        h = x * 2
        y = (h * h).sum()
        h.mul_(2) if hasattr(h, 'mul_') else h._version.__setitem__(0, h._version[0] + 1)
        y.backward()
    err = check_same_error(f)
    assert 'inplace' in str(err)

def test_hooks_and_retain_grad_match_torch():
    results = {}
    for m in (torch, lt):
        x = m.tensor(A, requires_grad=True)
        h = x * 3
        h.retain_grad()
        seen = []
        h.register_hook(lambda g: seen.append(('h', g.sum().item())))
        x.register_hook(lambda g: seen.append(('x', g.sum().item())))
        handle = x.register_hook(lambda g: g * 10)
        (h * h).sum().backward()
        results[m.__name__] = (seen, h.grad.numpy().copy(), x.grad.numpy().copy())
        handle.remove()
    (s1, h1, x1), (s2, h2, x2) = results['torch'], results['lit_torch']
    assert [k for k, _ in s1] == [k for k, _ in s2]
    np.testing.assert_allclose([v for _, v in s2], [v for _, v in s1], rtol=1e-5)
    np.testing.assert_allclose(h2, h1, rtol=1e-5); np.testing.assert_allclose(x2, x1, rtol=1e-5)

def test_hook_on_tensor_without_grad_raises():
    check_same_error(lambda m: m.tensor(A).register_hook(lambda g: g))

def test_autograd_grad_and_second_derivatives():
    (ta, la), (tb, lb) = pair(A), pair(B)
    out = {}
    for m, a, b in [(torch, ta, tb), (lt, la, lb)]:
        y = (a * a * b + a).sum()
        ga, gb = m.autograd.grad(y, (a, b), create_graph=True)
        gga, = m.autograd.grad((ga * ga).sum(), a, retain_graph=True)
        out[m.__name__] = (ga, gb, gga, a.grad)
    for l, t in zip(out['lit_torch'][:3], out['torch'][:3]): close(l, t)
    assert out['lit_torch'][3] is None and out['torch'][3] is None  # grad() accumulates nothing

def test_grad_allow_unused():
    def f(m):
        x, z = m.tensor(A, requires_grad=True), m.tensor(A, requires_grad=True)
        return m.autograd.grad((x * 2).sum(), (x, z))
    check_same_error(f)
    x, z = lt.tensor(A, requires_grad=True), lt.tensor(A, requires_grad=True)
    gx, gz = lt.autograd.grad((x * 2).sum(), (x, z), allow_unused=True)
    assert gz is None and np.allclose(gx.numpy(), 2)

def test_backward_inputs_argument():
    (ta, la), (tb, lb) = pair(A), pair(B)
    (ta * tb).sum().backward(inputs=[ta]); (la * lb).sum().backward(inputs=[la])
    close(la.grad, ta.grad)
    assert tb.grad is None and lb.grad is None

def test_grad_modes():
    x = lt.tensor(A, requires_grad=True)
    with lt.no_grad(): assert (x * 2).grad_fn is None and not (x * 2).requires_grad
    @lt.no_grad()
    def f(): return x * 2
    @lt.enable_grad
    def g(): return x * 2
    assert f().grad_fn is None
    with lt.no_grad(): assert g().grad_fn is not None
    with lt.set_grad_enabled(False): assert not lt.is_grad_enabled()
    assert lt.is_grad_enabled()
    with lt.inference_mode(): assert (x * 2).grad_fn is None
    with lt.inference_mode(False): assert (x * 2).grad_fn is not None

def test_grad_mode_is_per_thread():
    seen = []
    with lt.no_grad():
        t = threading.Thread(target=lambda: seen.append(lt.is_grad_enabled())); t.start(); t.join()
    assert seen == [True]

def test_graph_has_no_reference_cycles():
    gc.collect(); gc.disable()
    try:
        x = lt.tensor(A, requires_grad=True)
        y = (x * x).sum()
        node = weakref.ref(y.grad_fn)
        y.backward()
        del y
        assert node() is None  # freed by reference counting alone, with the collector off
    finally: gc.enable()

def test_next_functions_and_names_like_torch():
    (ta, la), (tb, lb) = pair(A), pair(B)
    for yt, yl in [((ta * tb).sum(), (la * lb).sum()), (ta + tb, la + lb), (-ta, -la)]:
        assert type(yl.grad_fn).__name__ == type(yt.grad_fn).__name__
        assert [type(n).__name__ if n else None for n, _ in yl.grad_fn.next_functions] == \
               [type(n).__name__ if n else None for n, _ in yt.grad_fn.next_functions]
    assert la.is_leaf and not (la * 2).is_leaf

class TorchSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x); ctx.k = k
        return x * x * k
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 2 * x * ctx.k, None

class LitSquare(lt.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x); ctx.k = k
        return x * x * k
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 2 * x * ctx.k, None

def test_custom_function_matches_torch():
    ta, la = pair(A)
    yt, yl = TorchSquare.apply(ta, 3.0), LitSquare.apply(la, 3.0)
    close(yl, yt)
    assert type(yl.grad_fn).__name__ == 'LitSquareBackward' and yl.grad_fn.needs_input_grad == (True, False)
    yt.sum().backward(); yl.sum().backward()
    close(la.grad, ta.grad)
    assert lt.autograd.gradcheck(lambda x: LitSquare.apply(x, 3.0), lt.tensor(A.astype(np.float64), requires_grad=True))

def test_wrong_number_of_gradients_raises():
    class Bad(lt.autograd.Function):
        @staticmethod
        def forward(ctx, x, y): return x._data + y._data
        @staticmethod
        def backward(ctx, g): return (g,)
    x = lt.tensor(A, requires_grad=True)
    with pytest.raises(RuntimeError, match='incorrect number of gradients'): Bad.apply(x, x).sum().backward()

@pytest.mark.parametrize('fn', [lambda m, a, b: a * b + a, lambda m, a, b: (a * b).sum(0), lambda m, a, b: -(a + b * 2),
                                lambda m, a, b: (a * a).sum(1, keepdim=True) * b, lambda m, a, b: a.reshape(4, 3).sum(0) * 2])
def test_gradcheck_and_gradgradcheck_first_ops(fn):
    a = lt.tensor(A.astype(np.float64), requires_grad=True)
    b = lt.tensor(B.astype(np.float64), requires_grad=True)
    f = lambda a, b: fn(lt, a, b)
    assert lt.autograd.gradcheck(f, (a, b)) and lt.autograd.gradgradcheck(f, (a, b))

def test_gradcheck_catches_a_wrong_backward():
    class Wrong(lt.autograd.Function):
        @staticmethod
        def forward(ctx, x): ctx.save_for_backward(x); return x._data * x._data
        @staticmethod
        def backward(ctx, g): x, = ctx.saved_tensors; return g * x  # should be 2x
    x = lt.tensor(B.astype(np.float64), requires_grad=True)
    from lit_torch.autograd.gradcheck import GradcheckError
    with pytest.raises(GradcheckError): lt.autograd.gradcheck(Wrong.apply, (x,))

def test_gradient_is_cast_to_the_input_dtype():
    for m in (torch, lt):
        a = m.ones(2, requires_grad=True)
        (a * m.ones(2, dtype=m.float64)).sum().backward()
        assert repr(a.grad.dtype) == 'torch.float32'
        b = m.ones(2, requires_grad=True)
        b.sum(dtype=m.float64).backward()
        assert repr(b.grad.dtype) == 'torch.float32'

def test_mul_saves_only_what_backward_needs():
    for m in (torch, lt):
        x = m.ones(2, 3, requires_grad=True)
        y = x * 1
        y[0] = y[0] * 3  # changes y in place; mul by a number never needs y saved
        y.sum().backward()
        assert x.grad.tolist() == [[3., 3., 3.], [1., 1., 1.]]

def test_negating_a_bool_tensor_is_an_error():
    check_same_error(lambda m: -m.tensor([True, False]))

def test_full_reduction_holds_an_array():
    assert isinstance(lt.ones(2, 3).sum().numpy(), np.ndarray)

def test_leaf_grads_never_alias_other_tensors():
    class PassSaved(lt.autograd.Function):
        @staticmethod
        def forward(ctx, x): ctx.save_for_backward(x); return x._data * 2
        @staticmethod
        def backward(ctx, g): return ctx.saved_tensors[0]  # hands back a tensor that is also the input
    x = lt.tensor(A, requires_grad=True)
    PassSaved.apply(x).sum().backward()
    assert not np.shares_memory(x.grad.numpy(), x.detach().numpy())
    a, b = lt.tensor(A, requires_grad=True), lt.tensor(A, requires_grad=True)
    root = lt.ones(3, 4)
    (a + b).backward(root)
    assert not np.shares_memory(a.grad.numpy(), b.grad.numpy()) and not np.shares_memory(a.grad.numpy(), root.numpy())

def test_post_accumulate_grad_hooks_and_engine_callbacks_like_torch():
    logs = {}
    for m in (torch, lt):
        log = []
        x = m.tensor(A, requires_grad=True)
        x.register_post_accumulate_grad_hook(lambda t: log.append(('post', round(float(t.grad.sum()), 4))))
        def pre(g, m=m):
            m.autograd.Variable._execution_engine.queue_callback(lambda: log.append('callback'))
            log.append('pre')
        x.register_hook(pre)
        (x * 2).sum().backward()
        logs[m.__name__] = log
    assert logs['lit_torch'] == logs['torch']
    check_same_error(lambda m: (m.tensor(A, requires_grad=True) * 2).register_post_accumulate_grad_hook(lambda t: None))


# In-place changes through views: the base's history must see them (PyTorch's CopySlices), and other views of a base
# changed in place are re-read from it. Each case runs on torch and lit_torch; outputs and input gradients are compared.
def _through_column(m, x, y):
    h = x * 2
    h[:, 0].mul_(3)
    return h * h

def _chain_of_views(m, x, y):
    h = x * 2
    v = h.t()[1:]
    v[:, 1:].unsqueeze(0).mul_(y[:2].reshape(1, 2, 1))
    v.add_(1)  # v was made before the change above: it must be re-read
    return h.sin() * h

def _base_changed_then_view_used(m, x, y):
    h = x * 2
    v = h[0]
    h.mul_(x)
    return v * v

def _base_without_grad(m, x, y):
    b = m.zeros(2, 3, dtype=x.dtype)
    b[1].add_(x[0] * y[:3])
    return b * b

def _reshape_view_and_setitem(m, x, y):
    h = x + 0
    r = h.reshape(-1)
    r[2:4].mul_(2)
    h.unsqueeze(0).permute(0, 2, 1)[0, 1] = y[:2] * 4
    return h ** 2

def _copy_clamp_masked_fill(m, x, y):
    h = x * 1.5
    h[0].copy_(y[:3] * 5)
    h[1, 1:].clamp_(-0.5, 0.5)
    h[:, 2].masked_fill_(h[:, 0] > 0, 7.0)
    return h.exp()

def _reshape_that_copies(m, x, y):
    h = x * 2
    w = h.t()[1:].reshape(-1)  # not contiguous: reshape copies, so h is not touched
    w.add_(y[:4])
    return h.sin() * w.sum()

VIEW_CASES = [_through_column, _chain_of_views, _base_changed_then_view_used, _base_without_grad,
              _reshape_view_and_setitem, _copy_clamp_masked_fill, _reshape_that_copies]

@pytest.mark.parametrize('fn', VIEW_CASES, ids=lambda f: f.__name__.strip('_'))
def test_inplace_through_views_like_torch(fn):
    from op_helpers import check_op
    check_op(fn, [(2, 3), (6,)])

@pytest.mark.parametrize('fn', VIEW_CASES[:5], ids=lambda f: f.__name__.strip('_'))
def test_inplace_through_views_gradcheck(fn):
    from op_helpers import check_gradcheck
    check_gradcheck(fn, [(2, 3), (6,)], gradgrad=True)

def test_view_records_its_base_like_torch():
    for m in (torch, lt):
        x = m.randn(2, 3, requires_grad=True)
        h = x * 2
        v = h[0]
        assert v._base is h and h._base is None and v.t()._base is h
        v.mul_(2)
        assert h.grad_fn.name().endswith('CopySlices') and type(v.grad_fn).__name__ == 'AsStridedBackward0'


def test_gradients_taken_without_a_copy_alias_nothing():
    """The engine hands a fresh gradient's array to `.grad` without copying it (nbs/02e_engine, `_fresh`): on random small graphs
    of adds, products, views, sums and expands, no leaf's `.grad` shares memory with another's, a kept intermediate, a leaf or
    the caller's gradient; and a second backward (accumulating in place) changes none of the kept intermediates."""
    import random
    rng = random.Random(0)
    ops = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a.reshape(-1), lambda a, b: a.sum(0, keepdim=True),
           lambda a, b: a.expand(2, *a.shape), lambda a, b: a.clone(), lambda a, b: -a]
    for trial in range(400):
        leaves = [lt.randn(*rng.choice([(3, 4), (4,), (2, 3, 4)]), requires_grad=True) for _ in range(3)]
        xs, kept = list(leaves), []
        for _ in range(rng.randint(1, 6)):
            try: y = rng.choice(ops)(rng.choice(xs), rng.choice(xs))
            except RuntimeError: continue  # shapes that do not broadcast
            xs.append(y)
            if rng.random() < 0.3: kept.append(y)
        out = sum(x.sum() for x in xs[3:]) if len(xs) > 3 else leaves[0].sum()
        g = lt.tensor(2.0)
        out.backward(g, retain_graph=True)
        grads = [l.grad for l in leaves if l.grad is not None]
        for gr in grads:
            for o in grads + kept + leaves + [g]:
                assert o is gr or not np.shares_memory(gr._data, o._data), f'trial {trial}: a .grad shares memory'
        before = [k._data.copy() for k in kept]
        out.backward()
        for k, b in zip(kept, before): np.testing.assert_array_equal(k._data, b, err_msg=f'trial {trial}')


def test_node_post_hooks_and_retain_grad_see_tensors_like_torch():
    "The engine carries arrays between nodes (nbs/02e_engine): a node's hook, a tensor hook and retain_grad still get tensors."
    logs = {}
    for m in (torch, lt):
        x, w = m.tensor(A, requires_grad=True), m.tensor(A)
        h = x * w
        h.retain_grad()
        log = []
        h.grad_fn.register_hook(lambda gi, go: log.append((type(gi).__name__, [None if g is None else round(float(g.sum()), 4) for g in gi],
                                                           [round(float(g.sum()), 4) for g in go])))
        h.register_hook(lambda g, m=m: log.append(isinstance(g, m.Tensor)))
        (h * 3).sum().backward()
        logs[m.__name__] = log + [round(float(h.grad.sum()), 4), round(float(x.grad.sum()), 4)]
    assert logs['lit_torch'] == logs['torch']
