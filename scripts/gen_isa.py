#!/usr/bin/env python3
"""Derive ttemu's per-arch Tensix instruction tables and the firmware encoder header.

    python scripts/gen_isa.py [SHARED_ISA_DIR] [--docs DIR] [--out DIR] [--report]

SHARED_ISA_DIR defaults to ../shared/isa and --docs to
../isadoc/WormholeB0/TensixTile/TensixCoprocessor (both relative to the repository
root); --out defaults to the repository root. Writes

  ttemu/isa/tables/wormhole_b0.py, ttemu/isa/tables/blackhole.py, ttemu/isa/tables/__init__.py
  firmware/include/ttemu_tensix.h             (Wormhole B0)
  firmware/include/blackhole/ttemu_tensix.h   (Blackhole)

Output is deterministic (no dates); the package never reads the sources at run time.
--report prints every disagreement found between the sources.

How a table entry is derived:

* mnemonic, opcode (op_binary), ex_resource, instrn_type and field names come from
  tt-llk's assembly.yaml. A field starts at its start_bit; its span runs up to the next
  argument's start_bit (or bit 23 for the last one) -- the bits SFPI's objdump prints --
  and its width (the bits the hardware uses) is the span unless assembly.yaml gives an
  end_bit or a source below narrows it. Names are made into identifiers (spaces -> _).
* MOP, MOP_CFG and REPLAY are placeholders in ttsim's JSON; their layout is fixed from
  the seed notes (SEED_LAYOUT below), which agree with assembly.yaml on positions.
* ttsim's tensix_isa.json is a cross-check only: opcodes must agree; bit-range
  differences are reported.
* Wormhole B0 only: the ISA documentation (tenstorrent/tt-isa-documentation) is
  authoritative. Each page's "## Syntax" section lists the operands of TT_<OP>(...) with
  their widths; operands map, in order, onto the assembly.yaml fields in descending bit
  order. Where the documented width differs from the width so far (and fits the span),
  the documented width is used (bits of the span above it are ignored). A wider
  documented width (an operand that deliberately spills into the next field) or an
  operand-count mismatch is reported and the assembly.yaml span is kept.
* asm_name is "tt" + lower-case mnemonic, except ASM_NAME_OVERRIDES (objdump spellings).
* unit and block_mask come from the rule tables UNIT_BY_EX_RESOURCE / BLOCK_BITS_BY_UNIT
  plus the per-mnemonic exceptions UNIT_OVERRIDES / BLOCK_OVERRIDES, following
  WormholeB0/TensixTile/TensixCoprocessor/STALLWAIT.md ("Block mask").
"""

from __future__ import annotations

import argparse
import hashlib
import json
import keyword
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
ARCHES = ("wormhole_b0", "blackhole")
TTSIM_ARCH = {"wormhole_b0": "wh", "blackhole": "bh"}
DOC_PREFIX = "WormholeB0/TensixTile/TensixCoprocessor/"

# ex_resource (assembly.yaml) -> project unit name.
UNIT_BY_EX_RESOURCE = {
    "SYNC": "sync",
    "THCON": "scalar",
    "CFG": "cfg",
    "UNPACK": "unpack",
    "MATH": "math",
    "SFPU": "sfpu",
    "PACK": "pack",
    "TDMA": "misc",
    "XMOV": "mover",
    "NONE": "frontend",
}
# Exceptions to UNIT_BY_EX_RESOURCE, each backed by a doc page.
UNIT_OVERRIDES = {
    "MOP": "frontend",      # MOPExpander.md: handled by the MOP Expander (yaml says SYNC)
    "MOP_CFG": "frontend",  # MOPExpander.md
    "NOP": "misc",          # MiscellaneousUnit.md lists NOP (yaml ex_resource NONE)
    "DMANOP": "scalar",     # ScalarUnit.md lists DMANOP (yaml ex_resource TDMA)
}
# Wait-gate block bits B0..B8 that hold each unit's instructions (STALLWAIT.md).
BLOCK_BITS_BY_UNIT = {
    "misc": (0,),
    "mover": (0, 4),
    "scalar": (0, 5),
    "pack": (0, 2),
    "unpack": (0, 3),
    "sync": (1,),
    "math": (6,),
    "cfg": (7,),
    "sfpu": (8,),
    "frontend": (),         # MOP/MOP_CFG/REPLAY never reach the Wait Gate
}
ALL_BLOCK_BITS = 0x1FF
# Exceptions to BLOCK_BITS_BY_UNIT (STALLWAIT.md table).
BLOCK_OVERRIDES = {
    "STALLWAIT": ALL_BLOCK_BITS,  # blocked by every bit
    "NOP": ALL_BLOCK_BITS,        # only when all nine bits are set: nop_rule=True
    "RSTDMA": 0x001,              # B0 only, although assembly.yaml says THCON
}
# Per-arch exceptions (BlackholeA0/TensixTile/TensixCoprocessor/STALLWAIT.md "Block mask"
# table: SEMWAIT, new in this table for Blackhole, and STREAMWAIT are held by every bit).
BLOCK_OVERRIDES_BY_ARCH = {
    "blackhole": {"SEMWAIT": ALL_BLOCK_BITS, "STREAMWAIT": ALL_BLOCK_BITS},
}
NOP_RULE = {"NOP"}

# Disassembly names that SFPI's objdump spells other than "tt" + lower-case mnemonic
# (checked against its gas testsuite, tensix-wh.d / tensix-bh.d).
ASM_NAME_OVERRIDES = {
    "MOP_CFG": "ttmopcfg",
    "PACR_SETREG": "ttpacrsetreg",
}

# MOP / MOP_CFG / REPLAY layout, from the seed notes (000_d8bca223cff715f0): lo bit -> width.
SEED_LAYOUT = {
    "MOP": {0: 16, 16: 7, 23: 1},
    "MOP_CFG": {0: 16},
    "REPLAY": {0: 1, 1: 1, 4: 10, 14: 10},
}

C_KEYWORDS = set("""auto break case char const continue default do double else enum extern float for
goto if inline int long register restrict return short signed sizeof static struct switch typedef
union unsigned void volatile while""".split())


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def upstream(readme, filename):
    """(repo, commit) named in shared/isa/README.md for the row describing filename."""
    for line in readme.splitlines():
        if line.startswith("|") and filename in line.split("|")[1]:
            m = re.search(r"(tenstorrent/[\w.-]+)\s.*?\bat\s+([0-9a-f]{7,40})", line)
            if m:
                return m.group(1), m.group(2)
    raise SystemExit(f"README.md does not name the upstream of {filename}")


def identifier(name):
    ident = re.sub(r"\W+", "_", name.strip())
    if not ident.isidentifier() or keyword.iskeyword(ident) or ident in C_KEYWORDS:
        raise SystemExit(f"field name {name!r} cannot be made an identifier")
    return ident


# ---------------------------------------------------------------- assembly.yaml


def yaml_fields(mnemonic, entry):
    """[(name, lo, width, span)] ascending by lo.

    span: up to the next argument's start_bit (or bit 23), the rule SFPI's objdump uses
    to print the field; width: the same unless assembly.yaml gives an end_bit."""
    args = entry.get("arguments")
    if not isinstance(args, list):
        return []
    args = sorted(args, key=lambda a: a["start_bit"])
    out = []
    for i, a in enumerate(args):
        lo = int(a["start_bit"])
        span_hi = int(args[i + 1]["start_bit"]) - 1 if i + 1 < len(args) else 23
        hi = int(a.get("end_bit", span_hi))
        if not 0 <= lo <= hi <= span_hi <= 23:
            raise SystemExit(f"{mnemonic}: bad bit range for {a['name']}")
        out.append((identifier(a["name"]), lo, hi - lo + 1, span_hi - lo + 1))
    names = [f[0] for f in out]
    if len(set(names)) != len(names):
        raise SystemExit(f"{mnemonic}: duplicate field names {names}")
    return out


# ---------------------------------------------------------------- ISA documentation

CALL_RE = re.compile(r"\bTT(?:I_|_OP_|_)([A-Z][A-Z0-9_]*)\b")
TYPED_RE = re.compile(r"/\*\s*(bool|[ui]\d+)\s*\*/(\s*\(?\s*)([A-Za-z_]\w*)")


def split_top_level(text):
    parts, depth, cur = [], 0, []
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts]


def operand_width(text):
    """Width of one documented operand, or None when it is only a literal.

    Each typed name (/* uN */ X, /* bool */ X) is replaced by its largest value and the
    expression (shifts, sums, masks) is evaluated; the width is that value's bit length."""
    typed = []

    def repl(m):
        typed.append(m.group(3))
        bits = 1 if m.group(1) == "bool" else int(m.group(1)[1:])
        return m.group(2) + str((1 << bits) - 1)

    expr = TYPED_RE.sub(repl, text)
    expr = re.sub(r"/\*.*?\*/", "", expr).replace("true", "1").replace("false", "0")
    expr = " ".join(expr.split())
    if not re.fullmatch(r"[0-9a-fA-Fx()+<&\s]*", expr):
        raise SystemExit(f"cannot read documented operand {text!r}")
    value = eval(expr, {"__builtins__": {}})  # digits and + << & ( ) only, checked above
    return value.bit_length() if typed else None


def syntax_calls(page_text):
    """[(mnemonic, [operand text])] for the calls in a page's '## Syntax' code blocks."""
    m = re.search(r"^## Syntax\s*$(.*?)(?=^## |\Z)", page_text, re.S | re.M)
    if not m:
        return []
    calls = []
    for block in re.findall(r"```\w*\n(.*?)```", m.group(1), re.S):
        pos = 0
        while (call := CALL_RE.search(block, pos)) is not None:
            j = call.end()
            while j < len(block) and block[j] in " \t":
                j += 1
            operands = []
            if j < len(block) and block[j] == "(":
                depth, k = 0, j
                while True:
                    depth += block[k] == "("
                    depth -= block[k] == ")"
                    if depth == 0:
                        break
                    k += 1
                inner = block[j + 1:k]
                operands = split_top_level(inner) if inner.strip() else []
                j = k + 1
            calls.append((call.group(1), operands))
            pos = j
    return calls


def read_docs(docs_dir):
    """{mnemonic: [(page, [width or None])]}, the page list, and their combined sha256."""
    out, digest, pages = {}, hashlib.sha256(), []
    for page in sorted(docs_dir.glob("*.md")):
        text = page.read_text()
        digest.update(page.name.encode() + b"\0" + page.read_bytes() + b"\0")
        pages.append(page.name)
        for mnemonic, operands in syntax_calls(text):
            out.setdefault(mnemonic, []).append((page.name, [operand_width(o) for o in operands]))
    return out, pages, digest.hexdigest()


def doc_page(mnemonic, pages, syntax):
    for cand in (mnemonic, mnemonic.replace("_", ""), mnemonic.rstrip("0123")):
        if cand + ".md" in pages:
            return DOC_PREFIX + cand + ".md"
    if mnemonic in syntax:
        return DOC_PREFIX + syntax[mnemonic][0][0]
    return None


def apply_docs(mnemonic, fields, variants, notes):
    """Narrow fields to documented operand widths; returns the new field list."""
    desc = sorted(fields, key=lambda f: -f[1])
    doc_width = {}
    for page, widths in variants:
        if len(widths) != len(desc):
            notes.append(f"{mnemonic}: {page} Syntax has {len(widths)} operands, assembly.yaml has "
                         f"{len(desc)} fields; variant ignored")
            continue
        for w, (name, *_rest) in zip(widths, desc):
            if w is not None:
                doc_width[name] = max(doc_width.get(name, 0), w)
    out = []
    for name, lo, width, span in fields:
        w = doc_width.get(name)
        if w is not None and w > span:
            notes.append(f"{mnemonic}.{name}: docs operand is {w} bits but the field has {span} "
                         f"(bits {lo + span - 1}:{lo}); the documented value spills into the next "
                         f"field; kept {width}")
        elif w is not None and w != width:
            notes.append(f"{mnemonic}.{name}: assembly.yaml bits {lo + width - 1}:{lo} ({width}), "
                         f"docs u{w} -> bits {lo + w - 1}:{lo}")
            width = w
        out.append((name, lo, width, span))
    return out


# ---------------------------------------------------------------- ttsim cross-check


def ttsim_check(mnemonic, entry, yaml_entry, fields, notes):
    if entry is None:
        notes.append(f"{mnemonic}: absent from ttsim tensix_isa.json")
        return
    if entry["opcode"] != yaml_entry["op_binary"]:
        raise SystemExit(f"{mnemonic}: opcode 0x{entry['opcode']:02x} (ttsim) != "
                         f"0x{yaml_entry['op_binary']:02x} (assembly.yaml)")
    if entry.get("unsupported") or mnemonic in SEED_LAYOUT:
        return
    norm = lambda n: re.sub(r"[^a-z0-9]", "", n.lower())  # noqa: E731
    ranges = {norm(k): tuple(int(x) for x in v.split(":")) for k, v in entry.get("args", {}).items()}
    mine = {norm(n): (lo, w, n) for n, lo, w, _span in fields}
    for key, (hi, lo) in sorted(ranges.items()):
        if key not in mine:
            notes.append(f"{mnemonic}: ttsim has field {key} ({hi}:{lo}) not in assembly.yaml")
            continue
        flo, fw, name = mine[key]
        if (lo, hi - lo + 1) != (flo, fw):
            notes.append(f"{mnemonic}.{name}: ttsim bits {hi}:{lo}, table bits {flo + fw - 1}:{flo}")
    for key, (_lo, _w, name) in sorted(mine.items()):
        if key not in ranges:
            notes.append(f"{mnemonic}.{name}: not listed by ttsim")


# ---------------------------------------------------------------- table building


def unit_and_mask(mnemonic, ex_resource, arch="wormhole_b0"):
    unit = UNIT_OVERRIDES.get(mnemonic) or UNIT_BY_EX_RESOURCE[ex_resource]
    mask = BLOCK_OVERRIDES_BY_ARCH.get(arch, {}).get(mnemonic, BLOCK_OVERRIDES.get(mnemonic))
    if mask is None:
        mask = sum(1 << b for b in BLOCK_BITS_BY_UNIT[unit])
    return unit, mask


def build(arch, shared, syntax, pages):
    asm = yaml.safe_load((shared / arch / "assembly.yaml").read_text())
    ttsim = json.loads((shared / arch / "ttsim_tensix_isa.json").read_text())
    notes, entries = [], []
    for mnemonic in asm:
        e = asm[mnemonic]
        fields = yaml_fields(mnemonic, e)
        if mnemonic in SEED_LAYOUT:
            layout = SEED_LAYOUT[mnemonic]
            if sorted(layout) != [f[1] for f in fields]:
                raise SystemExit(f"{mnemonic}: assembly.yaml fields {fields} do not match the seed layout")
            for name, lo, w, _span in fields:
                if w != layout[lo]:
                    notes.append(f"{mnemonic}.{name}: assembly.yaml span {w} bits, seed {layout[lo]}")
            fields = [(n, lo, layout[lo], span) for n, lo, _w, span in fields]
        if syntax is not None and mnemonic in syntax:
            fields = apply_docs(mnemonic, fields, syntax[mnemonic], notes)
        ttsim_check(mnemonic, ttsim.get(mnemonic), e, fields, notes)
        unit, mask = unit_and_mask(mnemonic, e["ex_resource"], arch)
        entries.append({
            "mnemonic": mnemonic,
            "asm_name": ASM_NAME_OVERRIDES.get(mnemonic, "tt" + mnemonic.lower()),
            "opcode": int(e["op_binary"]),
            "unit": unit,
            "ex_resource": e["ex_resource"],
            "instrn_type": e.get("instrn_type") or "",
            "fields": tuple(fields),
            "operands": tuple(f[0] for f in sorted(fields, key=lambda f: -f[1])),
            "block_mask": mask,
            "nop_rule": mnemonic in NOP_RULE,
            "doc": doc_page(mnemonic, pages, syntax) if syntax is not None else None,
        })
    for name in sorted(set(ttsim) - set(asm)):
        notes.append(f"{name}: in ttsim tensix_isa.json only (not in assembly.yaml); not tabulated")
    opcodes = [x["opcode"] for x in entries]
    if len(set(opcodes)) != len(opcodes):
        raise SystemExit(f"{arch}: opcode collision")
    entries.sort(key=lambda x: x["opcode"])
    return entries, notes


# ---------------------------------------------------------------- rendering


def render_table(arch, entries, notes, provenance):
    lines = [f"# Tensix instruction table for {arch}: generated by scripts/gen_isa.py — do not edit.", "#"]
    lines += ["# " + p if p else "#" for p in provenance]
    lines += [
        "#",
        "# Each entry: mnemonic, asm_name (disassembly name), opcode (bits 31:24), unit (project",
        "# name), ex_resource and instrn_type (as in assembly.yaml), fields ((name, lo_bit, width,",
        "# span) ascending; width = bits the hardware uses, span = bits up to the next field, which",
        "# the disassembler prints), operands (field names in disassembly / TT_OP(...) order),",
        "# block_mask (wait-gate bits B0..B8 that hold the instruction; with nop_rule=True it is",
        "# held only when all nine bits are set), doc (ISA documentation page, Wormhole B0 only).",
        "",
        f"ARCH = {arch!r}",
        "",
        "INSTRUCTIONS = (",
    ]
    for x in entries:
        fields = repr(tuple(x["fields"]))
        operands = repr(tuple(x["operands"]))
        lines += [
            "    {",
            f"        'mnemonic': {x['mnemonic']!r}, 'asm_name': {x['asm_name']!r}, 'opcode': 0x{x['opcode']:02X},",
            f"        'unit': {x['unit']!r},"
            f" 'ex_resource': {x['ex_resource']!r}, 'instrn_type': {x['instrn_type']!r},",
            f"        'fields': {fields},",
            f"        'operands': {operands},",
            f"        'block_mask': 0x{x['block_mask']:03X}, 'nop_rule': {x['nop_rule']}, 'doc': {x['doc']!r},",
            "    },",
        ]
    lines += [")", "", "# Disagreements between the sources found while generating this table.", "NOTES = ("]
    lines += [f"    {n!r}," for n in notes]
    lines += [")", ""]
    return "\n".join(lines)


HEADER_DIR = {"wormhole_b0": "firmware/include", "blackhole": "firmware/include/blackhole"}
ARCH_TITLE = {"wormhole_b0": "Wormhole B0", "blackhole": "Blackhole"}


def render_header(arch, entries, provenance):
    lines = [
        f"/* ttemu_tensix.h: Tensix instruction encoders for {ARCH_TITLE[arch]}.",
        " * Generated by scripts/gen_isa.py — do not edit.",
        " *",
    ]
    lines += [" * " + p if p else " *" for p in provenance]
    lines += [
        " *",
        " * TTE_<OP>(operands...)      the 32-bit Tensix word (operands in TT_OP order, i.e. the",
        " *                            field order of ttemu's disassembler, high bits first);",
        " *                            each operand is masked to its field width.",
        " * TTE_INSN_<OP>(operands...) emits the word inline in the RISC-V instruction stream",
        " *                            (.ttinsn: the word rotated left by 2); compile-time",
        " *                            constants only.",
        " * tte_push(word)             pushes a run-time word to this core's Tensix thread.",
        " */",
        "#ifndef TTEMU_TENSIX_H",
        "#define TTEMU_TENSIX_H",
        "",
        "/* The compiler's own 32-bit unsigned type (what uint32_t names), so this header needs",
        " * no C library headers. */",
        "#define TTE_U32 __UINT32_TYPE__",
        "",
        "#define TTE_INSTRN_PUSH_ADDR 0xFFE40000u",
        "#define TTE_ROTL2(w) ((TTE_U32)(((TTE_U32)(w) << 2) | ((TTE_U32)(w) >> 30)))",
        '#define TTE_INSN(w) __asm__ volatile(".word %0" :: "i"(TTE_ROTL2(w)))',
        "",
        "static inline void tte_push(TTE_U32 word)",
        "{",
        "    *(volatile TTE_U32 *)TTE_INSTRN_PUSH_ADDR = word;",
        "}",
        "",
    ]
    for x in entries:
        by_name = {n: (lo, w) for n, lo, w, _span in x["fields"]}
        params = ", ".join(x["operands"])
        terms = [f"(0x{x['opcode']:02X}u << 24)"]
        for n in x["operands"]:
            lo, w = by_name[n]
            terms.append(f"(((TTE_U32)({n}) & 0x{(1 << w) - 1:X}u) << {lo})")
        m = x["mnemonic"]
        lines.append(f"#define TTE_{m}({params}) \\")
        lines.append(f"    ((TTE_U32)({' | '.join(terms)}))")
        lines.append(f"#define TTE_INSN_{m}({params}) TTE_INSN(TTE_{m}({params}))")
    # SETDMAREG immediate form (SETDMAREG_Immediate.md): the 16-bit value occupies bits
    # 23:8, spilling from Payload_SigSel into Payload_SigSelSize.
    sd = {x["mnemonic"]: x for x in entries}.get("SETDMAREG")
    if sd is not None:
        f = {n: (lo, w) for n, lo, w, _span in sd["fields"]}
        lo_size, w_size = f["Payload_SigSelSize"]
        lo_sel, w_sel = f["Payload_SigSel"]
        assert lo_sel == 8 and lo_sel + w_sel == lo_size and w_sel + w_size == 16
        lines += [
            "",
            "/* SETDMAREG, immediate form (SETDMAREG_Immediate.md): new_value (u16) occupies bits",
            " * 23:8, i.e. Payload_SigSelSize:Payload_SigSel, with SetSignalsMode = 0. */",
            "#define TTE_SETDMAREG_IMM(new_value, result_half_reg) \\",
            f"    TTE_SETDMAREG((TTE_U32)(new_value) >> {w_sel}, (new_value), 0, (result_half_reg))",
            "#define TTE_INSN_SETDMAREG_IMM(new_value, result_half_reg) \\",
            "    TTE_INSN(TTE_SETDMAREG_IMM(new_value, result_half_reg))",
        ]
    lines += ["", "#endif /* TTEMU_TENSIX_H */", ""]
    return "\n".join(lines)


def provenance_lines(arch, shared, readme, docs_info):
    asm_repo, asm_commit = upstream(readme, "<arch>/assembly.yaml")
    sim_repo, sim_commit = upstream(readme, "<arch>/ttsim_tensix_isa.json")
    lines = [
        "Sources (all Apache-2.0):",
        f"  {asm_repo} tt_llk_{arch}/instructions/assembly.yaml at {asm_commit}",
        f"    copy: shared/isa/{arch}/assembly.yaml, sha256 {sha256(shared / arch / 'assembly.yaml')}",
        f"  {sim_repo} data/{TTSIM_ARCH[arch]}/tensix_isa.json at {sim_commit} (cross-check only)",
        f"    copy: shared/isa/{arch}/ttsim_tensix_isa.json, sha256 "
        f"{sha256(shared / arch / 'ttsim_tensix_isa.json')}",
        "  MOP, MOP_CFG, REPLAY layout: seed notes 000_d8bca223cff715f0 (see SEED_LAYOUT in the script)",
    ]
    if docs_info is not None:
        n_pages, digest = docs_info
        lines += [
            "  tenstorrent/tt-isa-documentation, the pages in WormholeB0/TensixTile/TensixCoprocessor",
            f"    ({n_pages} pages; combined sha256 {digest}): operand order/widths, block masks",
        ]
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("shared", nargs="?", default=str(ROOT.parent / "shared" / "isa"))
    ap.add_argument("--docs", default=str(ROOT.parent / "isadoc" / DOC_PREFIX.rstrip("/")))
    ap.add_argument("--out", default=str(ROOT))
    ap.add_argument("--report", action="store_true", help="print source disagreements")
    args = ap.parse_args(argv)
    shared, docs, out = pathlib.Path(args.shared), pathlib.Path(args.docs), pathlib.Path(args.out)
    if not (shared / "README.md").is_file():
        raise SystemExit(f"{shared}: not the shared ISA directory")
    if not docs.is_dir():
        raise SystemExit(f"{docs}: ISA documentation not found")
    readme = (shared / "README.md").read_text()
    syntax, pages, digest = read_docs(docs)
    tables_dir = out / "ttemu" / "isa" / "tables"
    tables_dir.mkdir(parents=True, exist_ok=True)
    (tables_dir / "__init__.py").write_text(
        '"""Generated Tensix instruction tables (scripts/gen_isa.py); loaded by ttemu.isa.table."""\n')
    for arch in ARCHES:
        wh = arch == "wormhole_b0"
        entries, notes = build(arch, shared, syntax if wh else None, pages)
        prov = provenance_lines(arch, shared, readme, (len(pages), digest) if wh else None)
        (tables_dir / f"{arch}.py").write_text(render_table(arch, entries, notes, prov))
        inc = out / HEADER_DIR[arch]
        inc.mkdir(parents=True, exist_ok=True)
        (inc / "ttemu_tensix.h").write_text(render_header(arch, entries, prov))
        if args.report:
            print(f"== {arch}: {len(entries)} instructions, {len(notes)} notes")
            for n in notes:
                print("  " + n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
