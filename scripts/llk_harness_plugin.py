"""A pytest plugin scripts/llk_harness.py loads into tt-llk's harness session (``-p
llk_harness_plugin``): each test's start and outcome go to the JSON-lines file named by
``LLK_HARNESS_EVENTS`` as they happen, so the runner knows which test was running when a
simulator library ended the process (ttsim and ttemu end it on a refusal) and what the
tests before it did."""

import json
import os

_PATH = os.environ.get("LLK_HARNESS_EVENTS")


def _write(**event):
    if _PATH:
        with open(_PATH, "a") as f:
            f.write(json.dumps(event) + "\n")
            f.flush()
            os.fsync(f.fileno())


def pytest_runtest_logstart(nodeid, location):
    _write(node=nodeid, event="start")


def pytest_runtest_logreport(report):
    why = ""
    if report.outcome != "passed":
        why = str(report.longrepr[2]) if report.skipped and isinstance(report.longrepr, tuple) else str(
            report.longrepr or "")
    _write(node=report.nodeid, event=report.when, outcome=report.outcome, seconds=report.duration, why=why[-2000:])
