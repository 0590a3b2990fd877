"""PyTorch in: profiler traces of real runs (docs/torch.md). Reading a trace needs neither torch nor HTA."""

from schedcc.torch.kineto import read_trace, read_traces
from schedcc.torch.replay import Replay, replay
from schedcc.torch.whatif import WhatIf, what_if

__all__ = ["read_trace", "read_traces", "replay", "Replay", "what_if", "WhatIf"]
