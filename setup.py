"""ttemu's compiled kernels, built at install when a C compiler is present: the Matrix
Unit's datapath (ttemu/tensix/units/fpu_native.c), the Vector Unit's runs
(ttemu/tensix/units/sfpu/sfpu_native.c) and the data movers' common routes
(ttemu/tensix/units/movers_native.c). Without a compiler the install goes on and
ttemu uses their pure-Python paths (fpu_fused.py, sfpu/batch.py, pack.py / unpack.py /
math.py), with the same results. Everything else about the package is in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("ttemu.tensix.units._fpu_native", ["ttemu/tensix/units/fpu_native.c"], optional=True),
                   Extension("ttemu.tensix.units._movers_native", ["ttemu/tensix/units/movers_native.c"],
                             optional=True),
                   # -ffp-contract=off: sfpu_native.c's float64 multiply-add form rounds every step on its own
                   Extension("ttemu.tensix.units.sfpu._sfpu_native", ["ttemu/tensix/units/sfpu/sfpu_native.c"],
                             extra_compile_args=["-ffp-contract=off"], optional=True)])
