__version__ = "0.0.1"
# The package's front door: it only imports. Its story is nbs/00_import.ipynb; this is the one
# file in lit_torch/ that no notebook exports, so each chapter adds its line here by hand.

# What torch._C gives torch: devices, dtypes, generators
from .backend import (device, dtype, float16, float32, float64, int8, int16, int32, int64, uint8,
                      get_default_dtype, set_default_dtype, promote_types,
                      Generator, default_generator, manual_seed, seed, initial_seed, get_rng_state, set_rng_state,
                      cpu, cuda)
from .backend import _bool as bool

# PyTorch's dtype aliases shadow builtins, so they live only here
half, float, double = float16, float32, float64
short, int, long = int16, int32, int64
