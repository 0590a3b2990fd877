"""A small PNG decoder for the browser tests (no Pillow needed): 8-bit RGB/RGBA, non-interlaced."""

from __future__ import annotations

import struct
import zlib

import numpy as np


def read_png(path) -> np.ndarray:
    """The image as a (height, width, channels) uint8 array."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
    bpp = 3 if colour == 2 else 4
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), dtype=np.uint8)
    stride = width * bpp
    rows = raw.reshape(height, stride + 1)
    out = np.zeros((height, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        kind, line = rows[y, 0], rows[y, 1:].astype(np.int32)
        if kind == 0:
            cur = line
        elif kind == 1:  # Sub: running sum per channel
            cur = np.cumsum(line.reshape(-1, bpp), axis=0).reshape(-1) & 0xFF
        elif kind == 2:  # Up
            cur = (line + prev) & 0xFF
        else:  # Average and Paeth depend on the byte to the left: byte by byte
            cur_list = [0] * stride
            up = prev.tolist()
            filt = line.tolist()
            for i in range(stride):
                a = cur_list[i - bpp] if i >= bpp else 0
                b = up[i]
                if kind == 3:
                    cur_list[i] = (filt[i] + ((a + b) >> 1)) & 0xFF
                else:
                    c = up[i - bpp] if i >= bpp else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                    cur_list[i] = (filt[i] + pred) & 0xFF
            cur = np.array(cur_list, dtype=np.int32)
        out[y] = cur
        prev = cur
    return out.reshape(height, width, bpp)


def non_white_fraction(image: np.ndarray, threshold: int = 245) -> float:
    rgb = image[..., :3]
    return float(np.mean(np.any(rgb < threshold, axis=-1)))
