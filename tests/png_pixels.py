"""The pixels of a PNG screenshot (8-bit RGB or RGBA, not interlaced, as Chromium writes them), read with the
standard library: zlib and the five scanline filters of the PNG specification (section 9)."""

from __future__ import annotations

import struct
import zlib


def decode(png: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows): each row is width × channels bytes."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, data, header = 8, b"", None
    while pos < len(png):
        (size,) = struct.unpack(">I", png[pos : pos + 4])
        kind, body = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + size]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            data += body
        pos += 12 + size
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    n = 3 if colour == 2 else 4
    raw, stride, rows, prev = zlib.decompress(data), width * n, [], bytes(width * n)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - n] if i >= n else 0
            b, c = prev[i], prev[i - n] if i >= n else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = bytes(line)
        rows.append(prev)
    return width, height, rows


def grey(png: bytes):
    """A function (x, y) → the pixel's mean of R, G and B (0 black … 255 white)."""
    width, _, rows = decode(png)
    n = len(rows[0]) // width
    return lambda x, y: sum(rows[y][x * n : x * n + 3]) / 3
