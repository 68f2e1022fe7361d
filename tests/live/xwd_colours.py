#!/usr/bin/env python3
"""Counts pixels of given colours in an X window dump (xwd -root, 24/32-bit
TrueColor, as Xvfb makes), and the distinct colours in it.

Usage: xwd_colours.py FILE.xwd RRGGBB [RRGGBB ...]
Prints "colours=N" and one "RRGGBB=COUNT" line per colour asked for (a
pixel counts when each channel is within 40 of the colour: antialiased
lines blend into the background).
"""
import struct
import sys


def read_xwd(path):
    data = open(path, "rb").read()
    (header_size, _version, _fmt, depth, width, height, _xoff, byte_order, _unit,
     _bit_order, _pad, bits_per_pixel, bytes_per_line, _visual, red_mask, green_mask,
     blue_mask, _bits_rgb, _entries, ncolors) = struct.unpack(">20I", data[:80])
    if bits_per_pixel != 32 or depth < 24:
        sys.exit(f"unsupported dump: depth {depth}, {bits_per_pixel} bits per pixel")
    offset = header_size + ncolors * 12
    fmt = "<I" if byte_order == 0 else ">I"
    shifts = [(m, (m & -m).bit_length() - 1) for m in (red_mask, green_mask, blue_mask)]
    pixels = []
    for y in range(height):
        row = data[offset + y * bytes_per_line: offset + y * bytes_per_line + 4 * width]
        for (value,) in struct.iter_unpack(fmt, row):
            pixels.append(tuple((value & m) >> s for m, s in shifts))
    return pixels


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    pixels = read_xwd(sys.argv[1])
    print(f"colours={len(set(pixels))}")
    for hexcolour in sys.argv[2:]:
        want = tuple(int(hexcolour[i:i + 2], 16) for i in (0, 2, 4))
        n = sum(1 for p in pixels if all(abs(a - b) <= 40 for a, b in zip(p, want)))
        print(f"{hexcolour}={n}")


if __name__ == "__main__":
    main()
