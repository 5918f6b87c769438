#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets into tests/fuzz/corpus/.

The PNG and TIFF seeds are built from zlib and struct alone: every PNG colour
type and bit depth, interlaced and not, with the colour chunks the reader
keeps; TIFFs of 8, 16 bits and float, gray to RGBA, in strips, tiles and
planes, raw and Deflate, with an orientation and an ICC profile; plus a few
damaged files of each.  The JPEG seeds need Pillow (Debian's python3-pil):
baseline, progressive, gray, 4:4:4, EXIF orientation, an ICC profile,
restart markers.  Run it from the repository root; the PNG and TIFF output is
deterministic, so re-running it changes none of it, and the JPEG output is as
long as Pillow's libjpeg stays the same.
"""
import os
import struct
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


SIG = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def raw_rows(width, height, colour, depth, filt=0):
    """Scanlines of a small gradient, each led by its filter byte."""
    bits = CHANNELS[colour] * depth
    row_bytes = (width * bits + 7) // 8
    out = bytearray()
    for y in range(height):
        out.append(filt if y else 0)
        out.extend(((x * 37 + y * 11) & 0xFF) for x in range(row_bytes))
        if colour == 3:  # palette indices must stay inside a 4-entry palette
            mask = {1: 0xFF, 2: 0xFF, 4: 0x33, 8: 0x03}[depth]
            for i in range(len(out) - row_bytes, len(out)):
                out[i] &= mask
    return bytes(out)


def adam7_rows(width, height, colour, depth):
    """Scanlines of the seven Adam7 passes, one after the other."""
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4),
              (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
    out = b""
    for x0, y0, dx, dy in passes:
        pw = max(0, (width - x0 + dx - 1) // dx)
        ph = max(0, (height - y0 + dy - 1) // dy)
        if pw and ph:
            out += raw_rows(pw, ph, colour, depth)
    return out


def png(width, height, colour, depth, interlace=0, extra=b"", filt=0, idat_split=1):
    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, interlace)
    data = adam7_rows(width, height, colour, depth) if interlace else \
        raw_rows(width, height, colour, depth, filt)
    z = zlib.compress(data, 9)
    out = SIG + chunk(b"IHDR", ihdr)
    if colour == 3:
        out += chunk(b"PLTE", bytes([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]))
    out += extra
    step = max(1, (len(z) + idat_split - 1) // idat_split)
    for i in range(0, len(z), step):
        out += chunk(b"IDAT", z[i:i + step])
    return out + chunk(b"IEND", b"")


def colour_chunks():
    gama = chunk(b"gAMA", struct.pack(">I", 45455))
    chrm = chunk(b"cHRM", struct.pack(">8I", 31270, 32900, 64000, 33000,
                                       30000, 60000, 15000, 6000))
    phys = chunk(b"pHYs", struct.pack(">IIB", 2835, 2835, 1))
    return gama + chrm + phys


def iccp_chunk():
    # Not a real profile: the reader keeps the bytes, libpng checks the header.
    profile = bytearray(132)
    struct.pack_into(">I", profile, 0, len(profile))
    profile[36:40] = b"acsp"
    return chunk(b"iCCP", b"fake\x00\x00" + zlib.compress(bytes(profile)))


def write(target, name, data):
    folder = os.path.join(ROOT, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def png_seeds():
    for colour, depths in ((0, (1, 2, 4, 8, 16)), (2, (8, 16)), (3, (1, 2, 4, 8)),
                           (4, (8, 16)), (6, (8, 16))):
        for depth in depths:
            write("png", "c%d_d%d.png" % (colour, depth), png(5, 3, colour, depth))
    write("png", "c2_d8_adam7.png", png(9, 9, 2, 8, interlace=1))
    write("png", "c0_d1_adam7.png", png(3, 5, 0, 1, interlace=1))
    write("png", "c6_d16_adam7.png", png(4, 4, 6, 16, interlace=1))
    write("png", "one_pixel.png", png(1, 1, 0, 8))
    write("png", "paeth_split_idat.png", png(7, 6, 2, 8, filt=4, idat_split=3))
    write("png", "colour_chunks.png", png(4, 2, 2, 8, extra=colour_chunks()))
    write("png", "srgb.png", png(2, 2, 6, 8, extra=chunk(b"sRGB", b"\x00")))
    write("png", "iccp.png", png(2, 2, 2, 8, extra=iccp_chunk()))
    trns = chunk(b"tRNS", b"\x00\x80\xff")
    write("png", "palette_trns.png", png(4, 4, 3, 8, extra=trns))
    write("png", "gray_trns.png", png(3, 3, 0, 8, extra=chunk(b"tRNS", b"\x00\x25")))
    text = chunk(b"tEXt", b"Comment\x00seed")
    write("png", "text_chunk.png", png(2, 2, 0, 8, extra=text))
    good = png(3, 3, 2, 8)
    write("png", "no_iend.png", good[:-12])
    write("png", "cut_in_idat.png", good[:45])
    write("png", "signature_only.png", SIG)
    write("png", "not_png.txt", "P5 2 2 255\n")


def tiff(width, height, spp=1, bps=8, fmt=1, photometric=None, planar=1, compression=1,
         tile=None, extra=(), orientation=1, icc=b"", big_endian=False):
    """A TIFF of one image whose samples are a small gradient."""
    e = ">" if big_endian else "<"
    photometric = (2 if spp >= 3 else 1) if photometric is None else photometric
    size = bps // 8 if bps >= 8 else 1
    code = {(1, 8): "B", (1, 16): "H", (3, 32): "f"}.get((fmt, bps), "B")
    planes = spp if planar == 2 else 1
    per = 1 if planar == 2 else spp
    tw, th = tile if tile else (width, height)
    blocks = []
    for _ in range(planes):
        for ty in range(0, height, th):
            for tx in range(0, width, tw):
                vals = []
                for y in range(th):
                    for x in range(tw):
                        for c in range(per):
                            v = ((tx + x) * 37 + (ty + y) * 11 + c * 50) & 0xFF
                            vals.append(v / 255.0 if code == "f" else v * (257 if bps == 16 else 1))
                raw = struct.pack(e + code * len(vals), *vals) if bps >= 8 else \
                    bytes(((v >> 4) & 0xF) | 0xA0 for v in vals[: (len(vals) * bps + 7) // 8])
                blocks.append(zlib.compress(raw) if compression == 8 else raw)
    entries = [(256, 4, [width]), (257, 4, [height]), (258, 3, [bps] * spp),
               (259, 3, [compression]), (262, 3, [photometric]), (274, 3, [orientation]),
               (277, 3, [spp]), (284, 3, [planar]), (339, 3, [fmt] * spp)]
    if photometric == 3:
        n = 1 << bps
        entries.append((320, 3, [(i * 9000) & 0xFFFF for i in range(3 * n)]))
    if extra:
        entries.append((338, 3, list(extra)))
    data_at = 8
    offsets = []
    for b in blocks:
        offsets.append(data_at)
        data_at += len(b)
    if tile:
        entries += [(322, 4, [tw]), (323, 4, [th]), (324, 4, offsets),
                    (325, 4, [len(b) for b in blocks])]
    else:
        entries += [(278, 4, [th]), (273, 4, offsets), (279, 4, [len(b) for b in blocks])]
    if icc:
        entries.append((34675, 7, list(icc)))
    entries.sort()
    ifd_at = data_at + (data_at & 1)
    heap_at = ifd_at + 2 + 12 * len(entries) + 4
    ifd, heap = b"", b""
    for tag, kind, values in entries:
        unit = {3: "H", 4: "I", 7: "B"}[kind]
        packed = struct.pack(e + unit * len(values), *values)
        if len(packed) <= 4:
            value = packed.ljust(4, b"\0")
        else:
            value = struct.pack(e + "I", heap_at + len(heap))
            heap += packed + b"\0" * (len(packed) & 1)
        ifd += struct.pack(e + "HHI", tag, kind, len(values)) + value
    head = (b"MM\0*" if big_endian else b"II*\0") + struct.pack(e + "I", ifd_at)
    body = b"".join(blocks).ljust(ifd_at - 8, b"\0")
    return head + body + struct.pack(e + "H", len(entries)) + ifd + b"\0\0\0\0" + heap


def tiff_seeds():
    write("tiff", "gray8.tif", tiff(5, 3))
    write("tiff", "gray16_be.tif", tiff(5, 3, bps=16, big_endian=True))
    write("tiff", "grayf.tif", tiff(4, 3, bps=32, fmt=3))
    write("tiff", "ga8.tif", tiff(4, 4, spp=2, photometric=1, extra=(2,)))
    write("tiff", "rgb8_deflate.tif", tiff(6, 5, spp=3, compression=8))
    write("tiff", "rgb16_planes.tif", tiff(5, 4, spp=3, bps=16, planar=2))
    write("tiff", "rgbf_deflate.tif", tiff(4, 4, spp=3, bps=32, fmt=3, compression=8))
    write("tiff", "rgba8_assoc.tif", tiff(4, 3, spp=4, extra=(1,)))
    write("tiff", "rgba16_tiled.tif", tiff(20, 18, spp=4, bps=16, tile=(16, 16), extra=(2,)))
    write("tiff", "gray8_white.tif", tiff(3, 3, photometric=0))
    write("tiff", "rotated.tif", tiff(5, 3, spp=3, orientation=6))
    write("tiff", "icc.tif", tiff(2, 2, spp=3, icc=bytes(range(200))))
    write("tiff", "palette4.tif", tiff(4, 2, bps=4, photometric=3))
    good = tiff(6, 4, spp=3)
    write("tiff", "cut.tif", good[:40])
    write("tiff", "header_only.tif", b"II*\0\x08\0\0\0")
    write("tiff", "unknown_codec.tif", tiff(3, 3, compression=12345))


def jpeg_seeds():
    try:
        from PIL import Image
    except ImportError:
        print("no Pillow (python3-pil): the JPEG seeds are left as they are")
        return
    import io

    def save(name, img, **kw):
        out = io.BytesIO()
        img.save(out, "JPEG", **kw)
        write("jpeg", name, out.getvalue())

    rgb = Image.new("RGB", (19, 13))
    rgb.putdata([((x * 13) & 255, (y * 19) & 255, (x * y) & 255)
                 for y in range(13) for x in range(19)])
    save("baseline.jpg", rgb, quality=90)
    save("progressive.jpg", rgb, quality=75, progressive=True)
    save("gray.jpg", rgb.convert("L"), quality=90)
    save("444.jpg", rgb, quality=95, subsampling=0)
    save("cmyk.jpg", rgb.convert("CMYK"), quality=90)
    save("icc.jpg", rgb, quality=80, icc_profile=bytes(range(256)) * 3)
    exif = Image.Exif()
    exif[0x0112] = 6
    save("exif_rotated.jpg", rgb, quality=80, exif=exif.tobytes())
    out = io.BytesIO()
    rgb.save(out, "JPEG", quality=50)
    data = out.getvalue()
    write("jpeg", "cut.jpg", data[: len(data) // 2])
    write("jpeg", "no_eoi.jpg", data[:-2])


KERNELS = {
    "gaussian3": "1,2,1;2,4,2;1,2,1",
    "one": "1",
    "sharpen": "0 -1 0\n-1 5 -1\n0 -1 0\n",
    "comments": "# a box blur\n1 1 1  # top\n\n1 1 1\n1 1 1\n# done",
    "row": "1, 4, 6, 4, 1",
    "column": "1;2;1",
    "floats": "0.0625 0.125 0.0625; 0.125 0.25 0.125; 0.0625 0.125 0.0625",
    "exponents": "1e-3 -2.5E+2 +3;4 5e0 .5;-.25 7 8",
    "crlf": "1\t2\t1\r\n2\t4\t2\r\n1\t2\t1\r\n",
    "even_width": "1 2",
    "even_rows": "1;1",
    "ragged": "1 2 3;4 5",
    "not_number": "1 x 1",
    "trailing_comma": "1,2,",
    "empty_value": "1,,2",
    "infinite": "1 inf 1",
    "too_big": "1 1e39 1",
    "hex": "0x1p-2 0x10 1",
    "empty": "",
    "only_comment": "# nothing",
}

SPECS = {
    "gpu": "gpu", "cpu": "cpu", "accelerator": "ACCELERATOR", "index0": "0",
    "index9": "9", "name": "pocl", "vendor": "nvidia", "opencv_gpu0": ":GPU:0",
    "opencv_cuda": "NVIDIA CUDA:GPU:", "opencv_all": "platform:type:name",
    "opencv_cpu_name": "portable:cpu:pthread", "empty_fields": "::",
    "three_colons": "a:b:c:d", "long_index": "1234567890", "percent": "%s%n%x",
    "empty": "",
}


def main():
    png_seeds()
    tiff_seeds()
    jpeg_seeds()
    for name, text in KERNELS.items():
        write("kernel_text", name + ".txt", text)
    for name, text in SPECS.items():
        write("device_spec", name, text)


if __name__ == "__main__":
    main()
