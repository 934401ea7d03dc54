"""Our small decoder-only Transformer (GPT-style, pre-norm, RMSNorm, no biases, tied embeddings).

The attention is written out (q·kᵀ, softmax, ·v) rather than fused, so the s×s score tensor really is
saved for backward, as in the activation formula of lesson 5 (Korthikanti et al. 2022 eq. 1).
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F


class Block(nn.Module):
    def __init__(self, d: int, n_heads: int, ffn_mult: int):
        super().__init__()
        self.n_heads = n_heads
        self.norm1 = nn.RMSNorm(d, elementwise_affine=True)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.proj = nn.Linear(d, d, bias=False)
        self.norm2 = nn.RMSNorm(d, elementwise_affine=True)
        self.fc1 = nn.Linear(d, ffn_mult * d, bias=False)
        self.fc2 = nn.Linear(ffn_mult * d, d, bias=False)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        hd = d // self.n_heads
        q, k, v = self.qkv(self.norm1(x)).split(d, dim=-1)
        q, k, v = (t.view(b, s, self.n_heads, hd).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        scores = scores.masked_fill(mask[:s, :s], float("-inf"))
        att = torch.softmax(scores, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.proj(y)
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


class TinyGPT(nn.Module):
    def __init__(
        self,
        vocab_size: int,
        context: int,
        d_model: int,
        n_layers: int,
        n_heads: int,
        ffn_mult: int = 4,
        **_ignored,
    ):
        super().__init__()
        self.context = context
        self.tok = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Embedding(context, d_model)
        self.blocks = nn.ModuleList(Block(d_model, n_heads, ffn_mult) for _ in range(n_layers))
        self.norm = nn.RMSNorm(d_model, elementwise_affine=True)
        self.register_buffer(
            "mask", torch.triu(torch.ones(context, context, dtype=torch.bool), 1), persistent=False
        )
        self.apply(self._init)
        for blk in self.blocks:  # GPT-2's scaled init of the residual projections
            for lin in (blk.proj, blk.fc2):
                nn.init.normal_(lin.weight, std=0.02 / math.sqrt(2 * n_layers))

    @staticmethod
    def _init(m: nn.Module) -> None:
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        b, s = idx.shape
        x = self.tok(idx) + self.pos(torch.arange(s, device=idx.device))
        for blk in self.blocks:
            x = blk(x, self.mask)
        return F.linear(self.norm(x), self.tok.weight)  # tied output head


def build(cfg: dict) -> TinyGPT:
    m = cfg["model"]
    assert m["norm"] == "rmsnorm" and not m["bias"] and m["tied_embeddings"] and m["positional"] == "learned"
    return TinyGPT(**m)


def param_count(model: nn.Module) -> int:
    """Distinct parameters (the tied embedding counted once)."""
    return sum(p.numel() for p in model.parameters())
