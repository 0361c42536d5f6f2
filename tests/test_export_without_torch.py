"""Running and measuring the exported graph needs no PyTorch (onnxruntime, tokenizers and numpy
only), so a notebook or another package can use export/heads.py, golden.py, default_view.py and
attention_live/feeds.py in an environment without torch."""

import subprocess
import sys

from conftest import ROOT

BLOCK_TORCH = """
import sys
class NoTorch:
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ImportError("torch is not installed here")
sys.meta_path.insert(0, NoTorch())
"""


def test_the_graph_side_of_export_imports_without_torch():
    code = BLOCK_TORCH + """
import numpy as np
from export import default_view, golden, head_scores, heads
from attention_live.feeds import graph_feeds
from attention_live.feeds import session_for
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_the_blocker_does_block_torch():
    proc = subprocess.run([sys.executable, "-c", BLOCK_TORCH + "import export.to_onnx"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "torch is not installed here" in proc.stderr
