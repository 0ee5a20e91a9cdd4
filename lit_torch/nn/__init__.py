# torch.nn's front door: it only imports (written by hand, like lit_torch/__init__.py).
from .parameter import Parameter
from .modules import (Module, register_module_forward_pre_hook, register_module_forward_hook,
                      register_module_full_backward_pre_hook, register_module_full_backward_hook)
from .modules import (Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict, Identity, Linear, Embedding,
                      Dropout, LayerNorm, Flatten, Unflatten, ReLU, GELU, SiLU, Tanh, Sigmoid, Softmax, LogSoftmax,
                      MultiheadAttention, Conv1d, Conv2d, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, MSELoss, L1Loss,
                      CrossEntropyLoss, NLLLoss, BCEWithLogitsLoss, BatchNorm1d, BatchNorm2d, BatchNorm3d, SyncBatchNorm,
                      Transformer, TransformerEncoder, TransformerDecoder, TransformerEncoderLayer, TransformerDecoderLayer)
from .modules import (Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, MaxPool1d, MaxPool3d, MaxUnpool1d,
                      MaxUnpool2d, MaxUnpool3d, AvgPool1d, AvgPool3d, FractionalMaxPool2d, FractionalMaxPool3d, LPPool1d,
                      LPPool2d, LPPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d, AdaptiveAvgPool1d,
                      AdaptiveAvgPool3d, CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d,
                      ConstantPad3d, ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
                      ReplicationPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d, Upsample, UpsamplingNearest2d, UpsamplingBilinear2d,
                      PixelShuffle, PixelUnshuffle, Fold, Unfold, ChannelShuffle)
from . import init, functional, modules, parallel
from .parallel import DataParallel
