"""A whole Tenstorrent chip around ttemu's tiles, as a host driver reaches it over PCIe:
the model behind ``ttemu simlib``'s ttsim-ABI library (docs/simlib.md).

``chip`` (nodes, tiles on first touch, clocks), ``pcie`` (configuration space, BARs, TLB
windows), ``host`` (what the library's C shim calls), ``build`` (the command that
compiles ``simlib.c``), ``soc_descriptor`` (the descriptor tt-umd reads).
"""
