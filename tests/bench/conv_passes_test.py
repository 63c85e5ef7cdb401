"""bench/conv_passes.py: each pass's oneDNN kernel read from ONEDNN_VERBOSE's lines."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import conv_passes  # noqa: E402

# Lines in the form oneDNN printed them on a Xeon with avx512_fp16, fields shortened:
# an info line first, a reorder before a convolution, and a second convolution after the first.
VERBOSE = """onednn_verbose,v1,info,cpu,isa:Intel AVX-512 with float16, Intel DL Boost and bfloat16 support
PASS 3->32 at 32x32|float16|forward
onednn_verbose,v1,primitive,exec,cpu,reorder,jit:uni,undef,src:f16::blocked:abcd::f0,,32x3x32x32,0.2
onednn_verbose,v1,primitive,exec,cpu,convolution,brg_conv_fwd:avx10_1_512,forward_training,src:f16,,mb32,0.8
PASS 3->32 at 32x32|float16|grad weight
onednn_verbose,v1,primitive,exec,cpu,convolution,ref:any,backward_weights,src:f16,,mb32,180.3
onednn_verbose,v1,primitive,exec,cpu,convolution,jit:avx512_core,backward_weights,src:f16,,mb32,1.0
PASS 3->32 at 32x32|float32|forward
"""


class ConvPassesTest(unittest.TestCase):
    def test_each_pass_gets_the_first_convolution_after_its_marker(self) -> None:
        kernels = conv_passes.kernels_by_pass(VERBOSE)
        self.assertEqual(kernels["3->32 at 32x32|float16|forward"], "brg_conv_fwd:avx10_1_512")
        self.assertEqual(kernels["3->32 at 32x32|float16|grad weight"], "ref:any")
        # A pass that printed no convolution ran outside oneDNN: it has no entry.
        self.assertNotIn("3->32 at 32x32|float32|forward", kernels)


if __name__ == "__main__":
    unittest.main()
