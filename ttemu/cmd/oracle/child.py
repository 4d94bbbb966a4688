"""Child process of :func:`ttemu.cmd.oracle.ttsim.run_ttsim`: ``python -m ttemu.cmd.oracle.child
LIB PLAN.json RESULT.json``. ttsim may print an ERROR line and exit(1) at any point."""

import json
import sys

from .plan import Plan
from .ttsim import execute


def main(argv):
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
