# torch.nn.utils' front door: it only imports (written by hand), in torch's order.
from . import parametrizations, parametrize, rnn
from .clip_grad import clip_grads_with_norm_, get_total_norm, clip_grad_norm, clip_grad_norm_, clip_grad_value_
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm
