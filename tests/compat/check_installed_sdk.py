#!/usr/bin/env python3
"""Installs the SDK into a temporary prefix and uses it from outside, as a kernel author would:
- the layout of DESIGN.md section 3 (tools, tpc-llvm-objdump, libraries, headers, lib/cmake/TpcSdk);
- every host header compiles alone with g++ -std=c++11 -Wall -Werror;
- tpc-clang FILE.c -c without -o writes FILE.o in the current directory, and tpc-llvm-objdump accepts the
  vendor's disassembler command line (one bundle a line, no addresses);
- find_package(TpcSdk) works (tests/compat/installed), samples/custom-kernel builds and its test passes, and
  samples/kernel-lib (a graph compiler dlopening the installed libtpc_kernels.so) builds and runs softmax.

usage: check_installed_sdk.py BUILD_DIR SOURCE_DIR
"""
import os
import re
import subprocess
import sys
import tempfile


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def main():
    build, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "sdk")
        p = run(["cmake", "--install", build, "--prefix", prefix])
        if p.returncode:
            print("FAIL cmake --install: " + p.stderr[-2000:])
            return 1
        for rel in ["bin/tpc-clang", "bin/tpc-as", "bin/tpc-objdump", "bin/tpc-sim", "bin/tpc-llvm-objdump",
                    "lib/libtpcsim_shared.so", "lib/libTpcElfReader.so", "lib/libtpc_tests_core_ext.so",
                    "lib/cmake/TpcSdk/TpcSdkConfig.cmake", "include/tpc_kernel_lib_interface.h",
                    "include/gc_interface.h", "include/tpc_test_core_types.h", "include/tpc_test_core_api.h",
                    "include/tpc-defs.h", "include/tpc-intrinsics.h", "include/tpc-special.h",
                    "lib/libtpc_kernels.so", "include/tpc_kernels/params.h", "include/tpc_kernels/library.h",
                    "bin/tpc-kernels"]:
            if not os.path.exists(os.path.join(prefix, rel)):
                failures.append("missing " + rel)

        for h in ["tpc_kernel_lib_interface.h", "gc_interface.h", "tpc_test_core_types.h", "tpc_test_core_api.h",
                  "tpc_kernels/params.h"]:
            src = os.path.join(tmp, "h.cpp")
            open(src, "w").write('#include "%s"\nint main() { return 0; }\n' % h)
            p = run(["g++", "-std=c++11", "-Wall", "-Wextra", "-Werror", "-I", os.path.join(prefix, "include"), src,
                     "-o", os.path.join(tmp, "h")])
            if p.returncode:
                failures.append("%s under g++ -std=c++11 -Wall -Werror: %s" % (h, p.stderr[:500]))

        work = os.path.join(tmp, "work")
        os.makedirs(work)
        kernel = os.path.join(source, "samples", "custom-kernel", "kernels", "scale_f32.c")
        p = run([os.path.join(prefix, "bin", "tpc-clang"), "-Wall", "-Werror", "-march=gaudi2", "-O2", "-I",
                 os.path.join(prefix, "include"), kernel, "-c"], cwd=work)
        obj = os.path.join(work, "scale_f32.o")
        if p.returncode or not os.path.exists(obj):
            failures.append("tpc-clang without -o: exit %d, %s" % (p.returncode, p.stderr[:300]))
        else:
            p = run([os.path.join(prefix, "bin", "tpc-llvm-objdump"), "--triple", "tpc", "-d", "-j", ".text",
                     "--no-show-raw-insn", "--no-leading-addr", "--mcpu=gaudi2", obj])
            lines = p.stdout.splitlines()
            if p.returncode or not lines or any(l.count(";") != 3 or re.match(r"\s*0x", l) for l in lines):
                failures.append("tpc-llvm-objdump with the vendor's command line: exit %d, %r" % (
                    p.returncode, (p.stdout + p.stderr)[:300]))

        for name, project, program in [("find_package", os.path.join(source, "tests", "compat", "installed"),
                                         "link_check"),
                                        ("sample", os.path.join(source, "samples", "custom-kernel"),
                                         "scale_f32_test"),
                                        ("kernel-lib", os.path.join(source, "samples", "kernel-lib"),
                                         "softmax_dlopen")]:
            b = os.path.join(tmp, "build-" + name)
            p = run(["cmake", "-S", project, "-B", b, "-DCMAKE_PREFIX_PATH=" + prefix])
            if p.returncode == 0:
                p = run(["cmake", "--build", b])
            if p.returncode:
                failures.append("%s project: %s" % (name, (p.stdout + p.stderr)[-1500:]))
                continue
            p = run([os.path.join(b, program)], timeout=300)
            print(p.stdout.strip())
            if p.returncode:
                failures.append("%s: %s exited %d: %s" % (name, program, p.returncode, (p.stdout + p.stderr)[-800:]))

    for f in failures:
        print("FAIL " + f)
    print("installed SDK: %s" % ("FAILED" if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
