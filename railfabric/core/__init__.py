"""The bottom layer: the types every other part of railfabric speaks, importing nothing else of fabric.

- `source_map`: Location (a place in the inventory) and SourceMap (where each node of the loaded tree came from);
- `finding`: Finding and Severity, the finding budget and the exit code a list of findings gives;
- `codes`: the catalogue of finding codes (`fabric explain CODE`);
- `text`: clipping text to one printable line (the backstop every finding message passes through).
"""
