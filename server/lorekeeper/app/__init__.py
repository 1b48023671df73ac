"""One function per use-case (check, compact, the edits, status, context): what every surface calls.
Each returns plain data (dicts, dataclasses, findings) that a surface renders its own way.

Invariant: a use-case is written once, here; surfaces only translate arguments and render results."""
