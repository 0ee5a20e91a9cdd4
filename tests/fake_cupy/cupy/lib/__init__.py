"`cupy.lib`: only `stride_tricks`."
from . import stride_tricks  # noqa: F401
