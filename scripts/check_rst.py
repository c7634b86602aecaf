#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Documentation must parse as reStructuredText: a malformed table or broken
markup is an error (docutils level ERROR or worse). Roles and directives of
the kernel's Sphinx set-up (kernel-doc, ...) are unknown to plain docutils
and are not errors here.

Usage: check_rst.py FILE.rst...
"""
import io
import sys
import warnings

import docutils.frontend
import docutils.parsers.rst
import docutils.utils

SPHINX_ONLY = ("Unknown interpreted text role", "Unknown directive type",
               "No role entry", "No directive entry")


def errors(path):
    found = []

    def observer(msg):
        text = msg.astext()
        if msg["level"] >= docutils.utils.Reporter.ERROR_LEVEL and \
                not any(s in text for s in SPHINX_ONLY):
            found.append(text)

    with open(path, encoding="utf-8") as f:
        src = f.read()
    settings = docutils.frontend.OptionParser(
        components=(docutils.parsers.rst.Parser,)).get_default_values()
    settings.report_level = 5
    settings.halt_level = 5
    settings.warning_stream = io.StringIO()
    doc = docutils.utils.new_document(path, settings)
    doc.reporter.attach_observer(observer)
    docutils.parsers.rst.Parser().parse(src, doc)
    return found


def main(paths):
    bad = []
    for p in paths:
        bad += errors(p)
    for line in bad:
        print(line)
    print(f"lint: reStructuredText of {len(paths)} documents: "
          f"{'clean' if not bad else 'NOT clean'}")
    return 1 if bad else 0


if __name__ == "__main__":
    warnings.simplefilter("ignore", DeprecationWarning)  # OptionParser
    sys.exit(main(sys.argv[1:]))
