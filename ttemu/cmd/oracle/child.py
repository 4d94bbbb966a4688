"""Child process of :func:`ttemu.cmd.oracle.ttsim.run_ttsim`: ``python -m ttemu.cmd.oracle.child
LIB PLAN.json RESULT.json``. ttsim may print an ERROR line and exit(1) at any point.
``python -m ttemu.cmd.oracle.child --probe LIB`` prints ``device 0x<PCI id>`` (config
space offset 0: device << 16 | vendor), which says the chip the library simulates."""

import json
import sys

from .plan import Plan
from .ttsim import execute


def probe(lib_path):
    import ctypes

    lib = ctypes.CDLL(lib_path)
    lib.libttsim_pci_config_rd32.restype = ctypes.c_uint32
    lib.libttsim_pci_config_rd32.argtypes = [ctypes.c_uint32, ctypes.c_uint32]
    lib.libttsim_init()
    print(f"device 0x{lib.libttsim_pci_config_rd32(0, 0):08x}", flush=True)


def main(argv):
    if argv[0] == "--probe":
        return probe(argv[1])
    lib, plan_path, out_path = argv
    with open(plan_path) as f:
        plan = Plan.from_json(json.load(f))
    res = execute(lib, plan)
    with open(out_path, "w") as f:
        json.dump({"completed": res.completed, "clocks": res.clocks,
                   "regions": [r.hex() for r in res.regions]}, f)
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
