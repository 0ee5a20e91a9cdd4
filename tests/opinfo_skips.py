"""What the OpInfo driver (tests/test_opinfo.py) does not run, or runs only in part, and why.

Every entry here is an OpInfo that the driver reports as *skipped* (with the reason below) or compares
only in shape and dtype. Nothing is skipped silently: the summary line counts these, and
`OPINFO_REPORT=1` lists them. An op that lit_torch merely lacks is not listed here; the driver finds
that by itself and reports it as *missing*.
"""

# Entries that lit_torch deliberately does not cover, by OpInfo name (`name` or `name.variant_test_name`).
SKIP = {
    'to_sparse': 'sparse layouts: lit_torch has only dense strided tensors',
    'hash_tensor': 'a hash whose value is an implementation detail of ATen',
    'bmm.triton_optimized': 'a Triton (GPU compiler) path of bmm',
    'max_pool2d_with_indices_backward': 'an aten backward kernel called directly, not public API',
    'native_dropout_backward': 'an aten backward kernel called directly, not public API',
    'grid_sampler_2d': 'the aten kernel behind F.grid_sample, not public API',
    'grid_sampler_3d': 'the aten kernel behind F.grid_sample, not public API',
    'slice': 'aten.slice.Tensor called directly: in Python it is x[a:b], tested by __getitem__',
}

# Whole families, by name prefix.
SKIP_PREFIX = {
    'sparse.': 'sparse tensors: lit_torch has only dense strided tensors',
    'jiterator_': 'CUDA jiterator kernels: there is no CPU variant',
    'torch.': 'a private or raw aten op (torch._scaled_mm, torch.ops.aten.*): not public API',
    '_': 'a private aten op (the leading underscore): not public API',
}

# Ops whose values are random or uninitialised: the driver compares shape, dtype and errors, not values
# (lit_torch's generator is not torch's, and empty memory holds anything).
SHAPE_ONLY = {
    'empty': 'uninitialised memory', 'empty_like': 'uninitialised memory', 'new_empty': 'uninitialised memory',
    'new_empty_strided': 'uninitialised memory', 'empty_strided': 'uninitialised memory',
    'empty_permuted': 'uninitialised memory',
    'bernoulli': 'random', 'multinomial': 'random', 'normal': 'random', 'normal.number_mean': 'random',
    'normal.in_place': 'random', 'cauchy': 'random', 'exponential': 'random', 'geometric': 'random',
    'log_normal': 'random', 'uniform': 'random', 'rand_like': 'random', 'randn': 'random',
    'randn_like': 'random', 'randint': 'random', 'randint_like': 'random',
    'nn.functional.dropout': 'random', 'nn.functional.dropout2d': 'random', 'nn.functional.dropout3d': 'random',
    'nn.functional.alpha_dropout': 'random', 'nn.functional.feature_alpha_dropout.with_train': 'random',
    'nn.functional.rrelu': 'random', 'nn.functional.fractional_max_pool2d': 'random',
    'nn.functional.fractional_max_pool3d': 'random', 'svd_lowrank': 'random', 'pca_lowrank': 'random',
}


# Ops random only on some samples: (predicate on the sample's (input, args, kwargs), reason). Those samples
# are compared in shape and dtype; the others in full.
def _dropout_p(args, kwargs, pos, name='dropout_p'):
    p = kwargs.get(name, args[pos] if len(args) > pos else 0.0)
    return isinstance(p, (int, float)) and p > 0

SHAPE_ONLY_IF = {
    'nn.functional.scaled_dot_product_attention':
        (lambda inp, args, kwargs: _dropout_p(args, kwargs, 3), 'random: dropout_p > 0'),
    'nn.functional.multi_head_attention_forward':
        (lambda inp, args, kwargs: _dropout_p(args, kwargs, 9) and kwargs.get('training', True), 'random: dropout_p > 0 in training'),
}


def skip_reason(name, key):
    "Why the driver skips the OpInfo named `name` (`key` = `name.variant_test_name`), or None if it runs it."
    for k in (key, name):
        if k in SKIP: return SKIP[k]
    for prefix, reason in SKIP_PREFIX.items():
        if name.startswith(prefix) and not name.startswith('__'): return reason
    return None
