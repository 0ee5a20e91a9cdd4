# torch.nn's front door: it only imports (written by hand, like lit_torch/__init__.py).
from .parameter import Parameter, UninitializedParameter, UninitializedBuffer
from .modules import (Module, register_module_forward_pre_hook, register_module_forward_hook,
                      register_module_full_backward_pre_hook, register_module_full_backward_hook)
from .modules import (Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict, Identity, Linear, Bilinear, LazyLinear, Embedding, EmbeddingBag,
                      Dropout, Dropout1d, Dropout2d, Dropout3d, AlphaDropout, FeatureAlphaDropout, LocalResponseNorm, CrossMapLRN2d, LayerNorm, GroupNorm, RMSNorm,
                      Flatten, Unflatten)
from .modules import (Threshold, ReLU, RReLU, Hardtanh, ReLU6, Sigmoid, Hardsigmoid, Tanh, SiLU, Mish, Hardswish, ELU, CELU,
                      SELU, GLU, GELU, Hardshrink, LeakyReLU, LogSigmoid, Softplus, Softshrink, MultiheadAttention, PReLU,
                      Softsign, Tanhshrink, Softmin, Softmax, Softmax2d, LogSoftmax)
from .modules import PairwiseDistance, CosineSimilarity
from .modules import (L1Loss, NLLLoss, NLLLoss2d, PoissonNLLLoss, GaussianNLLLoss, KLDivLoss, MSELoss, BCELoss, BCEWithLogitsLoss,
                      HingeEmbeddingLoss, MultiLabelMarginLoss, SmoothL1Loss, HuberLoss, SoftMarginLoss, CrossEntropyLoss,
                      LinearCrossEntropyLoss, MultiLabelSoftMarginLoss, CosineEmbeddingLoss, MarginRankingLoss, MultiMarginLoss,
                      TripletMarginLoss, TripletMarginWithDistanceLoss, CTCLoss)
from .modules import (Conv1d, Conv2d, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, BatchNorm1d, BatchNorm2d, BatchNorm3d, LazyBatchNorm1d, LazyBatchNorm2d,
                      LazyBatchNorm3d, SyncBatchNorm, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, LazyInstanceNorm1d,
                      LazyInstanceNorm2d, LazyInstanceNorm3d,
                      Transformer, TransformerEncoder, TransformerDecoder, TransformerEncoderLayer, TransformerDecoderLayer)
from .modules import (Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, MaxPool1d, MaxPool3d, MaxUnpool1d,
                      MaxUnpool2d, MaxUnpool3d, AvgPool1d, AvgPool3d, FractionalMaxPool2d, FractionalMaxPool3d, LPPool1d,
                      LPPool2d, LPPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d, AdaptiveAvgPool1d,
                      AdaptiveAvgPool3d, CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d,
                      ConstantPad3d, ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
                      ReplicationPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d, Upsample, UpsamplingNearest2d, UpsamplingBilinear2d,
                      PixelShuffle, PixelUnshuffle, Fold, Unfold, ChannelShuffle)
from .modules import (LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d)
from . import init, functional, modules, parallel, utils
from .parallel import DataParallel
# Recurrent networks (nbs/15_rnn.ipynb: nn.utils.rnn; nbs/15a_rnn_layers.ipynb: the layers)
from .modules import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell
