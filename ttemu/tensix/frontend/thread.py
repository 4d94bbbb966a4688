"""One Tensix thread's frontend: FIFO -> MOP expander -> replay expander -> wait gate.

Items flowing through are ``(word, origin)`` pairs; ``origin`` says where the word
came from (``.ttinsn pc 0x...``, ``mmio 0xffe40000``, ``mop``, ``replay``) for traces
and error messages.

Instructions pushed by the thread's own TRISC enter before the MOP expander; BRISC's
pushes enter after it (tt-isa-documentation WormholeB0/TensixTile/BabyRISCV/
PushTensixInstruction.md). Each queue holds 32 entries; a push into a full queue is
refused (the pushing core stalls and retries). An instruction counts as pushed once
it is queued.
"""

from __future__ import annotations

from collections import deque

from ...errors import GuestFault, Unimplemented
from .body import MAX_BODIES, Cursor, compile_mop, compile_replay
from .gate import WaitGate, describe_state
from .mop import MOP_CFG_OPCODE, MOP_OPCODE, MopExpander
from .replay import REPLAY_OPCODE, ReplayExpander

FIFO_DEPTH = 32
# words the MOP or replay expander takes (never passed on as they arrive)
EXPANDER_OPCODES = frozenset((MOP_CFG_OPCODE, MOP_OPCODE, REPLAY_OPCODE))


class TensixThread:
    #: run MOPs and REPLAY playbacks as compiled expansions (body.py); False: the
    #: generators, one instruction at a time (the reference form, for tests)
    compile_expansions = True

    def __init__(self, cop, index: int):
        self.cop = cop
        self.index = index
        self._tile = cop.tile
        self._others = ()  # the other two threads (set by the coprocessor once all exist)
        self.fifo = deque()  # before the MOP expander (this thread's TRISC)
        self.mid = deque()  # after the MOP expander (BRISC's pushes)
        self.mop = MopExpander()
        self.replay = ReplayExpander()
        self.gate = WaitGate()
        self.held = None  # (word, origin) waiting at the gate
        # may have input (a word queued, a MOP expanding, a replay playing back): set by
        # push, cleared by pump when it finds none; only push gives a thread input from
        # outside, so a thread with neither this nor a held word has nothing to do
        self.fed = False
        self._held_why = None  # what held_reason words, captured at the hold (see held_reason)
        self.held_since = None
        # cop.epoch when the held instruction was last found waiting at the gate: until
        # the epoch moves on (an instruction issues, a kick starts, a RISC-V semaphore
        # access), evaluating the gate again gives the same answer, so pump skips it
        self._gate_epoch = None
        # a held instruction a unit refused with a Wait depending on Src ownership alone: that
        # state (Wait.src_key); while ownership is the same, asking again gives the same Wait
        self._src_key = None
        self.word = 0  # the word being executed (for bits the table does not decode)
        self.origin = None  # where it was pushed ('.ttinsn pc 0x...', 'mmio 0x...', 'mop'), for reports
        # Issue count just after this thread's latest STALLWAIT with block bit B8 (SFPU)
        # and condition C7 (FPU busy): SFPLOAD.md's alternative to three instructions
        # between an FPU write to Dst and an SFPLOAD of it (sfpu/hazards.py).
        self.fpu_fence = -1
        # statistics
        self.pushed = 0
        self.issued = 0
        self.held_steps = 0
        # compiled expansions (body.py): key -> Body (or None: not compiled), the one running
        # (_run, at step _pos; _cursor its MOP word stream, the MOP expander's active
        # iterator), and the replay buffer contents' number (_replay_id)
        self._bodies = {}
        self._run = None
        self._pos = 0
        self._cursor = None
        self._replay_ids = {}
        self._replay_version = -1
        self._replay_key = 0

    # -- state queries -------------------------------------------------------------
    def idle(self) -> bool:
        """Nothing queued, expanding, replaying or held (TTSync CoprocessorDoneCheck)."""
        return (not self.fifo and not self.mid and self.mop.active is None and not self.replay.play_left
                and self.held is None and not self.cop.any_unit_busy(self.index))

    def mop_done(self) -> bool:
        """No MOP queued before the expander and none expanding (MOPExpanderDoneCheck)."""
        return self.mop.active is None and not any(w >> 24 == MOP_OPCODE for w, _ in self.fifo)

    # -- input ---------------------------------------------------------------------
    def push(self, word: int, origin: str, after_mop: bool) -> bool:
        queue = self.mid if after_mop else self.fifo
        if len(queue) >= FIFO_DEPTH:
            self.cop.tile.last_stall = (f"stalled pushing at pc {{pc}}: T{self.index} FIFO full ({FIFO_DEPTH})")
            return False
        queue.append((word, origin))
        self.pushed += 1
        self.fed = True
        if self._tile.tracer is not None:
            self.cop.trace(self.index, "push", word, origin)
        return True

    def reset(self) -> None:
        """Soft reset of this thread's TRISC: FIFO and MOP expander contents are
        discarded (WormholeB0/TensixTile/SoftReset.md)."""
        self.fifo.clear()
        self.mop.reset()

    # -- the pipeline ----------------------------------------------------------------
    def _from_mop(self):
        """Next item leaving the MOP expander (or BRISC's post-MOP queue)."""
        mop = self.mop
        while True:
            if mop.active is not None:
                word = next(mop.active, None)
                if word is not None:
                    if self.cop.tile.tracer is not None:
                        self.cop.trace(self.index, "mop", word, "")
                    return (word, "mop")
                mop.active = None
            if self.mid:
                return self.mid.popleft()
            if not self.fifo:
                return None
            item = self.fifo.popleft()
            opcode = item[0] >> 24
            if opcode == MOP_CFG_OPCODE:
                mop.mop_cfg(item[0])
            elif opcode == MOP_OPCODE:
                mop.start(item[0])
            else:
                return item

    def _next(self):
        """Next item arriving at the wait gate, or None if nothing is available."""
        replay = self.replay
        while True:
            if replay.play_left:
                item = replay.playback()
                if self.cop.tile.tracer is not None:
                    self.cop.trace(self.index, "replay", item[0], "")
                return item
            item = self._from_mop()
            if item is None:
                return None
            if replay.record_left or item[0] >> 24 == REPLAY_OPCODE:
                item = replay.take(item)
                if item is None:
                    continue
            return item

    def pump(self) -> bool:
        """Move an instruction through the gate into the backend: one, and while each
        other thread is one the coprocessor's next pass would skip (nothing to do, see
        ``fed``, or held at its gate as evaluated since the epoch moved) the next ones
        too (while that pass would visit the threads in this pass's order), until the
        gate holds one, the input runs dry or a re-entrant kick asks for another pass.
        Each further one is what the coprocessor's next pass (``kick``) would issue:
        another thread is given input only by a push (a push from inside a pump sets
        ``cop._again``), and a held one is released only as an issue moves the epoch on
        (one a unit holds until Src ownership changes, ``Wait.src_key``, only as that
        changes: asking it again before would give the same Wait, so it is not asked).

        A MOP or REPLAY taken from the queue runs as its compiled expansion (``body.py``:
        the steps and their dispatch entries worked out once, the expanders' state
        written back step by step), and a run of its steps that a backend unit executes
        together (``Body.batch``) goes to the unit in one call (``run_batch``) where
        issuing them one at a time would change nothing else in between: the other
        threads as above, this thread's wait gate holding none of them, no trace being
        written; the unit executes them only as it would one by one (or none, and they
        go one at a time), and the batch then counts as that many issued instructions.
        Returns True if anything moved."""
        cop = self.cop
        item = self.held
        if item is None:
            if not self.fed:
                return False
        elif self._gate_epoch == cop.epoch:
            return False  # held at the gate, evaluated since anything last changed: it still holds
        elif self._src_key is not None and self._src_key == cop.src.ownership():
            return False  # held by its unit until Src ownership changes, which it has not
        moved = False
        replay = self.replay
        mop = self.mop
        tile = self._tile
        idle_others = False  # both other threads found with nothing to do (see below)
        entry = None
        while True:
            count = 0  # instructions a unit executed together (run_batch), 0 for one issued below
            if item is None:
                run = self._run
                if run is not None:
                    # the compiled expansion's next step, while the expanders are as it left them
                    pos = self._pos
                    cur = self._cursor
                    if (tile.tracer is None and mop.active is cur and (cur is None or cur.i == run.mop_i[pos])
                            and replay.play_left == run.play_left[pos] and replay.play_index == run.play_index[pos]
                            and pos < len(run.items)):
                        batch = run.batch[pos]
                        if batch is not None and self._may_batch(batch[2]):
                            cop.issuing = self
                            epoch = cop.epoch
                            count = batch[0].run_batch(self, run, pos, batch[1])
                        if count:
                            item = run.items[pos + count - 1]
                            self._step_to(run, pos + count, cur)
                        else:
                            item = run.items[pos]
                            entry = run.entries[pos]
                            pos += 1  # (_step_to, spelled out)
                            self._pos = pos
                            if cur is not None:
                                cur.i = run.mop_i[pos]
                            replay.play_left = run.play_left[pos]
                            replay.play_index = run.play_index[pos]
                        moved = True
                    else:
                        self._run = self._cursor = None
            elif self._run is not None and item is self.held:
                # a held step of the compiled expansion may start a run of the unit's (the
                # expanders are where they were when it was taken)
                run = self._run
                pos = self._pos - 1
                cur = self._cursor
                batch = run.batch[pos] if pos >= 0 else None
                if (batch is not None and run.items[pos] is item and tile.tracer is None and mop.active is cur
                        and (cur is None or cur.i == run.mop_i[pos + 1])
                        and replay.play_left == run.play_left[pos + 1] and replay.play_index == run.play_index[pos + 1]
                        and self._may_batch(batch[2])):
                    cop.issuing = self
                    epoch = cop.epoch
                    count = batch[0].run_batch(self, run, pos, batch[1])
                    if count:
                        self.held_steps += tile.steps - self.held_since
                        self.held = None
                        self._held_why = None
                        self._gate_epoch = None
                        self._src_key = None
                        item = run.items[pos + count - 1]
                        self._step_to(run, pos + count, cur)
                        moved = True
            if item is None:
                # what _next() returns (the general form, which traces), without its calls
                if tile.tracer is not None:
                    item = self._next()
                elif replay.play_left:  # (ReplayExpander.playback)
                    index = replay.play_index
                    item = replay.buffer[index % 32]
                    replay.play_index = index + 1
                    replay.play_left -= 1
                elif mop.active is None:
                    # BRISC's post-MOP queue first, then the FIFO, a word no expander takes
                    queue = self.mid or self.fifo
                    if not queue:
                        self.fed = False
                        return moved
                    if replay.record_left or (queue[0][0] >> 24) in EXPANDER_OPCODES:
                        if not replay.record_left and self._start_body(queue):
                            continue  # (its first step, above)
                        item = self._next()  # (a MOP word in mid is passed on: the gate refuses it)
                    else:
                        item = queue.popleft()
                else:  # the MOP expansion's next word (_from_mop), unless it ended
                    word = next(mop.active, None)
                    if word is None:
                        mop.active = None
                        continue  # (the queue's next word, as above: a MOP there runs compiled too)
                    else:
                        item = (word, "mop")
                        if replay.record_left or word >> 24 == REPLAY_OPCODE:
                            item = replay.take(item)
                            if item is None:
                                item = self._next()  # (what _next's loop does next)
                if item is None:
                    self.fed = False
                    return moved
                moved = True
            word = item[0]
            if not count:
                if not self.issue(item, entry):
                    return moved
                entry = None
            else:  # a unit's batch (run_batch): that many instructions issued, none of the Sync Unit
                self.word = word
                self.origin = item[1]
                self.issued += count
                cop.epoch += count
                g0, g1, g2 = cop.gates
                if g0.opcode is not None or g1.opcode is not None or g2.opcode is not None:
                    _after_issue(cop, epoch, cop.epoch == epoch + count)
            moved = True
            if not (replay.play_left or mop.active is not None or self.mid or self.fifo):
                self.fed = False
                return True
            # the next pass of kick issues this thread's next instruction and nothing
            # else while it skips both other threads: each has nothing to do, or holds at
            # its gate as evaluated since the epoch last moved; and if it visits the threads
            # in this pass's order, the rest of this pass is the rest of that one
            if cop._again or (cop.prefer_after_release or 0) != cop.pass_start:
                return True
            if not idle_others:
                if cop.one_per_pass:
                    return True
                a, b = self._others
                epoch = cop.epoch
                if a.held is None:
                    if a.fed:
                        return True
                elif a._gate_epoch != epoch and (a._src_key is None or a._src_key != cop.src.ownership()):
                    return True
                if b.held is None:
                    if b.fed:
                        return True
                elif b._gate_epoch != epoch and (b._src_key is None or b._src_key != cop.src.ownership()):
                    return True
                # both with nothing to do stay so (only a push gives them work, and sets _again)
                idle_others = a.held is None and b.held is None
            cop.prefer_after_release = None  # (read and forgotten by every pass)
            item = None

    def issue(self, item, entry=None) -> bool:
        """Pass ``item`` (``(word, origin)``) through this thread's wait gate into its unit
        (``entry``: the word's dispatch entry, if known): True when it issued (counted, the
        epoch moved on, every latched wait looked at again), False when the gate or the
        unit holds it (then it is this thread's held item)."""
        cop = self.cop
        word = item[0]
        if entry is None:
            entry = cop.dispatch.get(word)
            if entry is None:
                entry = cop.dispatch_entry(word)
        spec, handler, args, kwargs, fence = entry
        if spec is None:
            raise GuestFault(f"t{self.index}: 0x{word:08x} (pushed by {item[1]}) is not a Tensix instruction")
        gate = self.gate
        if gate.opcode is not None and spec.blocked_by(gate.block_mask):
            if not gate.fresh(cop):
                gate.refresh(cop, self.index, blocked=True)
            if gate.opcode is not None:
                self._hold(item, (word, gate.hold_state(cop), None))
                # a STREAMWAIT reads NoC overlay registers RISC-V cores write: always asked again
                self._gate_epoch = cop.epoch if gate.opcode != "STREAMWAIT" else None
                self._src_key = None
                return False
        if handler is None:
            if spec.unit == "frontend":
                raise GuestFault(f"t{self.index}: {spec.mnemonic} 0x{word:08x} reached the wait gate "
                                 f"(from {item[1]}): MOP and MOP_CFG must pass the MOP expander, which sits "
                                 "before the replay expander and before RISCV B's pushes (REPLAY.md); there "
                                 "is no backend unit for them")
            raise Unimplemented(f"t{self.index}: {cop.table.disasm(word)} (pushed by {item[1]}): "
                                f"{spec.mnemonic} is not implemented by the {spec.unit} unit yet")
        self.word = word
        self.origin = item[1]
        cop.issuing = self
        epoch = cop.epoch
        if kwargs is None:
            # handler(self, *args), spelled out for the usual counts (a call through *
            # builds a tuple: it costs more than the call itself)
            n = len(args)
            if n == 1:  # (the Vector Unit's issue_word(t, slot))
                result = handler(self, args[0])
            elif n == 0:
                result = handler(self)
            elif n == 4:
                a0, a1, a2, a3 = args
                result = handler(self, a0, a1, a2, a3)
            elif n == 3:
                a0, a1, a2 = args
                result = handler(self, a0, a1, a2)
            elif n == 2:
                a0, a1 = args
                result = handler(self, a0, a1)
            else:
                result = handler(self, *args)
        else:
            result = handler(self, **kwargs)
        if result is not None:
            self._hold(item, (word, spec.unit, result.reason))
            self._gate_epoch = None
            self._src_key = result.src_key
            return False
        if self.held is not None:
            self.held_steps += self._tile.steps - self.held_since
            self.held = None
            self._held_why = None
            self._gate_epoch = None
            self._src_key = None
        self.issued += 1
        cop.epoch += 1
        if self._tile.tracer is not None:
            cop.trace(self.index, "issue", word, f"-> {spec.unit}")
        if fence:
            self.fpu_fence = self.issued  # STALLWAIT B8 (SFPU) + C7 (FPU busy)
        g0, g1, g2 = cop.gates
        if g0.opcode is not None or g1.opcode is not None or g2.opcode is not None:
            # only the Sync Unit's instructions change semaphores here (a RISC-V access moves
            # the epoch on): otherwise a SEMWAIT found holding just before this one still holds
            _after_issue(cop, epoch, cop.epoch == epoch + 1 and spec.unit != "sync")
        return True

    def pump_on(self) -> None:
        """What pump's loop does after an issue that left this thread more to do: go on
        while kick's next pass would issue this thread's next instruction and nothing else
        (see pump)."""
        cop = self.cop
        if cop._again or (cop.prefer_after_release or 0) != cop.pass_start or cop.one_per_pass:
            return
        epoch = cop.epoch
        for o in self._others:
            if o.held is None:
                if o.fed:
                    return
            elif o._gate_epoch != epoch and (o._src_key is None or o._src_key != cop.src.ownership()):
                return
        cop.prefer_after_release = None
        self.pump()

    def _step_to(self, run, pos, cur):
        """The compiled expansion ``run`` is at step ``pos``: the expanders as the
        generators would be there (``cur``: the MOP word stream, or None)."""
        self._pos = pos
        if cur is not None:
            cur.i = run.mop_i[pos]
        replay = self.replay
        replay.play_left = run.play_left[pos]
        replay.play_index = run.play_index[pos]

    def _may_batch(self, specs) -> bool:
        """May a unit execute a run of instructions (of ``specs``) together now? Issued one
        at a time, each would pass this thread's wait gate and be followed by the next in
        the same pump (kick's passes would skip the other threads in between): no trace is
        being written; no re-entrant kick or changed pass order is pending; each other
        thread has nothing to do or holds at its gate as evaluated since the epoch last
        moved, or in a unit until Src ownership changes (the run changes no wait condition
        and no ownership before its last instruction); this
        thread's latched wait blocks none of them."""
        cop = self.cop
        if cop._again or (cop.prefer_after_release or 0) != cop.pass_start or cop.one_per_pass:
            return False
        epoch = cop.epoch
        for o in self._others:
            if o.held is None:
                if o.fed:
                    return False
            elif o._gate_epoch != epoch and (o._src_key is None or o._src_key != cop.src.ownership()):
                return False
        gate = self.gate
        if gate.opcode is not None:
            mask = gate.block_mask
            for spec in specs:
                if spec.blocked_by(mask):
                    return False
        return True

    def _start_body(self, queue) -> bool:
        """The word at the head of ``queue`` is a MOP (from the FIFO) or a REPLAY playback:
        take it and start its compiled expansion (``body.py``), when it has one (False:
        nothing taken, the generators expand it)."""
        word = queue[0][0]
        opcode = word >> 24
        mop = self.mop
        replay = self.replay
        if replay.play_left or mop.active is not None or not self.compile_expansions:
            return False
        if opcode == MOP_OPCODE:
            if queue is not self.fifo:
                return False  # (a MOP pushed after the expander reaches the gate, which refuses it)
            cfg = tuple(mop.cfg)
            key = (word, cfg, mop.mask_hi if not (word >> 23) & 1 else 0, replay.play_index, self._replay_id())
        elif opcode == REPLAY_OPCODE and not word & 1:
            cfg = None
            key = (word, self._replay_id())
        else:
            return False
        bodies = self._bodies
        body = bodies.get(key, False)
        if body is False:
            cop = self.cop
            dispatch = cop.dispatch

            def entry(w):
                e = dispatch.get(w)
                return e if e is not None else cop.dispatch_entry(w)

            if cfg is not None:
                body = compile_mop(word, cfg, mop.mask_hi, replay, entry)
            else:
                body = compile_replay(word, replay, entry)
            if body is not None:
                body.plan_batches(cop.units)
            if len(bodies) >= MAX_BODIES:
                bodies.clear()
            bodies[key] = body
        if body is None:
            return False
        queue.popleft()
        self._run = body
        self._pos = 0
        if cfg is not None:
            cur = self._cursor = Cursor(body.mop_words)
            mop.active = cur
        else:
            self._cursor = None
        replay.play_left = body.play_left[0]
        replay.play_index = body.play_index[0]
        self.fed = True
        return True

    def _replay_id(self) -> int:
        """A number for the replay buffer's contents (the same contents, the same number)."""
        replay = self.replay
        if replay.version != self._replay_version:
            contents = tuple(replay.buffer)
            ids = self._replay_ids
            if len(ids) >= MAX_BODIES:
                ids.clear()
                self._bodies.clear()
            self._replay_key = ids.setdefault(contents, len(ids))
            self._replay_version = replay.version
        return self._replay_key

    def _hold(self, item, why):
        if self.held is None:
            self.held_since = self.cop.tile.steps
        self.held = item
        self._held_why = why

    @property
    def held_reason(self) -> str | None:
        """Why the held instruction waits, as at the latest hold (hang diagnosis, progress,
        gdb's ``monitor tensix``): worded only when read, from what the hold captured."""
        why = self._held_why
        if why is None:
            return None
        if type(why) is str:
            return why
        word, where, reason = why
        cop = self.cop
        if reason is None:  # the wait gate: where is WaitGate.hold_state()
            text = f"held at {describe_state(cop.arch, where)}: {cop.table.disasm(word)} waits"
        else:
            text = f"held at {where} unit: {cop.table.disasm(word)} waits for {reason}"
        self._held_why = text
        return text


def _after_issue(cop, epoch, quiet):
    """``cop.after_issue()`` after instructions issued from ``epoch`` on, with each
    thread's hold captured as its next pump would: latched waits may be met now.
    ``quiet``: none of them was the Sync Unit's and nothing else moved the epoch (a
    SEMWAIT found holding at ``epoch`` still holds)."""
    for t in cop.threads:
        tgate = t.gate
        if tgate.opcode is not None:
            if tgate.opcode == "SEMWAIT" and t._gate_epoch is not None:
                if quiet and t._gate_epoch == epoch and tgate.checked == epoch:
                    tgate.checked = t._gate_epoch = cop.epoch  # (the same state as at epoch)
                    continue
                state = tgate.semwait_recheck(cop)  # refresh + hold_state below, in one
                if state is not None:
                    t._held_why = (t.held[0], state, None)
                    t._gate_epoch = cop.epoch
                continue
            tgate.refresh(cop, t.index)
            if tgate.opcode is not None and t._gate_epoch is not None:
                # still waits: capture the hold as that thread's next pump would
                t._held_why = (t.held[0], tgate.hold_state(cop), None)
                t._gate_epoch = cop.epoch
