"""docs/ttsim-differences.md lists every known ttemu / ttsim difference with the test that
pins it: each class name is unique, and each test it names (``tests/FILE.py `NAME` ``)
exists (a function ``NAME`` or a table ``NAME =`` in that file)."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "ttsim-differences.md"


def test_classes_are_unique_and_their_pinning_tests_exist():
    rows = [line for line in DOC.read_text().splitlines() if line.startswith("| `")]
    names = [re.match(r"\| `([a-z0-9-]+)`", line).group(1) for line in rows]
    assert len(names) == len(set(names)) >= 15
    cited = [(f, n) for line in rows for f, n in re.findall(r"tests/(\w+\.py) `(\w+)`", line)]
    assert len(cited) >= 10
    for file, name in cited:
        text = (ROOT / "tests" / file).read_text()
        assert re.search(rf"^(def {name}\(|{name} = )", text, re.M), (file, name)
