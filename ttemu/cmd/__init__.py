"""The command layer: click commands (``cli``), option parsing (``options``), one run
(``session``), manifests, expected-output checks, reports and trace comparison.
It depends on the model (``ttemu.tile`` and below); nothing in the model imports it."""
