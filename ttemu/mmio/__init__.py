"""Memory-mapped devices of a tile and the router that finds them."""

from .router import Device, Router, RegisterBank

__all__ = ["Device", "Router", "RegisterBank"]
