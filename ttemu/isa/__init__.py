"""Tensix instruction tables (generated per arch) and their runtime wrapper."""
