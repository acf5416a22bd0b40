"""What the compiler's checks in this folder share: compiling a TPC-C source with tpc-clang and reading
its disassembly, running the object on tpc-sim or on the native reference (tpc-sim --native), and
printing each check's outcome with a count of the failures for the exit status."""
import os
import subprocess
import sys


def run(cmd):
    """The command's standard output; the check ends (failing) when the command does."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.exit("FAIL %s:\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
    return p.stdout


class KernelChecks:
    def __init__(self, bin_dir, tmp):
        self.bin_dir, self.tmp, self.failures = os.path.abspath(bin_dir), tmp, 0

    def tool(self, name):
        return os.path.join(self.bin_dir, name)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def compile(self, source, flags=("-O2", "-march=gaudi2")):
        """The object compiled from `source`, and its disassembly."""
        src, obj = self.path("k.c"), self.path("k.o")
        with open(src, "w") as f:
            f.write(source)
        run([self.tool("tpc-clang")] + list(flags) + [src, "-c", "-o", obj])
        return obj, run([self.tool("tpc-objdump"), "-d", obj])

    def simulate(self, obj, args, native=False):
        """tpc-sim's report (its first line: cycles of the slowest core)."""
        return run([self.tool("tpc-sim"), obj] + list(args) + (["--native"] if native else []))

    def check(self, ok, what):
        self.failures += not ok
        print("%s %s" % ("ok  " if ok else "FAIL", what))

    def finish(self):
        print("%d failed" % self.failures)
        return 1 if self.failures else 0
