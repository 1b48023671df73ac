"""The outside world, made safe: every file read and write (:mod:`.safeio`), caches, git calls, token
counts, forked workers, the user's own settings and key.

Invariant: knows nothing of memory, entries or facts; imports only :mod:`lorekeeper.core`."""
