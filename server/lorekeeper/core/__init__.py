"""The vocabulary every layer speaks: entries, refs, findings (:mod:`.model`), the registry of finding
kinds (:mod:`.kinds`), text normalisation, bounded views of untrusted data, quoting memory into rendered
documents, and the settings as frozen values (:mod:`.settings`).

Invariant: imports nothing else of Lorekeeper's, does no I/O, and holds no state."""
