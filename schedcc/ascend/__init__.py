"""The Ascend AI core: pipes, buffers, synchronisation insertion and its checker.

* :mod:`.model`: the extra tables of an Ascend machine model (buffers, dataflow, events);
* :mod:`.buffers`: which register is a tile in which buffer, capacity and alignment checks;
* :mod:`.deps`: the dependence DAG with Ascend's "after completion" semantics;
* :mod:`.sync`: SetFlag/WaitFlag/PipeBarrier insertion, minimal, with event IDs;
* :mod:`.check`: an independent checker that simulates the pipes with the flags;
* :mod:`.kernel`: the whole job for a program (:func:`compile_kernels`);
* :mod:`.report`: pseudo-code, utilisation, timeline bars and trace events.

See ``docs/ascend.md``.
"""

from schedcc.ascend.model import AscendModel, ascend_model, is_ascend
from schedcc.ascend.kernel import KernelResult, compile_kernels, compile_block
from schedcc.ascend.check import SyncCheckError, check_sync

__all__ = ["AscendModel", "ascend_model", "is_ascend", "KernelResult", "compile_kernels",
           "compile_block", "SyncCheckError", "check_sync"]
