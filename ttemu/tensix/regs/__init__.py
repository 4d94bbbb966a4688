"""Backend state shared by several units: configuration, GPRs, ADCs, RWCs, Dst,
SrcA/SrcB. Each is a small class; the coprocessor owns one of each."""
