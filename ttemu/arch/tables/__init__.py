"""Generated per-arch tables (see scripts/)."""
