"""Coverage-guided fuzzing of the query path: ``Index.search`` and ``find_symbol``.

Any exception but ``SleuthError`` is a finding (a garbage query must get a clear
message, never a traceback). Needs atheris, which sleuth does not depend on: run it in
a venv of its own with sleuth installed (bench/README.md, "Fuzzing").

    python bench/fuzz/fuzz_search.py /tmp/fuzz-corpus -max_total_time=600
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from sleuth import Index
    from sleuth.errors import SleuthError

MODES = ["hybrid", "lexical", "semantic"]
FILES = {
    "src/app.py": "class Config:\n    def load(self, path):\n        return open(path).read()\n\n"
    "def parse_config(text):\n    '''Parse key=value lines.'''\n"
    "    return dict(x.split('=') for x in text.splitlines())\n",
    "src/lib.rs": "pub use http::{StatusCode, Method};\n"
    "pub struct Router { routes: Vec<String> }\n"
    "impl Router { pub fn new() -> Self { Router { routes: vec![] } } }\n",
    "README.md": "# Demo\n\nRetries failed uploads with backoff.\n",
    "tests/test_app.py": "def test_parse():\n    assert parse_config('a=1') == {'a': '1'}\n",
}


def build_index() -> Index:
    root = Path(tempfile.mkdtemp(prefix="sleuth-fuzz-"))
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    index = Index(root)
    index.index(embed="deep")
    return index


INDEX = build_index()


def one(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    mode = MODES[fdp.ConsumeIntInRange(0, 2)]
    k = fdp.ConsumeIntInRange(1, 60)
    which = fdp.ConsumeIntInRange(0, 2)
    query = fdp.ConsumeUnicodeNoSurrogates(200)
    try:
        if which == 0:
            INDEX.search(query, k=k, mode=mode)
        elif which == 1:
            INDEX.find_symbol(query)
        else:
            INDEX.search(f"symbol:{query} path:{query[:5]} {query}", k=k, mode=mode)
    except SleuthError:
        pass


if __name__ == "__main__":
    atheris.Setup(sys.argv, one)
    atheris.Fuzz()
