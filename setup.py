"""The compiled Matrix Unit datapath (ttemu/tensix/units/fpu_native.c), built at install
when a C compiler is present; without one the install goes on and ttemu uses the
pure-Python path (fpu_fused.py), with the same results. Everything else about the
package is in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("ttemu.tensix.units._fpu_native", ["ttemu/tensix/units/fpu_native.c"],
                             optional=True)])
