"""Lorekeeper: keeps the memory of AI coding agents true and small."""

__version__ = "0.1.0"
