# torch.nn's front door: it only imports. Like lit_torch/__init__.py, it is written by hand; the
# modules it imports are exported from nbs/05_module.ipynb and the chapters after it.
from .modules.module import (Module, Parameter, register_module_forward_pre_hook, register_module_forward_hook,
                             register_module_full_backward_pre_hook, register_module_full_backward_hook)
from . import init
from . import functional
from .modules.layers import (Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict, Identity, Linear, Embedding,
                             Dropout, LayerNorm, Flatten, Unflatten, ReLU, GELU, SiLU, Tanh, Sigmoid, Softmax, LogSoftmax,
                             Conv1d, Conv2d, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, MSELoss, L1Loss, CrossEntropyLoss,
                             NLLLoss, BCEWithLogitsLoss)
# BatchNorm (nbs/09_batchnorm.ipynb). F.batch_norm lives with the layer whose story derives it; bound here, once.
from .modules.batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .modules import batchnorm as _batchnorm
functional.batch_norm = _batchnorm.batch_norm
from . import parallel
from .modules.syncbn import SyncBatchNorm
# Attention (nbs/10_attention.ipynb). F.scaled_dot_product_attention and F.multi_head_attention_forward live with the chapter that derives them; bound here, once.
from .modules.activation import MultiheadAttention
from .modules import activation as _activation
functional.scaled_dot_product_attention = _activation.scaled_dot_product_attention
functional.multi_head_attention_forward = _activation.multi_head_attention_forward
# Transformer (nbs/10a_transformer.ipynb)
from .modules.transformer import Transformer, TransformerEncoder, TransformerDecoder, TransformerEncoderLayer, TransformerDecoderLayer
# DataParallel (nbs/14_data_parallel.ipynb)
from .parallel import DataParallel
# Recurrent networks (nbs/15_rnn.ipynb: nn.utils.rnn, which this import brings in as nn.utils; nbs/15a_rnn_layers.ipynb: the layers)
from .modules.rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell
