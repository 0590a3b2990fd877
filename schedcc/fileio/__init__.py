"""Reading inputs and writing outputs without ever losing what the user had.

* :mod:`~schedcc.fileio.reading`: inputs as UTF-8 text, located errors for other bytes.
* :mod:`~schedcc.fileio.paths`: what an output path names (a regular file, an
  open descriptor such as standard output, a device or FIFO) and what is refused.
* :mod:`~schedcc.fileio.transaction`: one transaction per run; outputs staged,
  messages about them held back until the commit.
* :mod:`~schedcc.fileio.commit`: the commit (staged files, then what cannot be
  undone, then every file swapped into place with signals blocked).
* :mod:`~schedcc.fileio.signals`: terminating signals during a transaction.

docs/cli.md ("Files") states the guarantees.
"""

from schedcc.fileio.paths import STDOUT, Dest
from schedcc.fileio.reading import decode_text, read_bytes, read_input
from schedcc.fileio.signals import Interrupted
from schedcc.fileio.transaction import (Transaction, announce, check_output, check_outputs, is_standard_output,
                                        note_input, transaction, write_output)

__all__ = ["STDOUT", "Dest", "Interrupted", "Transaction", "announce", "check_output", "check_outputs",
           "decode_text", "is_standard_output", "note_input", "read_bytes", "read_input", "transaction", "write_output"]
