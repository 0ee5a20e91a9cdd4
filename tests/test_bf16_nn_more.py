"bfloat16 in nn's activations, distances, losses, attention, embedding_bag and bilinear, against torch: torch's CPU kernels compute bfloat16 in float32 and round once, and add in float32."
import numpy as np
import pytest
import torch
import torch.nn.functional as TF
import lit_torch as lt
import lit_torch.nn.functional as LF

def F(m): return TF if m is torch else LF
def bf16(m, a, requires_grad=False): return m.tensor(a).to(m.bfloat16).requires_grad_(requires_grad)
def rand(*shape, seed=0, scale=1.): return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)

def check(ours, theirs, rtol=1.6e-2, atol=1e-5):
    "Same dtype and shape, values within bfloat16's tolerance."
    assert str(ours.dtype) == str(theirs.dtype), (ours.dtype, theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().float().numpy(), theirs.detach().float().numpy(), rtol=rtol, atol=atol)

ACTS = {
    'elu': lambda m, x: F(m).elu(x, 0.7), 'celu': lambda m, x: F(m).celu(x, 0.7), 'selu': lambda m, x: F(m).selu(x),
    'leaky_relu': lambda m, x: F(m).leaky_relu(x, 0.1), 'hardshrink': lambda m, x: F(m).hardshrink(x, 0.5),
    'hardsigmoid': lambda m, x: F(m).hardsigmoid(x), 'hardswish': lambda m, x: F(m).hardswish(x),
    'mish': lambda m, x: F(m).mish(x), 'softplus': lambda m, x: F(m).softplus(x, 3., 2.),
    'softshrink': lambda m, x: F(m).softshrink(x, 0.5), 'logsigmoid': lambda m, x: F(m).logsigmoid(x),
    'rrelu_eval': lambda m, x: F(m).rrelu(x, 0.1, 0.3), 'prelu': lambda m, x: F(m).prelu(x, m.tensor([0.25]).to(m.bfloat16)),
    'elu_': lambda m, x: F(m).elu(x.clone(), 0.7, inplace=True), 'mish_': lambda m, x: F(m).mish(x.clone(), inplace=True),
}

@pytest.mark.parametrize('name', list(ACTS))
def test_activation_bfloat16(name):
    "Values exactly torch's (float32, rounded once), gradients within a unit in the last place; they raised NotImplementedError."
    f, x, g = ACTS[name], rand(1000, scale=3.), rand(1000, seed=1)
    (xt, xl), (gt, gl) = (bf16(torch, x, True), bf16(lt, x, True)), (bf16(torch, g), bf16(lt, g))
    yt, yl = f(torch, xt), f(lt, xl)
    check(yl, yt, rtol=0, atol=0)
    if name == 'elu_': return  # torch's in-place ELU differentiates from its bfloat16 output, lit_torch from the input
    yt.backward(gt); yl.backward(gl)
    check(xl.grad, xt.grad, atol=1e-3)

def test_rrelu_training_bfloat16():
    x = bf16(lt, rand(1000, scale=3.))
    y = LF.rrelu(x, 0.1, 0.3, training=True)
    assert y.dtype == lt.bfloat16
    r = (y.float() / x.float())[x.float() < 0].numpy()
    assert (r >= 0.09).all() and (r <= 0.31).all()

def test_hardswish_gradient_at_the_corners():
    "torch: 0 at -3 and 1 at 3 (the middle piece is open), in every dtype."
    for dt in ('float32', 'float64', 'bfloat16'):
        grads = []
        for m in (torch, lt):
            x = m.tensor([-3., 3., -2.5, 4.], dtype=getattr(m, dt), requires_grad=True)
            F(m).hardswish(x).sum().backward(); grads.append(x.grad)
        check(grads[1], grads[0], rtol=0, atol=0)

# ---------------------------------------------------------------- distances and losses

def run_both(f, *arrays):
    return [f(m, *[bf16(m, a) for a in arrays]) for m in (lt, torch)]

DISTANCES = {
    'pairwise_distance': lambda m, a, b, c: F(m).pairwise_distance(a, b),
    'pairwise_distance_p1': lambda m, a, b, c: F(m).pairwise_distance(a, b, 1., keepdim=True),
    'cosine_similarity': lambda m, a, b, c: F(m).cosine_similarity(a, b),
    'triplet_margin_loss': lambda m, a, b, c: F(m).triplet_margin_loss(a, b, c, margin=3.),
    'triplet_margin_with_distance_loss': lambda m, a, b, c: F(m).triplet_margin_with_distance_loss(a, b, c, margin=3., reduction='none'),
}

@pytest.mark.parametrize('name', list(DISTANCES))
def test_distances_stay_bfloat16(name):
    "They returned float32 (pairwise_distance cast bfloat16 to the default dtype) or raised (cosine_similarity)."
    ours, theirs = run_both(DISTANCES[name], rand(6, 8), rand(6, 8, seed=1), rand(6, 8, seed=2))
    check(ours, theirs)

@pytest.mark.parametrize('name', ['pairwise_distance', 'cosine_similarity', 'triplet_margin_loss', 'normalize'])
def test_distances_over_long_rows(name):
    "Rows of 1,000: the vector norm under them added bfloat16 in bfloat16 (norm 16 against torch's 18.6)."
    f = DISTANCES.get(name, lambda m, a, b, c: F(m).normalize(a))
    ours, theirs = run_both(f, rand(3, 1000), rand(3, 1000, seed=1), rand(3, 1000, seed=2))
    check(ours, theirs)

LOSSES = {
    'smooth_l1_loss': lambda m, a, b: F(m).smooth_l1_loss(a, b),
    'smooth_l1_loss_sum': lambda m, a, b: F(m).smooth_l1_loss(a, b, reduction='sum', beta=0.5),
    'huber_loss': lambda m, a, b: F(m).huber_loss(a, b, delta=0.8),
    'huber_loss_sum': lambda m, a, b: F(m).huber_loss(a, b, reduction='sum'),
    'multilabel_soft_margin_loss': lambda m, a, b: F(m).multilabel_soft_margin_loss(a, (b > 0).to(a.dtype)),
}

@pytest.mark.parametrize('name', list(LOSSES))
def test_losses_add_in_float32(name):
    "3×1000 values: NumPy's bfloat16 mean was about half of torch's (0.34 against 0.71 for smooth_l1_loss); multilabel_soft_margin_loss raised."
    ours, theirs = run_both(LOSSES[name], rand(3, 1000), rand(3, 1000, seed=1))
    check(ours, theirs)

def test_smooth_l1_loss_rounds_once():
    "torch's bfloat16 kernel computes each element in float32 and rounds once: exactly its values."
    ours, theirs = run_both(lambda m, a, b: F(m).smooth_l1_loss(a, b, reduction='none', beta=0.5), rand(3, 1000), rand(3, 1000, seed=1))
    check(ours, theirs, rtol=0, atol=0)

def test_linear_cross_entropy_chunked_bfloat16():
    "Where torch chunks (options given), it computes bfloat16 in float32 and rounds the loss once; the reference path's rounded logits were off by up to 6%."
    from torch.nn.modules.linear_cross_entropy_options import LinearCrossEntropyOptions as TOpts
    x, w, b = rand(64, 16), rand(50, 16, seed=1), rand(50, seed=2)
    t = np.random.default_rng(3).integers(0, 50, 64)
    for reduction in ('none', 'mean', 'sum'):
        theirs = TF.linear_cross_entropy(bf16(torch, x), bf16(torch, w), torch.tensor(t), linear_bias=bf16(torch, b), reduction=reduction,
                                         options=TOpts(batch_chunk_size=16))
        ours = LF.linear_cross_entropy(bf16(lt, x), bf16(lt, w), lt.tensor(t), linear_bias=bf16(lt, b), reduction=reduction,
                                       options=TOpts(batch_chunk_size=16))
        check(ours, theirs, rtol=8e-3)

# ---------------------------------------------------------------- embedding_bag

@pytest.mark.parametrize('mode', ['sum', 'mean', 'sum_weighted'])
def test_embedding_bag_adds_in_float32(mode):
    "Bags of 1,000 rows: summed in bfloat16 they saturated (a probe gave 512 against torch's 1208); torch adds in float32 and rounds once."
    w, idx = rand(20, 8, scale=3.), np.random.default_rng(1).integers(0, 20, 3000)
    psw = rand(3000, seed=2) if mode == 'sum_weighted' else None
    ours, theirs = (F(m).embedding_bag(m.tensor(idx), bf16(m, w), m.tensor([0, 1000, 2500]), mode=mode.split('_')[0],
                                       per_sample_weights=None if psw is None else bf16(m, psw)) for m in (lt, torch))
    check(ours, theirs)

def test_embedding_bag_weighted_rounds_once():
    "torch multiplies bfloat16 rows by their weights in float32 and rounds the bag once: a bag of one row is exactly its product rounded."
    w, idx, psw = rand(10, 5), np.arange(10), rand(10, seed=1)
    res = []
    for m in (lt, torch):
        wm, pm = bf16(m, w, True), bf16(m, psw, True)
        out = F(m).embedding_bag(m.tensor(idx), wm, m.tensor(idx), mode='sum', per_sample_weights=pm)
        out.backward(bf16(m, rand(10, 5, seed=2)))
        res.append((out, wm.grad, pm.grad))
    check(res[0][0], res[1][0], rtol=0, atol=0)
    check(res[0][1], res[1][1]); check(res[0][2], res[1][2])

# ---------------------------------------------------------------- attention

@pytest.mark.parametrize('shape, causal, masked', [((2, 3, 7, 8), False, False), ((2, 3, 7, 8), True, False), ((3, 7, 8), False, True),
                                                   ((2, 2, 5, 16), False, True)])
def test_sdpa_bfloat16(shape, causal, masked):
    "It returned float32; now bfloat16, rounded as torch's math kernel (3-D) or its flash kernel (4-D) rounds."
    q, k, v = (rand(*shape, seed=s, scale=2.) for s in range(3))
    mask = np.random.default_rng(4).random(shape[-2:] if not masked else (shape[-2], shape[-2])) > 0.3 if masked else None
    res = []
    for m in (lt, torch):
        qm, km, vm = (bf16(m, a, True) for a in (q, k, v))
        out = F(m).scaled_dot_product_attention(qm, km, vm, attn_mask=None if mask is None else m.tensor(mask), is_causal=causal)
        out.backward(bf16(m, rand(*shape, seed=5)))
        res.append((out, qm.grad, km.grad, vm.grad))
    check(res[0][0], res[1][0])
    for ours, theirs in zip(res[0][1:], res[1][1:]): check(ours, theirs, atol=5e-2)  # torch's flash backward rounds dS to bfloat16

@pytest.mark.parametrize('need_weights', [True, False])
def test_multi_head_attention_forward_bfloat16(need_weights):
    "It raised 'mat1 and mat2 must have the same dtype' (the attention came back in float32); with need_weights each of torch's steps rounds."
    L, N, E, H = 5, 3, 8, 2
    x, w, wo = rand(L, N, E, scale=2.), rand(3 * E, E, seed=1), rand(E, E, seed=2)
    mask = np.random.default_rng(3).random((L, L)) > 0.7
    outs = [F(m).multi_head_attention_forward(bf16(m, x), bf16(m, x), bf16(m, x), E, H, bf16(m, w), None, None, None, False, 0.0,
                                              bf16(m, wo), None, need_weights=need_weights, attn_mask=m.tensor(mask)) for m in (lt, torch)]
    check(outs[0][0], outs[1][0])
    if need_weights: check(outs[0][1], outs[1][1])

# ---------------------------------------------------------------- bilinear

@pytest.mark.parametrize('lead', [(), (6,), (2, 5)])
def test_bilinear_bfloat16(lead):
    "It returned float32 (its einsum did); torch rounds x1ᵀW_o, then its product with x2, then adds the bias."
    x1, x2, w, b = rand(*lead, 7, scale=2.), rand(*lead, 9, seed=1, scale=2.), rand(4, 7, 9, seed=2), rand(4, seed=3)
    res = []
    for m in (lt, torch):
        xs = [bf16(m, a, True) for a in (x1, x2, w, b)]
        out = F(m).bilinear(*xs)
        out.backward(bf16(m, rand(*lead, 4, seed=4)))
        res.append([out] + [t.grad for t in xs])
    check(res[0][0], res[1][0], rtol=0, atol=0)
    for ours, theirs in zip(res[0][1:], res[1][1:]):  # torch's backward adds the batch up in bfloat16: within 1% of the largest
        check(ours, theirs, atol=0.01 * float(theirs.abs().max()))

def test_pdist_errors_as_torch():
    "torch's pdist kernel has float32 and float64 only: bfloat16 raised nothing here (and integers returned float64)."
    for dt, p in (('bfloat16', 2.), ('float16', 2.), ('int64', 2.), ('int64', -1.), ('float16', -1.)):
        errs = []
        for m in (lt, torch):
            with pytest.raises((RuntimeError, NotImplementedError)) as e: F(m).pdist(m.ones(3, 2, dtype=getattr(m, dt)), p)
            errs.append((e.type, str(e.value).split('\n')[0]))
        assert errs[0] == errs[1], (dt, p, errs)
