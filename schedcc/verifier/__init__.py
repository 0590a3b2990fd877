"""Independent checkers: they trust no scheduler and share no code with one.

* :mod:`.problem`: a schedule against its :class:`~schedcc.problem.SchedGraph`
  (dependences, units, issue width, extra resources), for every domain;
* :mod:`.block`: a block's schedule against the program itself (registers,
  memory with its own alias test, the terminator), not trusting the DAG builder;
* :mod:`.modulo`: a modulo schedule, row by row of the reservation table.

The Ascend pipe and flag checker, which simulates the emitted code, is
:mod:`schedcc.ascend.check`.
"""

from schedcc.verifier.block import verify
from schedcc.verifier.modulo import ModuloVerificationError, verify_modulo
from schedcc.verifier.problem import VerificationError, verify_schedule

__all__ = ["verify", "verify_schedule", "verify_modulo", "VerificationError", "ModuloVerificationError"]
