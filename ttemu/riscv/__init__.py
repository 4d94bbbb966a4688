"""The RV32IM (+Zicsr, FENCE) cores of a tile: state, block translator, disassembly."""
