#!/usr/bin/env python3
"""Checks how the list scheduler orders local-memory accesses, from the disassembly and by running the
kernel on tpc-sim and on the native reference (tpc-sim --native), which must agree bit for bit:

- accesses to a local array at constant addresses that cannot overlap do not wait for each other: four
  values loaded from one array, each put through a long chain and stored into another, overlap (every
  load of the first array is issued before the first store into the second), as the kernel library's
  batched rows need;
- accesses that may overlap keep their order: a vector store and a load of the same address, a scalar
  store and a load of a byte inside the stored word, and stores and loads at addresses computed at run
  time.

usage: check_local_memory_schedule.py BUILD/bin
"""
import os
import re
import sys
import tempfile

from kernel_checks import KernelChecks

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples"))
from run_samples import read_npy, write_npy  # noqa: E402  (the samples' .npy helpers)

SOURCE = r"""
__local__ float64 in_[4], out_[4];

void main(tensor x, tensor y, tensor z, int k, int n)
{
    int5 c = 0;
    for (int b = 0; b < n; b++) {      // n = 4, not known here: in_ is in local memory
        c[1] = b;
        in_[b] = v_f32_ld_tnsr_b(c, x);
    }
#pragma unroll
    for (int b = 0; b < 4; b++)        // constant addresses: the four chains may overlap
        out_[b] = v_f32_reduce_add(in_[b]) * 0.5f;
    for (int b = 0; b < n; b++) {
        c[1] = b;
        v_f32_st_tnsr(c, y, out_[b]);
    }
    // May overlap, so must stay in order.
    float64 v = in_[0];
    in_[1] = v + 1.0f;
    in_[(k & 1) + 1] = v + 2.0f;       // run-time address: in_[1] or in_[2]
    s_i32_st_l(8, k);
    const int low = s_u8_ld_l(8);       // the stored word's lowest byte
    c[1] = 0;
    v_f32_st_tnsr(c, z, in_[1] + (float)low);
    c[1] = 1;
    v_f32_st_tnsr(c, z, in_[2]);
}
"""


def main():
    with tempfile.TemporaryDirectory() as tmp:
        k = KernelChecks(sys.argv[1], tmp)
        obj, text = k.compile(SOURCE)
        # The unrolled block: loads of in_ at constant addresses 0..768, stores into out_ at 1024..1792.
        loads = [i for i, l in enumerate(text.splitlines()) if re.search(r"ld_l_v\.f32 v\d+, (0|256|512|768)\b", l)]
        stores = [i for i, l in enumerate(text.splitlines()) if re.search(r"st_l_v\.f32 (1024|1280|1536|1792),", l)]
        k.check(len(loads) >= 4 and len(stores) == 4 and max(loads[:4]) < min(stores),
                "the four chains overlap (loads of in_ at lines %s, stores into out_ at %s)" % (loads[:4], stores))

        x = [float((i * 37) % 101) / 8.0 - 3.0 for i in range(64 * 4)]
        write_npy(k.path("x.npy"), "<f4", (4, 64), x)
        outputs = {}
        for mode in ("sim", "native"):
            y, z = k.path("y_%s.npy" % mode), k.path("z_%s.npy" % mode)
            for kk in (5, 6):
                k.simulate(obj, ["--cores", "1", "--index-space", "1,1,1,1,1", "-t", k.path("x.npy"), y + "=f32[4,64]",
                                 z + "=f32[2,64]", "-s", str(kk), "-s", "4"], native=mode == "native")
                outputs[(mode, kk)] = (open(y, "rb").read(), read_npy(z))
        for kk in (5, 6):
            k.check(outputs[("sim", kk)] == outputs[("native", kk)], "k=%d: simulator and native reference agree" % kk)
            # The ordered part, against values computed here: z[0] = in_[1] + the low byte of k, z[1] =
            # in_[2] (v + 2 where k is odd, else x's row 2).
            _, zs = outputs[("sim", kk)][1]
            v0, row2 = x[:64], x[128:192]
            want1 = [v + (2.0 if kk % 2 == 0 else 1.0) + (kk & 0xff) for v in v0]
            want2 = [v + 2.0 for v in v0] if kk % 2 else row2
            ok1 = all(abs(a - b) < 1e-6 for a, b in zip(zs[:64], want1))
            ok2 = all(abs(a - b) < 1e-6 for a, b in zip(zs[64:], want2))
            k.check(ok1 and ok2, "k=%d: overlapping local accesses keep their order" % kk)
        return k.finish()


if __name__ == "__main__":
    sys.exit(main())
