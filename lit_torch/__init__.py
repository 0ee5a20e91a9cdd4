__version__ = "0.0.1"
# The package's front door: it only imports. Its story is nbs/00_import.ipynb; this is the one
# file in lit_torch/ that no notebook exports, so each chapter adds its line here by hand.

# What torch._C gives torch: devices, dtypes, generators
from .backend import (device, dtype, float16, float32, float64, int8, int16, int32, int64, uint8,
                      get_default_dtype, set_default_dtype, promote_types,
                      Generator, default_generator, manual_seed, seed, initial_seed, get_rng_state, set_rng_state,
                      cpu, cuda)
from .backend import _bool as bool

# The Tensor and the ways to make one (nbs/01_tensor.ipynb)
from ._tensor import (Tensor, Size, tensor, as_tensor, from_numpy, from_dlpack, zeros, ones, empty, full, eye,
                      arange, linspace, rand, randn, randint, randperm,
                      zeros_like, ones_like, empty_like, full_like, rand_like, randn_like, randint_like)

# PyTorch's dtype aliases shadow builtins, so they live only here
half, float, double = float16, float32, float64
short, int, long = int16, int32, int64

# Autograd: Function, the engine, grad modes, and the first ops (nbs/02_autograd.ipynb)
from . import autograd
from .autograd import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled, add, mul, neg, sum

# The ops: arithmetic, elementwise math, comparisons, reductions, softmax, matrix products (nbs/03_ops.ipynb).
# max, min, abs, pow, all and any hide Python's builtins from here on, as torch's do.
from .ops import (sub, subtract, div, divide, true_divide, floor_divide, remainder, pow, abs, absolute, sign,
                  exp, expm1, log, log1p, sqrt, rsqrt, sin, cos, tanh, sigmoid, relu, clamp, clip, clamp_min, clamp_max,
                  maximum, minimum, where, masked_fill, eq, ne, lt, le, gt, ge, greater, greater_equal, less, less_equal,
                  not_equal, equal, logical_and, logical_or, logical_xor, logical_not, bitwise_and, bitwise_or, bitwise_xor,
                  bitwise_not, isnan, isinf, isfinite, mean, var, std, prod, cumsum, logsumexp, amax, amin, max, min,
                  argmax, argmin, all, any, softmax, log_softmax, matmul, mm, bmm, dot, mv, einsum, clone, return_types)

# Shapes, indexing, joining, gather/scatter (nbs/03a_shape.ipynb)
from .shape_ops import (permute, transpose, swapaxes, swapdims, t, unsqueeze, squeeze, flatten, unflatten, movedim,
                        moveaxis, select, narrow, cat, concat, concatenate, stack, split, chunk, unbind, gather,
                        scatter, scatter_add, index_select, tril, triu)

# nn.Module and Parameter (nbs/05_module.ipynb); state_dict, load_state_dict, save and load (nbs/06_state_dict.ipynb)
from . import nn
from .serialization import save, load

# Optimizers and learning-rate schedules (nbs/08_optim.ipynb, nbs/08a_lr_scheduler.ipynb)
from . import optim

# The data pipeline (nbs/11_data.ipynb)
from . import utils

# Distributed training on MPI (nbs/12_distributed.ipynb, 12a_run, 12b_ddp)
from . import distributed
