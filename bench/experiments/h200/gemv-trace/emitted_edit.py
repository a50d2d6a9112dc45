"""Experiment helper (session 38, not product code) of the make_*_variant.py
tools: text edits of an emitted kernel that must each find their anchor."""
import sys


def replace_once(src, old, new, tool):
    """src with its one occurrence of `old` replaced by `new`; exits naming
    `tool` when `old` is not there exactly once (the emitter's text moved)."""
    n = src.count(old)
    if n != 1:
        sys.exit(f"{tool}: expected one {old!r}, found {n}")
    return src.replace(old, new)
