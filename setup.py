"""The one thing pyproject.toml cannot say: the solver's optional C search (host/bawo/_pnsearch.c).

`optional=True`: a machine with no C compiler still installs, and bawo.solve runs its pure-Python
search, the same search node for node, only slower."""
from setuptools import Extension, setup

setup(ext_modules=[Extension("bawo._pnsearch", ["host/bawo/_pnsearch.c"],
                             extra_compile_args=["-O2"], optional=True)])
