import os
import sys

# A process of its own: numpy's BLAS needs no thread pool (ttemu's datapaths do not call
# BLAS; only a manifest's float64 reference may, on small matrices). Starting one thread
# per CPU costs about 40 ms of CPU time at ``import numpy``. A value the user set wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .cmd.cli import main  # noqa: E402

sys.exit(main())
