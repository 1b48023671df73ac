"""Truth of the store memory-bank-nftbk (0xmichalis/nftbk at 74078042e79c, the last commit holding
.clinerules, .cursorrules and memory-bank/ together). Written by reading the files, before running
Lorekeeper on the store. .cursorrules is a symlink to .clinerules: its facts are located at .clinerules."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from truthlib import Store, cli  # noqa: E402

STORE = "memory-bank-nftbk"
CR, AC, PR, PB, PC, SP, TC = (".clinerules", "memory-bank/activeContext.md", "memory-bank/progress.md",
    "memory-bank/projectbrief.md", "memory-bank/productContext.md", "memory-bank/systemPatterns.md",
    "memory-bank/techContext.md")

# (fact text, kind, literals that must survive, [(file, needle), ...])
# kind: identical = same sentence after case/markdown/✅⬜/list markers; near = same words but a label,
# an inflection or one function word; paraphrase = same fact in other words.
G = [
 ("IPFS gateway rotation and fallbacks are planned", "identical", ["gateway rotation"],
  [(AC, "   - IPFS gateway rotation and fallbacks"), (PR, "⬜ IPFS gateway rotation and fallbacks")]),
 ("IPFS gateway rotation / fallbacks (other wordings)", "paraphrase", ["gateway rotation"],
  [(AC, "   - IPFS gateway rotation and fallbacks"), (PR, "Add gateway rotation and fallbacks"),
   (TC, "Adding IPFS gateway rotation and fallbacks"), (AC, "Considering implementing gateway rotation")]),
 ("Resumable downloads for interrupted backups", "identical", ["resumable downloads"],
  [(AC, "Resumable downloads for interrupted backups"), (PR, "Resumable downloads for interrupted backups")]),
 ("Support for additional blockchains (Solana, Flow, etc.)", "identical", ["Solana", "Flow"],
  [(AC, "Support for additional blockchains (Solana"), (PR, "Support for additional blockchains (Solana")]),
 ("Additional blockchains are planned (other wordings)", "near", ["Solana"],
  [(AC, "Support for additional blockchains (Solana"), (TC, "Supporting additional blockchains (Solana"),
   (PR, "Add support for more blockchain networks")]),
 ("Incremental/differential backups", "identical", ["incremental/differential"],
  [(AC, "Incremental/differential backups"), (PR, "Incremental/differential backups")]),
 ("More detailed progress reporting", "identical", ["progress reporting"],
  [(AC, "More detailed progress reporting"), (PR, "More detailed progress reporting")]),
 ("Summary statistics after backup completion", "identical", ["summary statistics"],
  [(AC, "Summary statistics after backup completion"), (PR, "Summary statistics after backup completion")]),
 ("Metadata retrieval and storage", "identical", ["metadata retrieval"],
  [(AC, "   - Metadata retrieval and storage"), (PR, "✅ Metadata retrieval and storage")]),
 ("Controlled concurrency for token processing is planned", "near", ["concurren"],
  [(AC, "Implementing controlled concurrency for token processing"), (PR, "Implement controlled concurrency for token processing"),
   (PR, "⬜ Concurrent token processing"), (TC, "Implementing concurrent token processing for performance"),
   (AC, "Future work may introduce controlled concurrency")]),
 ("Progress tracking for long-running backups", "near", ["long-running backups"],
  [(AC, "Adding progress tracking for long-running backups"), (PR, "⬜ Progress tracking for long-running backups")]),
 ("Content verification mechanisms", "near", ["verification"],
  [(AC, "   - Content verification mechanisms"), (TC, "Adding content verification mechanisms"),
   (PR, "Content integrity verification")]),
 ("Ethereum-based chains (Ethereum, Zora, Base, Arbitrum) are supported", "near", ["Zora", "Arbitrum"],
  [(AC, "   - Ethereum-based chains (Ethereum, Zora, Base, Arbitrum)"), (PR, "Ethereum-based chain support (Ethereum"),
   (PB, "Back up NFTs from Ethereum-based chains")]),
 ("Tezos blockchain is supported", "near", ["Tezos"],
  [(AC, "   - Tezos blockchain"), (PR, "✅ Tezos blockchain support"), (PB, "Back up NFTs from Tezos blockchain")]),
 ("Ethereum-based chains and Tezos are supported (summary sentences)", "paraphrase", ["Tezos"],
  [(PR, "It can successfully back up NFTs from Ethereum-based chains and Tezos"),
   (PC, "currently supporting Ethereum-based chains and Tezos")]),
 ("Configuration is TOML", "paraphrase", ["TOML"],
  [(AC, "   - TOML-based configuration"), (PR, "✅ TOML configuration file parsing"), (PB, "Support for configuration via TOML files"),
   (CR, "- Use TOML for configuration files"), (SP, "**Configuration Format**: Using TOML"), (TC, "**toml**: Configuration file parsing")]),
 ("gallery.so integration for token extraction", "near", ["gallery.so"],
  [(AC, "Gallery.so integration for easy token extraction"), (PR, "✅ Gallery.so integration for token extraction"),
   (PB, "Integration with gallery.so for easy token extraction"), (CR, "Support both manual configuration and gallery.so integration"),
   (PR, "Added script to extract tokens from gallery.so collections"), (PC, "**Simplified Configuration**: Integration with gallery.so")]),
 ("Modular architecture with clear separation of concerns", "near", ["separation of concerns"],
  [(AC, "   - Modular architecture with clear separation of concerns"), (CR, "- Maintain the modular architecture with clear separation of concerns"),
   (SP, "nftbk follows a modular architecture organized around key responsibilities")]),
 ("Chain-specific implementations isolated in dedicated modules", "near", ["chain-specific"],
  [(AC, "   - Chain-specific implementations isolated in dedicated modules"), (CR, "- Keep chain-specific implementations isolated in dedicated modules"),
   (SP, "**Chain-Specific Implementations**: Specialized modules")]),
 ("Extensible architecture for more chains", "paraphrase", ["extensib"],
  [(PB, "Extensible architecture to potentially support additional chains"), (SP, "**Extensibility**: Architecture allows for adding new chain"),
   (PC, "with an architecture designed for extensibility")]),
 ("Retry for rate-limited API calls", "near", ["rate-limited API calls"],
  [(AC, "   - Retry mechanisms for rate-limited API calls"), (PR, "✅ Retry mechanism for rate-limited API calls"),
   (CR, "- Implement retry logic for rate-limited API calls"), (SP, "**Retry Mechanism**: Implement backoff for rate-limited API calls")]),
 ("Tokens are processed sequentially (no parallel token processing)", "paraphrase", ["sequential"],
  [(AC, "Currently, tokens are processed sequentially rather than concurrently"), (TC, "No parallel processing of multiple tokens (sequential processing only)"),
   (PR, "Current mitigation: Sequential processing and retry logic")]),
 ("ipfs.io is the default IPFS gateway", "paraphrase", ["ipfs.io"],
  [(AC, "Currently using ipfs.io as the default gateway"), (TC, "- Default gateway: ipfs.io")]),
 ("Many RPC providers and content hosts impose rate limits", "near", ["rate limits"],
  [(AC, "   - Many RPC providers and content hosts impose rate limits"), (TC, "**Rate Limiting**: Many RPC providers and content hosts impose rate limits")]),
 ("Platforms use different metadata schemas", "paraphrase", ["metadata schemas"],
  [(AC, "Different platforms use varying metadata schemas"), (TC, "**Metadata Formats**: Handling different metadata schemas across platforms")]),
 ("File types are detected by binary pattern matching", "paraphrase", ["binary"],
  [(CR, "- Use binary pattern matching to detect file types"), (SP, "**Content Type Detection**: Using binary pattern matching to detect file types"),
   (PR, "✅ Media type detection from binary content"), (PR, "Improved detection of file types from binary content"),
   (AC, "Enhanced media type detection")]),
 ("HTML content: embedded resources are extracted", "paraphrase", ["HTML"],
  [(CR, "- Handle HTML content specially to extract embedded resources"), (AC, "HTML content processing with embedded resource extraction"),
   (PR, "✅ HTML content with embedded resources"), (PB, "Process HTML content and download embedded resources"),
   (PR, "Implemented downloading of resources embedded in HTML-based NFTs")]),
 ("IPFS URLs are converted to HTTP gateway URLs", "paraphrase", ["IPFS"],
  [(CR, "- Convert IPFS URLs to HTTP gateway URLs"), (SP, "**IPFS Gateway Resolution**: Convert ipfs:// URLs to HTTP gateway URLs"),
   (PR, "✅ IPFS URL resolution"), (PB, "Support for IPFS content through gateways")]),
 ("Data URLs are decoded", "paraphrase", ["data URL"],
  [(CR, "- Handle data URLs using the is_data_url"), (SP, "**Data URL Handling**"), (PR, "✅ Data URL decoding"),
   (TC, "**base64**: Decoding base64-encoded content from data URLs")]),
 ("On errors, continue processing other tokens", "paraphrase", ["continue"],
  [(CR, "- Log errors but continue processing other tokens"), (SP, "**Graceful Degradation**: Continue processing other tokens when one fails"),
   (PR, "✅ Graceful error recovery")]),
 ("anyhow for error context", "paraphrase", ["anyhow"],
  [(CR, "- Use anyhow for error context"), (TC, "**anyhow**: Flexible error handling with context")]),
 ("Detailed error logging", "paraphrase", ["logging"],
  [(CR, "- Follow the established error handling patterns with detailed logging"), (PR, "✅ Detailed logging"),
   (SP, "**Detailed Logging**: Provide context-rich error information"), (AC, "Improved error reporting and logging")]),
 ("Secrets / API keys live in environment variables (repeated within .clinerules)", "paraphrase", ["environment variables"],
  [(CR, "- Use environment variables for secrets"), (CR, "- Keep API keys and sensitive information in environment variables")]),
 ("Content goes through the established processing pipeline", "paraphrase", ["pipeline"],
  [(CR, "- Use the established content processing pipeline for consistency"), (SP, "Content is processed through a pipeline")]),
 ("Contract-specific special-case handling (extensions)", "paraphrase", ["contract"],
  [(AC, "Special case handling for specific NFT contracts"), (SP, "**Contract-Specific Extensions**: Custom handling for specific NFT contracts"),
   (PR, "Current solution: Contract-specific extensions for known cases")]),
 ("A more flexible extension mechanism is being considered", "paraphrase", ["flexible"],
  [(AC, "Evaluating more flexible approaches for special case handling"), (PR, "Future enhancement: More flexible extension mechanism")]),
 ("Media files (images, videos, animations) are downloaded", "paraphrase", ["videos"],
  [(PB, "Download and store NFT media files (images, videos, animations, 3D models)"), (AC, "Media file downloading (images, videos, animations)")]),
 ("Correct file extensions from detected content", "paraphrase", ["extension"],
  [(CR, "- Apply appropriate file extensions based on detected content types"),
   (PR, "Fixed: Now always detecting media type from content and applying the correct extension")]),
 ("Fixed: extension detection for filenames containing dots (\"faux.parenting\")", "paraphrase", ["faux.parenting"],
  [(AC, "Fixed issue with file extension detection for filenames containing dots"), (PR, "~~**File Extension Detection**")]),
 ("Tokio is the async runtime", "paraphrase", ["tokio"],
  [(SP, "**Async Runtime**: Using Tokio"), (TC, "**tokio**: Async runtime")]),
 ("alloy for EVM chains", "paraphrase", ["alloy"],
  [(SP, "alloy for EVM chains"), (TC, "**alloy**: Modern Ethereum library")]),
 ("tracing for structured logging", "paraphrase", ["tracing"],
  [(SP, "**Structured Logging**: Using tracing"), (TC, "- **tracing**: Structured, contextual logging")]),
 ("Configurable logging levels", "paraphrase", ["logging levels"],
  [(PR, "✅ Configurable logging levels"), (PB, "Adjustable logging levels")]),
 ("Configurable output paths", "paraphrase", ["output path"],
  [(PR, "✅ Custom output path support"), (PB, "Configurable output paths")]),
 ("Command-line interface", "paraphrase", ["command-line"],
  [(PR, "✅ Command-line interface with configurable options"), (PB, "Simple command-line interface")]),
 ("Configurable RPC endpoints per chain", "paraphrase", ["RPC endpoints"],
  [(PB, "Ability to specify RPC endpoints for different chains"), (TC, "Support for configurable RPC endpoints for each blockchain")]),
 ("Permanent access to digital assets regardless of third-party services", "near", ["permanent access"],
  [(PB, "**Data Preservation**: Ensure NFT collectors can maintain permanent access"), (PC, "It ensures collectors can maintain permanent access")]),
 ("ERC-721, ERC-1155 and FA2 token standards", "paraphrase", ["ERC-1155"],
  [(PC, "handling the differences between ERC-721, ERC-1155"), (TC, "**NFT Standards**: Supporting various token standards")]),
 ("Clear feedback about backup progress", "paraphrase", ["feedback"],
  [(PB, "Clear feedback on backup progress and completion"), (PC, "**Transparency**: Clear logging and feedback")]),
 ("Various URL formats and protocols are handled", "near", ["URL formats"],
  [(AC, "Support for various URL formats and protocols"), (SP, "The system handles various URL formats and protocols")]),
 ("The project is in a functional state", "near", ["functional state"],
  [(AC, "The project is currently in a functional state"), (PR, "The project is in a functional state")]),
]

def truth(store_dir, sources=None):
    """The truth of the store built in STORE_DIR (the sources are not needed)."""
    S = Store(store_dir)
    facts, dups = [], []
    for i, (text, kind, lits, locs) in enumerate(G, 1):
        found = [S.loc(f, n) for f, n in locs]
        fid = f"f{i}"
        facts.append({"id": fid, "text": text, "literals": lits, "locations": found, "current": True})
        dups.append({"fact": fid, "kind": kind, "identical": kind == "identical", "locations": found})

    def nc(a, b, why):
        return {"a": S.loc(*a), "b": S.loc(*b), "why": why}

    not_conflicts = [
     nc((PR, "~~**File Extension Detection**"), (PR, "Fixed: Now always detecting media type"),
        "struck-through resolved item (history) and its fix"),
     nc((PR, "~~**File Extension Detection**"), (AC, "Fixed issue with file extension detection"),
        "struck-through resolved item vs the note that it was fixed: they agree"),
     nc((PR, "**New Backup Directory Structure**"), (CR, "- Maintain the established directory structure for NFT backups"),
        "a planned change (⬜ next milestone) is not a current claim"),
     nc((TC, "Architecture supports using alternative gateways"), (TC, "Single IPFS gateway with no fallback mechanism"),
        "architecture allows alternatives; today one gateway is used: both true"),
     nc((SP, "**Async Runtime**: Using Tokio"), (TC, "No parallel processing of multiple tokens"),
        "async downloads vs sequential token processing: different subjects"),
     nc((AC, "Currently, tokens are processed sequentially"), (AC, "Implementing controlled concurrency for token processing"),
        "current state vs planned work"),
     nc((TC, "No parallel processing of multiple tokens"), (TC, "Implementing concurrent token processing for performance"),
        "current limitation vs future consideration"),
     nc((CR, "- Avoid making any formatting changes when not explicitly asked"), (CR, "- Ensure the project is formatted (cargo fmt --all)"),
        "no unrequested reformatting vs run cargo fmt: both rules hold"),
     nc((AC, "Currently using ipfs.io as the default gateway"), (AC, "Considering implementing gateway rotation"),
        "current gateway vs option under consideration"),
     nc((PR, "⬜ Concurrent token processing"), (PR, "Current mitigation: Sequential processing and retry logic"),
        "planned item vs current mitigation"),
    ]

    return {"store": STORE,
           "source": {"repo": "0xmichalis/nftbk", "commit": "74078042e79c6c8a24a93d26ba21280a4562b788",
                      "files": [CR, ".cursorrules (symlink to .clinerules)", AC, PR, PB, PC, SP, TC]},
           "notes": "Facts are the groups of facts repeated across (or within) files; every group is current. "
                    "No value in these files was updated by a later line, so there are no updates.",
           "facts": facts, "duplicates": dups, "updates": [], "disagreements": [], "not_conflicts": not_conflicts}


if __name__ == "__main__":
    cli(STORE, truth)
