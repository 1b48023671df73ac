"""What each agent documents about the instruction files it loads, with the source of every rule. The
code in :mod:`.roles` follows this table; docs/agents.md prints it. Where an agent documents nothing,
the entry says so rather than guessing (``undocumented``)."""

from __future__ import annotations

from dataclasses import dataclass

CLAUDE_DOCS = "https://code.claude.com/docs/en/memory"
CODEX_DOCS = "https://developers.openai.com/codex/guides/agents-md"
CODEX_CODE = "https://github.com/openai/codex/blob/0cf644af40f76ffdfbac134b4b17aca78e8dcef5/codex-rs/core/src/agents_md.rs"
COPILOT_DOCS = "https://code.visualstudio.com/docs/copilot/customization/custom-instructions"
CURSOR_DOCS = "https://www.cursor.com/docs/rules"
GEMINI_DOCS = "https://github.com/google-gemini/gemini-cli/blob/5411f113cafae26161b4969b0237b8e1e024e2c2/docs/cli/gemini-md.md"
GEMINI_IMPORTS = "https://github.com/google-gemini/gemini-cli/blob/5411f113cafae26161b4969b0237b8e1e024e2c2/docs/reference/memport.md"
WINDSURF_DOCS = "https://docs.windsurf.com/windsurf/cascade/memories"
WINDSURF_AGENTS = "https://docs.windsurf.com/windsurf/cascade/agents-md"
KIRO_DOCS = "https://kiro.dev/docs/steering/"
CLINE_DOCS = "https://github.com/cline/cline/blob/21cb8d2525bcedf1f4b6890b27a74a14fe7451e4/docs/customization/cline-rules.mdx"
CONTINUE_DOCS = ("https://github.com/continuedev/continue/blob/d0a3c0b626b5bebc3bef4742eec05a0242be0bab/docs/customize/"
                 "deep-dives/rules.mdx")
CONTINUE_CODE = ("https://github.com/continuedev/continue/blob/d0a3c0b626b5bebc3bef4742eec05a0242be0bab/core/config/"
                 "markdown/loadMarkdownRules.ts")


@dataclass(frozen=True)
class Cap:
    """A size limit: ``per`` is ``file`` (each file on its own) or ``total`` (the files loaded together)."""

    limit: int
    unit: str  # bytes | chars
    per: str  # file | total
    past: str  # what happens past it ("a larger file is skipped whole", "past it the rest is cut off")
    source: str
    #: Only files whose path holds this (Windsurf's limit is documented for its rule files).
    only: str = ""

    def covers(self, path: str) -> bool:
        return not self.only or self.only in "/" + path

    def describe(self) -> str:
        size = f"{self.limit // 1024} KiB" if self.unit == "bytes" and self.limit % 1024 == 0 else f"{self.limit:,} {self.unit}"
        if self.limit >= 1024 * 1024 and self.unit == "bytes":
            size = f"{self.limit // (1024 * 1024)} MiB"
        scope = "a file" if self.per == "file" else "all files together"
        return f"{size} {scope}; {self.past}"


@dataclass(frozen=True)
class Agent:
    id: str
    name: str
    #: How it orders the files it loads, and which wins when they disagree.
    order: str
    order_source: str
    caps: tuple[Cap, ...] = ()
    #: What its documentation does not say, stated so in every answer.
    undocumented: tuple[str, ...] = ()
    #: ``@path`` (Claude Code, Gemini CLI) or ``#[[file:path]]`` (Kiro) imports, and how deep they go.
    imports: str = ""
    import_depth: int = 0
    import_source: str = ""


AGENTS: dict[str, Agent] = {a.id: a for a in [
    Agent("claude", "Claude Code",
          "broadest first: the repository's CLAUDE.md (then .claude/CLAUDE.md, .claude/rules, CLAUDE.local.md), then "
          "each folder's on the way to the file; nothing overrides, all are joined, and Claude may pick either of "
          "two that disagree", CLAUDE_DOCS + "#how-claude-md-files-load",
          caps=(Cap(4 * 1024 * 1024, "bytes", "file", "a larger file is skipped whole",
                    CLAUDE_DOCS + "#my-claude-md-is-too-large"),),
          undocumented=("what the `paths` globs of a rule in a nested .claude/rules folder are relative to (read here "
                        "from that folder; such a rule is for the files under it)",
                        "whether a folder's CLAUDE.md outside the folder Claude is started in loads when it reads a "
                        "file there"),
          imports="at", import_depth=4, import_source=CLAUDE_DOCS + "#import-additional-files"),
    Agent("codex", "Codex",
          "from the repository root down to the folder Codex is started in, one file a folder (AGENTS.override.md "
          "before AGENTS.md), joined; a deeper file wins only by coming later", CODEX_DOCS,
          caps=(Cap(32 * 1024, "bytes", "total", "past it the rest is cut off, and only Codex's log says so (project_doc_max_bytes)", CODEX_CODE),)),
    Agent("copilot", "GitHub Copilot (VS Code)",
          "all applicable files are combined in no guaranteed order; personal instructions win over the repository's",
          COPILOT_DOCS + "#instruction-priority",
          undocumented=("a size limit for instruction files",
                        "Markdown links to other files are followed with chat.includeReferencedInstructions; they are "
                        "not followed here")),
    Agent("cursor", "Cursor",
          "applied rules go first in the model's context; the order among project rules is not documented",
          CURSOR_DOCS,
          undocumented=("the order among project rules", "whether AGENTS.md files in subfolders are read",
                        "what the globs of a rule in a nested .cursor/rules folder are relative to (read here from "
                        "that folder; such a rule is for the files under it)",
                        "how far @file mentions in a rule are followed (they attach the file; not followed here)",
                        "a size limit (the docs advise under 500 lines a rule)")),
    Agent("gemini", "Gemini CLI",
          "the global file, then the repository's GEMINI.md files from the root down (a folder's when a tool first "
          "touches a file there), joined; more specific files supplement or override", GEMINI_DOCS,
          undocumented=("a size limit",), imports="at", import_depth=5, import_source=GEMINI_IMPORTS),
    Agent("windsurf", "Windsurf",
          "rules are combined; the order among them is not documented", WINDSURF_DOCS,
          caps=(Cap(12_000, "chars", "file", "past it the rest is cut off", WINDSURF_DOCS, only="/.windsurf/rules/"),),
          undocumented=("the order among rules", "what the globs of a rule in a nested .windsurf/rules folder are "
                        "relative to (read here from that folder)", "whether the 12,000-character limit applies to "
                        "AGENTS.md (applied here to .windsurf/rules files only)", "the front matter key names (taken from the files Windsurf writes: trigger, "
                        "globs, description)")),
    Agent("kiro", "Kiro",
          "steering files are combined; the workspace's win over global ones; their order is not documented",
          KIRO_DOCS, undocumented=("the order among steering files", "a size limit",
                                   "what fileMatchPattern is relative to (read here from the root)",
                                   "whether steering folders below the root are read",
                                   "how deep #[[file:…]] references are followed (one level here)"),
          imports="kiro", import_depth=1, import_source=KIRO_DOCS),
    Agent("cline", "Cline",
          "workspace and global rules are combined; workspace rules win when they disagree", CLINE_DOCS,
          undocumented=("a size limit", "whether .cursorrules, .windsurfrules and AGENTS.md are on before you "
                        "toggle them in the rules panel")),
    Agent("continue", "Continue",
          ".continue/rules files in name order (use 01- prefixes), joined", CONTINUE_DOCS,
          undocumented=("a size limit", "what globs are relative to")),
]}


def agent_ids() -> list[str]:
    return list(AGENTS)
