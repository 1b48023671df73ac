"""References from memories to code: extraction, the workspace code index, git history."""
