"""The library behind the math plugin's scripts: one module per concept.

The scripts in scripts/ are thin command-line front doors over these modules; data crosses every
boundary as JSON described by a schema in schemas/.
"""

from .core.version import VERSION

__version__: str = VERSION  # its one home: core/version.py (plugin.json's "version")
