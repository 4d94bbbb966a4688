"""A GDB Remote Serial Protocol server for a tile's cores (``ttemu run --gdb PORT``):
``packets`` (framing), ``server`` (the protocol against ``ttemu.debug``), ``target``
(registers, memory, target description), ``monitor`` (Tensix state as the dumps
render it)."""

from .server import GdbError, GdbServer, listen

__all__ = ["GdbError", "GdbServer", "listen"]
