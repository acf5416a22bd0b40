#!/usr/bin/env python3
"""Fails when a generated section of a document differs from what its generator prints now.

usage: check_generated_docs.py DOC.md TOOL [ARGS...]
The section lies between '<!-- BEGIN GENERATED: ... -->' and '<!-- END GENERATED -->', optionally inside a
code block (its fence lines are not compared).
"""
import subprocess
import sys


def main():
    doc, cmd = sys.argv[1], sys.argv[2:]
    text = open(doc).read()
    begin = text.index("<!-- BEGIN GENERATED")
    begin = text.index("\n", begin) + 1
    end = text.index("<!-- END GENERATED -->")
    want = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    section = text[begin:end]
    if section.startswith("```"):  # a generated listing inside a code block
        section = section[section.index("\n") + 1:section.rstrip("\n").rindex("\n") + 1]
    if section != want:
        print("%s: the generated section is out of date; regenerate it with: %s" % (doc, " ".join(cmd)))
        return 1
    print("%s: generated section up to date" % doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
