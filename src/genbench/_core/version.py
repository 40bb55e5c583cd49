"""genbench's version, importable without importing the package root's lazy exports."""

VERSION = "0.1.0"
