"""The library behind the math plugin's scripts: one module per concept.

The scripts in scripts/ are thin command-line front doors over these modules; data crosses every
boundary as JSON described by a schema in schemas/.
"""

__version__ = "0.1.0"
