"""Readable dumps of Tensix GPRs (``--dump-gpr``) and configuration (``--dump-cfg``).

Each report returns ``(text, data)``: plain text for a terminal and a JSON-able
object for ``--json``.
"""

from __future__ import annotations


def gpr_report(tile, threads=(0, 1, 2)):
    gprs = tile.tensix.gprs
    data = {f"t{t}": [f"0x{v:08x}" for v in gprs[t]] for t in threads}
    lines = []
    for t in threads:
        lines.append(f"T{t} GPRs:")
        regs = gprs[t]
        for i in range(0, 64, 8):
            lines.append(f"  r{i:<2}-r{i + 7:<2}  " + " ".join(f"0x{v:08x}" for v in regs[i:i + 8]))
    return "\n".join(lines), data


def unnamed_bits(config):
    """[(space, label, value)] for non-zero Config bits that no named field covers
    (words written whole by WRCFG / RISC-V ``sw`` beyond the fields the table knows),
    and likewise for ThreadConfig."""
    out = []
    for space, fields, words, banks in (("cfg", config.fields, config.cfg, (0, 1)),
                                        ("thread", config.thread_fields, config.thread_cfg, (0, 1, 2))):
        covered = {}
        for index, shift, width in fields.values():
            covered[index] = covered.get(index, 0) | (((1 << width) - 1) << shift)
        for bank in banks:
            for index in range(words.shape[1]):
                v = int(words[bank, index]) & ~covered.get(index, 0)
                if v:
                    out.append((f"{space}{bank}", f"word{index}_unnamed_bits", v))
    return out


def cfg_report(tile):
    """Non-zero configuration fields by name: Config banks 0/1 and each thread's, then
    any non-zero bits outside the named fields (by word index)."""
    config = tile.tensix.config
    rows = config.nonzero_fields() + unnamed_bits(config)
    data = {}
    for space, name, value in rows:
        data.setdefault(space, {})[name] = value
    width = max((len(n) for _, n, _ in rows), default=0)
    lines = [f"{space:8} {name:<{width}}  0x{value:x} ({value})" for space, name, value in rows]
    if not lines:
        lines = ["(every configuration field is zero)"]
    return "\n".join(["Tensix configuration (non-zero fields):"] + lines), data
