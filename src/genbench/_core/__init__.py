"""The bottom layer: the exceptions, the shared vocabulary of task types and splits, atomic file writing.

Every other package may import it; it imports no other genbench package (see docs/architecture.md).
"""
