"""Simulators: how code runs, as opposed to how it is scheduled.

* :mod:`.pipeline`: in-order issue of a given order on the machine (the
  "before" numbers next to a schedule, with stall reasons);
* :mod:`.interp`: the IR interpreter behind ``schedcc run``, which checks that
  a pipelined program computes what the original does.
"""

from schedcc.sim.pipeline import InOrderResult, simulate_in_order, simulate_order

__all__ = ["InOrderResult", "simulate_in_order", "simulate_order"]
