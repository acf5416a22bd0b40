#!/usr/bin/env python3
"""Runs tpc-clang on every file of bad/ and checks the contract for bad input: exit status 1, a first
diagnostic of the form FILE:LINE:COL: error: containing what the file's '// expect: ' line says (which may
start with LINE:COL), no output file, no crash and no hang.

usage: check_bad_sources.py TPC_CLANG
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    compiler = sys.argv[1]
    passed = failed = 0
    for name in sorted(os.listdir(os.path.join(HERE, "bad"))):
        src = os.path.join(HERE, "bad", name)
        first = open(src, "rb").readline().decode("latin1").strip()
        if not first.startswith("// expect: "):
            print("FAIL %s: first line must be '// expect: ...'" % name)
            failed += 1
            continue
        expect = first[len("// expect: "):]
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "k.o")
            try:
                p = subprocess.run([compiler, "-c", src, "-o", out], capture_output=True, timeout=60)
            except subprocess.TimeoutExpired:
                print("FAIL %s: tpc-clang hung" % name)
                failed += 1
                continue
            err = p.stderr.decode("utf-8", "replace")
            diag = re.search(r"^(.*?):(\d+):(\d+): error: (.*)$", err, re.M)
            problems = []
            if p.returncode != 1:
                problems.append("exit status %d, expected 1" % p.returncode)
            if os.path.exists(out):
                problems.append("an output file was written")
            if not diag:
                problems.append("no FILE:LINE:COL: error: diagnostic")
            else:
                where = "%s:%s: error: %s" % (diag.group(2), diag.group(3), diag.group(4))
                if not diag.group(1).endswith(name):
                    problems.append("the diagnostic names %r, not the source" % diag.group(1))
                if expect not in where:
                    problems.append("first error %r does not contain %r" % (where, expect))
            if problems:
                print("FAIL %s: %s\n%s" % (name, "; ".join(problems), err[:600]))
                failed += 1
            else:
                print("ok   %s" % name)
                passed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
