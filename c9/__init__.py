"""The course's computations, in standard-library Python that runs unchanged in CPython 3.11+ and in
Pyodide (the browser). The build (build_numbers.py) and the page widgets call the same functions.

Public API, one module per concern:
- ``formats``: number formats as data (FP32 … E2M1, E8M0); exact decode/encode, fields, neighbours, ulp.
- ``blockscale``: per-tensor, 1×128 / 128×128 tiles, MXFP8/MXFP6/MXFP4, NVFP4 (:func:`quantize`).
- ``codec_figures``: the rounding figures the chapter quotes.
- ``items``: :class:`Item`, the tree of named byte counts every ledger returns.
- ``models``: facts from anchor-model.json.
- ``ledger``: model states by recipe (bytes per parameter).
- ``activations``: Korthikanti et al. 2022, eq. 1, with recomputation modes.
- ``units``: display helpers (GB = 10^9 B, GiB = 2^30 B, thousands separators).
- ``errors``: :class:`InputError`, bad reader input with a Chinese message.
- ``params``: the checks every view makes on its parameters (defaults, integers, models, formats).

Widget modules (each: ``WIDGET`` name, ``page_context()`` for the build, ``view(params)`` for the worker):
``memory_bar``, ``timeline``, ``formula``, ``score_tensor``.
- ``api``: :func:`handle`, the JSON entry point the page's Web Worker calls; ``WIDGETS`` maps names to modules.
"""
