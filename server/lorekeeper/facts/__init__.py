"""The one judge of "same fact" and "same subject": the verifier's parse of a memory into its literals
(:mod:`.verify`), updates written in other words (:mod:`.updates`), the roles of named tools
(:mod:`.vocabulary`), and the guard that decides when an embedding may vouch for two texts
(:mod:`.semantic_guard`). Every stage that merges, fuses or calls two memories a conflict asks here.

Invariant: pure functions of text (with caches of their answers); never reads the store or the code."""
