"""The numerics, exact and markup-free: number formats and block scaling, ledgers of named bytes, eq. 1 and
per-tensor activations, model configs and parameter counts."""
