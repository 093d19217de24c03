"""The installed distribution's version (its metadata, as pip and ``--version`` show)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__: str = version("scrapy_rep")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"
