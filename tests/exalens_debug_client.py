"""tt-exalens's debugger API on a ttsim-ABI library, one process per library instance
(tests/test_exalens_debug.py runs it on ttemu's library and on ttsim's).

    python exalens_debug_client.py LIB X-Y ELF ACTION

ACTION ``session``: run_elf of tests/exalens_prog.py's program on BRISC, wait for its
ebreak, registers, call stack, a step, resume, halt, get_tensix_state, an injected
instruction; prints one JSON line. The other actions each make one of those calls
alone (after what it needs): ``run_elf``, ``halt``, ``get_tensix_state``, ``inject``;
they print ``ok``.
"""

import json
import sys


def main():
    lib_path, xy, elf_path, action = sys.argv[1:5]
    from ttexalens import tt_exalens_lib as lib
    from ttexalens.coordinate import OnChipCoordinate
    from ttexalens.debug_tensix import TensixDebug
    from ttexalens.tt_exalens_init import init_ttexalens

    ctx = init_ttexalens(simulation_directory=lib_path)
    loc = OnChipCoordinate.create(xy, device=ctx.devices[0])
    risc = loc.noc_block.get_risc_debug("brisc")
    ops = ctx.devices[0].instructions
    if action == "run_elf":
        lib.run_elf(elf_path, loc, "brisc", context=ctx)
    elif action == "halt":
        lib.write_words_to_device(loc, 0, [0x6F], context=ctx)  # j .
        risc.set_reset_signal(False)
        risc.halt()
    elif action == "get_tensix_state":
        lib.get_tensix_state(loc, context=ctx)
    elif action == "inject":
        TensixDebug(loc).inject_instruction(ops.TT_OP_NOP(), 0)
    elif action == "session":
        print(json.dumps(session(lib, ctx, loc, risc, elf_path, ops)))
        return
    else:
        raise SystemExit(f"unknown action {action}")
    print("ok")


def session(lib, ctx, loc, risc, elf_path, ops):
    from ttexalens.debug_tensix import TensixDebug

    out = {}
    lib.run_elf(elf_path, loc, "brisc", context=ctx)
    for _ in range(100):  # each read is a clock
        if risc.is_halted():
            break
    out["halted"], out["ebreak"] = risc.is_halted(), risc.is_ebreak_hit()
    out["pc"], out["a0"] = risc.get_pc(), risc.read_gpr(10)
    out["callstack"] = [e.function_name for e in lib.callstack(loc, elf_path, risc_name="brisc", context=ctx)]
    risc.step()
    out["step"] = risc.get_pc()
    risc.cont()
    for _ in range(1000):
        out["result"] = lib.read_word_from_device(loc, 0x10000, context=ctx)
        if out["result"] == 19:
            break
    risc.halt()
    out["halted_again"] = risc.is_halted() and not risc.is_ebreak_hit()
    state = lib.get_tensix_state(loc, context=ctx)
    out["gpr_t1_5"] = list(state.gpr[1].values())[5]
    out["dstacc"] = state.alu_config[0]["Format_Dstacc"]
    # SETDMAREG: GPR 7 of thread 0 = 0xBEEF (its 16-bit immediate form)
    word = (0x45 << 24) | (0xBEEF << 8) | 14
    TensixDebug(loc).inject_instruction(word, 0)
    out["injected"] = list(lib.get_tensix_state(loc, context=ctx).gpr[0].values())[7]
    return out


if __name__ == "__main__":
    main()
