"""The Tensix coprocessor: frontend (per-thread FIFO, MOP and replay expanders,
wait gate) and backend units."""
