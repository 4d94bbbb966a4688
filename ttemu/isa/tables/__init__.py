"""Generated Tensix instruction tables (scripts/gen_isa.py); loaded by ttemu.isa.table."""
