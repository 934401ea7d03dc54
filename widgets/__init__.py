"""The course's computations, in standard-library Python that runs unchanged in CPython 3.11+ and in
Pyodide (the browser). The build (build_numbers.py) and the page widgets call the same functions.

Public API, one module per concern:
- ``items``: :class:`Item`, the tree of named byte counts every ledger returns.
- ``models``: :func:`load_facts`, :func:`model` (facts from anchor-model.json).
- ``ledger``: :func:`model_states` (bytes per parameter by training recipe).
- ``activations``: :func:`activation_memory` (Korthikanti et al. 2022, eq. 1, with recomputation modes).
- ``units``: display helpers (GB = 10^9 B, GiB = 2^30 B, thousands separators).
- ``memory_bar``: :func:`view`, lesson 5's stacked memory bar (numbers + Plotly figure spec).
- ``api``: :func:`handle`, the JSON entry point the page's Web Worker calls.
"""
