"""Attention against PyTorch: F.scaled_dot_product_attention, F.multi_head_attention_forward, nn.MultiheadAttention."""
import math, warnings
import numpy as np
import pytest
import torch
import lit_torch as lt
from lit_torch.nn import functional as A  # SDPA and its helpers live in nn/functional.py, as in torch
from op_helpers import check_op, check_gradcheck, check_same_error, make_inputs

def sdpa(lib, *a, **kw): return lib.nn.functional.scaled_dot_product_attention(*a, **kw)

def _bool(lib, a): return lib.tensor(a)

# ---------------------------------------------------------------- scaled_dot_product_attention
@pytest.mark.parametrize('shapes', [[(4, 8), (5, 8), (5, 6)], [(2, 4, 8), (2, 5, 8), (2, 5, 8)],
                                    [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 3)], [(2, 2, 3, 4, 8), (1, 3, 5, 8), (2, 1, 3, 5, 8)]])
def test_sdpa_shapes(shapes):
    check_op(lambda lib, q, k, v: sdpa(lib, q, k, v), shapes)

@pytest.mark.parametrize('mshape', [(4, 5), (1, 5), (3, 4, 5), (2, 1, 4, 5), (2, 3, 4, 5)])
def test_sdpa_bool_mask(mshape):
    m = np.random.default_rng(3).random(mshape) > 0.4
    m[..., 0] = True  # keep every row alive (fully masked rows are tested on their own)
    check_op(lambda lib, q, k, v: sdpa(lib, q, k, v, attn_mask=_bool(lib, m)), [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)])

@pytest.mark.parametrize('mshape', [(4, 5), (3, 1, 5), (2, 3, 4, 5)])
def test_sdpa_float_mask_with_grad(mshape):
    check_op(lambda lib, q, k, v, m: sdpa(lib, q, k, v, attn_mask=m), [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8), mshape])

def test_sdpa_causal_scale_and_lengths():
    for L, S in ((4, 4), (3, 6), (6, 3)):
        check_op(lambda lib, q, k, v: sdpa(lib, q, k, v, is_causal=True), [(2, 3, L, 8), (2, 3, S, 8), (2, 3, S, 8)])
    check_op(lambda lib, q, k, v: sdpa(lib, q, k, v, scale=0.3), [(2, 4, 8), (2, 5, 8), (2, 5, 8)])

def test_sdpa_gqa():
    check_op(lambda lib, q, k, v: sdpa(lib, q, k, v, enable_gqa=True), [(2, 6, 4, 8), (2, 2, 5, 8), (2, 2, 5, 8)])
    check_op(lambda lib, q, k, v: sdpa(lib, q, k, v, enable_gqa=True, is_causal=True), [(6, 4, 8), (3, 4, 8), (3, 4, 8)])
    q, k = make_inputs([(2, 6, 4, 8), (2, 4, 5, 8)], requires_grad=False)
    check_same_error(lambda lib: sdpa(lib, lib.tensor(q), lib.tensor(k), lib.tensor(k), enable_gqa=True))
    check_same_error(lambda lib: sdpa(lib, lib.tensor(q), lib.tensor(k), lib.tensor(k)))

def test_sdpa_fully_masked_rows_are_zero():
    m = np.ones((4, 5), bool); m[1] = False
    check_op(lambda lib, q, k, v: sdpa(lib, q, k, v, attn_mask=_bool(lib, m)), [(2, 4, 8), (2, 5, 8), (2, 5, 8)])
    mf = np.where(m, 0, -np.inf).astype(np.float32)
    check_op(lambda lib, q, k, v: sdpa(lib, q, k, v, attn_mask=lib.tensor(mf)), [(2, 4, 8), (2, 5, 8), (2, 5, 8)])

def test_sdpa_gradcheck():
    check_gradcheck(lambda lib, q, k, v, m: sdpa(lib, q, k, v, attn_mask=m), [(2, 3, 4), (2, 5, 4), (2, 5, 3), (3, 5)], gradgrad=True)
    check_gradcheck(lambda lib, q, k, v: sdpa(lib, q, k, v, is_causal=True, scale=0.7), [(2, 4, 4), (2, 4, 4), (2, 4, 3)])
    m = np.random.default_rng(0).random((3, 5)) > 0.3
    check_gradcheck(lambda lib, q, k, v: sdpa(lib, q, k, v, attn_mask=lib.tensor(m)), [(2, 3, 4), (2, 5, 4), (2, 5, 3)], gradgrad=True)
    check_gradcheck(lambda lib, q, k, v: sdpa(lib, q, k, v, enable_gqa=True), [(4, 3, 4), (2, 5, 4), (2, 5, 3)])

def test_sdpa_dropout_matches_composite_with_same_mask():
    q, k, v = (lt.tensor(a, requires_grad=True) for a in make_inputs([(4, 2, 16, 8), (4, 2, 16, 8), (4, 2, 16, 8)]))
    lt.manual_seed(5)
    out = sdpa(lt, q, k, v, dropout_p=0.3)
    gq, gk, gv = lt.autograd.grad(out.sum(), (q, k, v))
    lt.manual_seed(5)  # the same draw, made the same way the node makes it
    keep = A._keep_mask(lt.zeros(4, 2, 16, 16), 0.3)
    ref = A._attention_composite(q, k, v, None, lt.tensor(keep), False, 8 ** -0.5, True, False)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-5)
    for g, r in zip((gq, gk, gv), lt.autograd.grad(ref.sum(), (q, k, v))):
        np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=1e-4, atol=1e-5)
    frac = float((keep == 0).mean())
    assert abs(frac - 0.3) < 0.03, frac
    np.testing.assert_allclose(np.unique(keep), [0.0, 1 / 0.7], rtol=1e-6)
    lt.manual_seed(5)
    with lt.no_grad(): w = A.ScaledDotProductAttention.apply(q, k, v, None, 0.3, False, 8 ** -0.5, False, True)[1]
    assert abs(float((w.numpy() == 0).mean()) - 0.3) < 0.03

def test_sdpa_errors():
    q, k, v = make_inputs([(2, 4, 8), (2, 5, 8), (2, 5, 8)], requires_grad=False)
    T = lambda lib, a, **kw: lib.tensor(a, **kw)
    from torch.nn.attention import sdpa_kernel, SDPBackend
    with sdpa_kernel(SDPBackend.MATH):  # PyTorch's reference kernel refuses a mask with is_causal; its fused CPU kernel applies both
        check_same_error(lambda lib: sdpa(lib, T(lib, q), T(lib, k), T(lib, v), attn_mask=T(lib, np.ones((4, 5), bool)), is_causal=True))
    check_same_error(lambda lib: sdpa(lib, T(lib, q), T(lib, k), T(lib, v, dtype=lib.float64)))
    check_same_error(lambda lib: sdpa(lib, T(lib, q), T(lib, k), T(lib, v), attn_mask=T(lib, np.ones((4, 5), np.int64))))
    check_same_error(lambda lib: sdpa(lib, T(lib, q), T(lib, k), T(lib, v), attn_mask=T(lib, np.ones((4, 6), np.float32))))
    check_same_error(lambda lib: sdpa(lib, T(lib, q), T(lib, k[..., :7]), T(lib, v)))
    check_same_error(lambda lib: sdpa(lib, T(lib, q), T(lib, k), T(lib, v), dropout_p=1.5))

# ---------------------------------------------------------------- MultiheadAttention
def _pair(seed=0, **kw):
    "A torch MHA and a lit_torch MHA with torch's state_dict loaded, unchanged."
    torch.manual_seed(seed)
    tm = torch.nn.MultiheadAttention(**kw)
    with torch.no_grad():  # non-zero biases, so every parameter matters
        for p in tm.parameters(): p.add_(torch.randn_like(p) * 0.1)
    lm = lt.nn.MultiheadAttention(**kw)
    sd = tm.state_dict()
    assert list(lm.state_dict()) == list(sd)
    lm.load_state_dict({k: lt.tensor(v.numpy()) for k, v in sd.items()})
    return tm, lm

def _compare_mha(kw, L=5, S=6, N=3, call=None, masks=(), self_attn=False, atol=2e-5, unbatched=False):
    tm, lm = _pair(**kw)
    E, bf = kw['embed_dim'], kw.get('batch_first', False)
    kd, vd = kw.get('kdim') or E, kw.get('vdim') or E
    shp = lambda n, e: (n, e) if unbatched else ((N, n, e) if bf else (n, N, e))
    arrays = make_inputs([shp(L, E), shp(S, kd), shp(S, vd)], seed=1)
    outs, grads = [], []
    for lib, m in ((torch, tm), (lt, lm)):
        x = [lib.tensor(a, requires_grad=True) for a in arrays]
        q, k, v = (x[0], x[0], x[0]) if self_attn else x
        mk = {name: lib.tensor(a) for name, a in masks}
        o, w = m(q, k, v, **mk, **(call or {}))
        loss = (o * lib.tensor(np.random.default_rng(2).standard_normal(tuple(o.shape)).astype(np.float32))).sum()
        if w is not None: loss = loss + (w * lib.tensor(np.random.default_rng(3).standard_normal(tuple(w.shape)).astype(np.float32))).sum()
        loss.backward()
        outs.append((o.detach().numpy(), None if w is None else w.detach().numpy()))
        grads.append([None if t.grad is None else t.grad.numpy() for t in (x[:1] if self_attn else x)] +
                     [p.grad.numpy() for p in m.parameters()])
    (to, tw), (lo, lw) = outs
    assert lo.shape == to.shape
    np.testing.assert_allclose(lo, to, atol=atol, rtol=1e-4)
    assert (tw is None) == (lw is None)
    if tw is not None: np.testing.assert_allclose(lw, tw, atol=atol, rtol=1e-4)
    for g, h in zip(grads[1], grads[0]):
        np.testing.assert_allclose(g, h, atol=1e-4, rtol=1e-3)
    return tm, lm

CONFIGS = [dict(embed_dim=8, num_heads=2), dict(embed_dim=8, num_heads=2, batch_first=True),
           dict(embed_dim=8, num_heads=4, kdim=5, vdim=3), dict(embed_dim=8, num_heads=2, kdim=5, vdim=3, batch_first=True),
           dict(embed_dim=8, num_heads=2, bias=False), dict(embed_dim=8, num_heads=2, add_bias_kv=True),
           dict(embed_dim=8, num_heads=2, add_zero_attn=True), dict(embed_dim=8, num_heads=2, add_bias_kv=True, add_zero_attn=True, batch_first=True)]

@pytest.mark.parametrize('kw', CONFIGS)
@pytest.mark.parametrize('need_weights,average', [(True, True), (True, False), (False, True)])
def test_mha_configs(kw, need_weights, average):
    _compare_mha(kw, call=dict(need_weights=need_weights, average_attn_weights=average))

@pytest.mark.parametrize('batch_first', [False, True])
def test_mha_self_and_encoder_decoder(batch_first):
    kw = dict(embed_dim=8, num_heads=2, batch_first=batch_first)
    _compare_mha(kw, L=5, S=5, self_attn=True)
    _compare_mha(kw, L=5, S=5, self_attn=True, call=dict(need_weights=False))

def _masks(L=5, S=6, N=3, H=2, seed=4):
    rng = np.random.default_rng(seed)
    am2 = rng.random((L, S)) > 0.6; am2[:, 0] = False
    am3 = rng.random((N * H, L, S)) > 0.6; am3[..., 0] = False
    kpm = np.zeros((N, S), bool); kpm[1, -2:] = True; kpm[2, -1] = True
    f = lambda m: np.where(m, -np.inf, 0).astype(np.float32)
    return dict(am2=am2, am3=am3, kpm=kpm, am2f=f(am2) + rng.standard_normal((L, S)).astype(np.float32) * 0.1,
                am3f=f(am3), kpmf=f(kpm))

M = _masks()
MASK_SETS = [[('attn_mask', M['am2'])], [('attn_mask', M['am3'])], [('attn_mask', M['am2f'])], [('attn_mask', M['am3f'])],
             [('key_padding_mask', M['kpm'])], [('key_padding_mask', M['kpmf'])],
             [('attn_mask', M['am2']), ('key_padding_mask', M['kpm'])], [('attn_mask', M['am3f']), ('key_padding_mask', M['kpmf'])],
             [('attn_mask', M['am2f']), ('key_padding_mask', M['kpmf'])]]

@pytest.mark.parametrize('masks', MASK_SETS, ids=lambda ms: '+'.join(n + str(a.ndim) + a.dtype.kind for n, a in ms))
@pytest.mark.parametrize('kw', [dict(embed_dim=8, num_heads=2), dict(embed_dim=8, num_heads=2, batch_first=True, add_bias_kv=True, add_zero_attn=True)])
@pytest.mark.parametrize('need_weights', [True, False])
def test_mha_masks(masks, kw, need_weights):
    _compare_mha(kw, masks=masks, call=dict(need_weights=need_weights))

def test_mha_mixed_mask_types_warn():
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter('always')
        _compare_mha(dict(embed_dim=8, num_heads=2), masks=[('attn_mask', M['am2f']), ('key_padding_mask', M['kpm'])])
    assert any('mismatched key_padding_mask' in str(r.message) for r in rec)

@pytest.mark.parametrize('need_weights', [True, False])
@pytest.mark.parametrize('with_kpm', [False, True])
def test_mha_is_causal(need_weights, with_kpm):
    causal = np.triu(np.ones((5, 5), bool), 1)
    masks = [('attn_mask', causal)] + ([('key_padding_mask', _masks(S=5)['kpm'])] if with_kpm else [])
    _compare_mha(dict(embed_dim=8, num_heads=2, batch_first=True), L=5, S=5, self_attn=True, masks=masks,
                 call=dict(need_weights=need_weights, is_causal=True))

def test_mha_fully_masked_rows():
    am = np.zeros((5, 6), bool); am[2] = True
    for nw in (True, False):  # NaN rows with need_weights (plain softmax), zeros without (SDPA)
        tm, lm = _pair(embed_dim=8, num_heads=2)
        x = make_inputs([(5, 3, 8), (6, 3, 8)], requires_grad=False)
        to = tm(torch.tensor(x[0]), torch.tensor(x[1]), torch.tensor(x[1]), attn_mask=torch.tensor(am), need_weights=nw)
        lo = lm(lt.tensor(x[0]), lt.tensor(x[1]), lt.tensor(x[1]), attn_mask=lt.tensor(am), need_weights=nw)
        np.testing.assert_allclose(lo[0].detach().numpy(), to[0].detach().numpy(), atol=2e-5)
        if nw: np.testing.assert_allclose(lo[1].detach().numpy(), to[1].detach().numpy(), atol=2e-5)

def test_mha_unbatched():
    kw = dict(embed_dim=8, num_heads=2)
    _compare_mha(kw, unbatched=True)
    _compare_mha(kw, unbatched=True, masks=[('key_padding_mask', np.array([0, 0, 0, 0, 1, 1], bool)), ('attn_mask', M['am2'])],
                 call=dict(need_weights=False))
    _compare_mha(dict(kw, batch_first=True), unbatched=True, masks=[('attn_mask', M['am3'][:2])])

@pytest.mark.parametrize('masks', [[], [('key_padding_mask', _masks(S=5)['kpm'])], [('attn_mask', np.triu(np.ones((5, 5), bool), 1))],
                                   [('attn_mask', np.triu(np.ones((5, 5), bool), 1)), ('key_padding_mask', _masks(S=5)['kpm'])]])
@pytest.mark.parametrize('need_weights', [True, False])
def test_mha_eval_matches_torch_fast_path(masks, need_weights):
    tm, lm = _pair(embed_dim=8, num_heads=2, batch_first=True, dropout=0.1)
    tm.eval(); lm.eval()
    x = make_inputs([(3, 5, 8)], seed=1, requires_grad=False)[0]
    with torch.no_grad(): to, tw = tm(*(torch.tensor(x),) * 3, need_weights=need_weights, **{n: torch.tensor(a) for n, a in masks})
    with lt.no_grad(): lo, lw = lm(*(lt.tensor(x),) * 3, need_weights=need_weights, **{n: lt.tensor(a) for n, a in masks})
    np.testing.assert_allclose(lo.numpy(), to.numpy(), atol=2e-5, rtol=1e-4)
    if need_weights: np.testing.assert_allclose(lw.numpy(), tw.numpy(), atol=2e-5, rtol=1e-4)
    else: assert lw is None and tw is None

def test_mha_functional_static_kv_and_separate_weights():
    rng = np.random.default_rng(0)
    E, H, L, S, N = 8, 2, 4, 6, 3
    arr = lambda *s: rng.standard_normal(s).astype(np.float32) * 0.5
    q, w, b, wo, bo = arr(L, N, E), arr(3 * E, E), arr(3 * E), arr(E, E), arr(E)
    sk, sv = arr(N * H, S, E // H), arr(N * H, S, E // H)
    def f(lib, q, w, b, wo, bo, sk, sv):
        return lib.nn.functional.multi_head_attention_forward(q, q, q, E, H, w, b, None, None, False, 0.0, wo, bo,
                                                              static_k=sk, static_v=sv)
    check_op(f, arrays=[q, w, b, wo, bo, sk, sv])
    wq, wk, wv, k, v = arr(E, E), arr(E, 5), arr(E, 3), arr(S, N, 5), arr(S, N, 3)
    def g(lib, q, k, v, wq, wk, wv, b, wo, bo):
        return lib.nn.functional.multi_head_attention_forward(q, k, v, E, H, None, b, None, None, False, 0.0, wo, bo,
                                                              use_separate_proj_weight=True, q_proj_weight=wq, k_proj_weight=wk,
                                                              v_proj_weight=wv, need_weights=False)[0]
    check_op(g, arrays=[q, k, v, wq, wk, wv, b, wo, bo])

def test_mha_dropout_training():
    lt.manual_seed(0)
    m = lt.nn.MultiheadAttention(8, 2, dropout=0.5)
    x = lt.randn(5, 3, 8)
    _, w = m(x, x, x, average_attn_weights=False)
    assert 0.35 < float((w == 0).float().mean()) < 0.65  # the returned weights are the dropped-out ones, as in PyTorch
    m.eval()
    o1, _ = m(x, x, x); o2, _ = m(x, x, x)
    np.testing.assert_array_equal(o1.detach().numpy(), o2.detach().numpy())

@pytest.mark.parametrize('dropout', [0.0, 0.5])
def test_sdpa_weights_contiguous_as_torch(dropout):
    "The node computes its logits as (K Qᵀ)ᵀ, each row stored as a column; the weights and gradients it returns are row-major, as torch's."
    for lib in (torch, lt):
        m = lib.nn.MultiheadAttention(8, 2, dropout=dropout)
        x = lib.randn(5, 3, 8, requires_grad=True)
        _, w = m(x, x, x, average_attn_weights=False)
        assert w.is_contiguous() and tuple(w.view(-1).shape) == (3 * 2 * 5 * 5,), lib.__name__
        w.sum().backward()  # the weights' own gradient reaches the input
        assert x.grad is not None and bool((x.grad != 0).any())
        q, k, v = (lib.randn(2, 3, 4, 8, requires_grad=True) for _ in range(3))
        m = lib.randn(4, 4, requires_grad=True)  # a float mask's gradient is ∂S summed over the batch
        sdpa(lib, q, k, v, attn_mask=m, dropout_p=dropout).sum().backward()
        assert m.grad.is_contiguous() and all(t.grad.is_contiguous() for t in (q, k, v)), lib.__name__

def test_mha_init_and_state_dict_roundtrip():
    lt.manual_seed(0)
    m = lt.nn.MultiheadAttention(16, 4, add_bias_kv=True)
    assert float(m.in_proj_bias.abs().sum()) == 0 and float(m.out_proj.bias.abs().sum()) == 0
    bound = math.sqrt(6 / (16 + 48))
    assert float(m.in_proj_weight.abs().max()) <= bound and float(m.in_proj_weight.abs().max()) > 0.8 * bound
    assert type(m.out_proj).__name__ == 'NonDynamicallyQuantizableLinear' and isinstance(m.out_proj, lt.nn.Linear)
    t = torch.nn.MultiheadAttention(16, 4, add_bias_kv=True)
    t.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in m.state_dict().items()})  # and back into torch
    assert [(k, tuple(v.shape)) for k, v in m.state_dict().items()] == [(k, tuple(v.shape)) for k, v in t.state_dict().items()]

def test_mha_merge_masks():
    tm, lm = _pair(embed_dim=8, num_heads=2, batch_first=True)
    am = np.where(np.triu(np.ones((5, 5), bool), 1), -np.inf, 0).astype(np.float32)
    kpm = np.where(_masks(S=5)['kpm'], -np.inf, 0).astype(np.float32)
    x = make_inputs([(3, 5, 8)], requires_grad=False)[0]
    for a, k in ((am, None), (None, kpm), (am, kpm)):
        T = lambda lib, z: None if z is None else lib.tensor(z)
        tmask, ttype = tm.merge_masks(T(torch, a), T(torch, k), torch.tensor(x))
        lmask, ltype = lm.merge_masks(T(lt, a), T(lt, k), lt.tensor(x))
        assert ttype == ltype
        np.testing.assert_array_equal(lmask.numpy(), tmask.numpy())

def test_mha_errors():
    kw = dict(embed_dim=8, num_heads=2)
    x, y, z = make_inputs([(5, 3, 8), (6, 4, 8), (5, 3, 6)], requires_grad=False)
    def run(lib, q, k, v, **call):
        torch.manual_seed(0); lt.manual_seed(0)
        m = lib.nn.MultiheadAttention(**kw)
        return m(lib.tensor(q), lib.tensor(k), lib.tensor(v), **{n: lib.tensor(a) for n, a in call.items()})
    check_same_error(lambda lib: lib.nn.MultiheadAttention(10, 3))
    check_same_error(lambda lib: lib.nn.MultiheadAttention(0, 3))
    check_same_error(lambda lib: run(lib, z, z, z))  # wrong d_model
    check_same_error(lambda lib: run(lib, x, y, y))  # mismatched batch sizes
    check_same_error(lambda lib: run(lib, x, x, x[:4]))  # key and value shapes differ
    check_same_error(lambda lib: run(lib, x, x, x, attn_mask=np.zeros((5, 4), bool)))
    check_same_error(lambda lib: run(lib, x, x, x, attn_mask=np.zeros((5, 5, 5), bool)))
    check_same_error(lambda lib: run(lib, x, x, x, attn_mask=np.zeros((1, 1, 5, 5), bool)))
    check_same_error(lambda lib: run(lib, x, x, x, key_padding_mask=np.zeros((3, 4), bool)))
    check_same_error(lambda lib: run(lib, x, x, x, key_padding_mask=np.zeros((2, 5), bool)))
    check_same_error(lambda lib: run(lib, x, x, x, key_padding_mask=np.zeros((3,), bool)))
    check_same_error(lambda lib: run(lib, x, x, x, attn_mask=np.zeros((5, 5), np.int64)))
    check_same_error(lambda lib: run(lib, x, x, x, key_padding_mask=np.zeros((3, 5), np.int64)))
    check_same_error(lambda lib: run(lib, x[0], x, x))
    check_same_error(lambda lib: run(lib, x[..., 0], x[..., 0], x[..., 0]))
    e = check_same_error(lambda lib: lib.nn.MultiheadAttention(**kw)(*(lib.tensor(x),) * 3, is_causal=True))
    assert 'Need attn_mask' in str(e)
