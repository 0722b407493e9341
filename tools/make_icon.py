"""Draw the plugin's icon, plugin/.claude-plugin/icon.png: a white integral sign on a blue tile.

Claude Code's validator (2.1.332, `claude plugin validate`) looks for a square PNG or JPEG of 512
to 2048 px a side, under 2 MB, at .claude-plugin/icon.png; SVG is not accepted. This writes one
with the standard library alone (no imaging package): the sign is a stroke of discs along a
curve, each pixel's cover computed from its distance to the nearest disc (antialiased edges).

    python3 tools/make_icon.py          # rewrites plugin/.claude-plugin/icon.png
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

SIZE = 512
CORNER = 96  # the tile's corner radius
TILE_TOP, TILE_BOTTOM = (38, 70, 128), (24, 44, 86)  # RGB, a vertical gradient
SIGN = (255, 255, 255)
OUT = Path(__file__).resolve().parent.parent / "plugin" / ".claude-plugin" / "icon.png"


def bezier(points: list[tuple[float, float]], t: float) -> tuple[float, float]:
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = points
    u = 1 - t
    x = u**3 * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t**3 * x3
    y = u**3 * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t**3 * y3
    return x, y


def sign_discs() -> list[tuple[float, float, float]]:
    """(x, y, radius) along the integral sign: thin at the hooks, thick in the middle, a ball at
    each end as in a typeset integral."""
    spine = [(350.0, 118.0), (262.0, 58.0), (268.0, 210.0), (256.0, 256.0)]
    lower = [(256.0, 256.0), (244.0, 302.0), (250.0, 454.0), (162.0, 394.0)]
    discs = []
    steps = 400
    for half, curve in enumerate((spine, lower)):
        for i in range(steps + 1):
            t = i / steps
            whole = (half + t) / 2  # 0 at the top hook, 1 at the bottom one
            x, y = bezier(curve, t)
            discs.append((x, y, 9 + 21 * math.sin(math.pi * whole) ** 1.5))
    discs += [(350.0, 118.0, 23.0), (162.0, 394.0, 23.0)]
    return discs


def cover(discs: list[tuple[float, float, float]]) -> list[list[float]]:
    """How much of each pixel the sign covers, 0 to 1."""
    grid = [[0.0] * SIZE for _ in range(SIZE)]
    for cx, cy, r in discs:
        for y in range(max(0, int(cy - r - 1)), min(SIZE, int(cy + r + 2))):
            row = grid[y]
            dy = y + 0.5 - cy
            for x in range(max(0, int(cx - r - 1)), min(SIZE, int(cx + r + 2))):
                inside = r - math.hypot(x + 0.5 - cx, dy) + 0.5
                if inside > row[x]:
                    row[x] = min(inside, 1.0)
    return grid


def tile_alpha(x: int, y: int) -> float:
    """The rounded tile's cover of pixel (x, y)."""
    nx = min(max(x + 0.5, CORNER), SIZE - CORNER)
    ny = min(max(y + 0.5, CORNER), SIZE - CORNER)
    return min(max(CORNER - math.hypot(x + 0.5 - nx, y + 0.5 - ny) + 0.5, 0.0), 1.0)


def pixels() -> bytes:
    sign = cover(sign_discs())
    rows = bytearray()
    for y in range(SIZE):
        rows.append(0)  # PNG filter: none
        shade = y / (SIZE - 1)
        tile = [round(a + (b - a) * shade) for a, b in zip(TILE_TOP, TILE_BOTTOM, strict=True)]
        for x in range(SIZE):
            s = sign[y][x]
            rgb = [round(t + (w - t) * s) for t, w in zip(tile, SIGN, strict=True)]
            rows += bytes(rgb) + bytes([round(255 * tile_alpha(x, y))])
    return bytes(rows)


def png(raw: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def main() -> None:
    OUT.write_bytes(png(pixels()))
    print(f"{OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
