"""Machine models as data: ``targets/*.toml`` -> :class:`Target`.

* :mod:`.model`: :class:`Target` and :class:`OpClass` (how a class of opcodes executes);
* :mod:`.load`: reading and validating the TOML files (:func:`load_target`);
* :mod:`.formula`: latencies that depend on operands, as arithmetic over parameters;
* :mod:`.overrides`: ``--set KEY=VALUE`` for one run.

The format is described in ``docs/targets.md``.
"""

from schedcc.target.load import list_targets, load_target, parse_target, target_from_data
from schedcc.target.model import DOMAINS, OpClass, Target, check_opcodes, unknown_opcode_error

__all__ = ["DOMAINS", "OpClass", "Target", "check_opcodes", "list_targets", "load_target", "parse_target",
           "target_from_data", "unknown_opcode_error"]
