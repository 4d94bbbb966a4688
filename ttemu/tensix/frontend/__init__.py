"""The per-thread Tensix frontend: instruction FIFO -> MOP expander -> replay
expander -> wait gate (tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/README.md,
"Frontend"). Run synchronously: a pushed word flows through every stage inside the
step of the core that pushed it, until the gate holds something."""
