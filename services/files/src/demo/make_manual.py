#!/usr/bin/env python3
"""Writes manual.pdf beside this file: the demo's one-page operating manual of the patient
monitor (see ../demo.rs). Run by hand when the text changes, never by the build:

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install fonttools
    /tmp/venv/bin/python services/files/src/demo/make_manual.py

The text is Russian, so the PDF embeds its font (DejaVu Sans, free to embed and
redistribute), cut down to the glyphs the page uses: a Type0 font with Identity-H
encoding and a ToUnicode map, so viewers show it and copy or search it as text.
The output is the same on every run (no dates, fixed ids).
"""

import io
import zlib
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
OUT = Path(__file__).with_name("manual.pdf")
TITLE = "Руководство по эксплуатации"

# (font size, text) from the top of the page down; an empty text is a gap.
LINES = [
    (20, "Монитор пациента BeneView T5"),
    (14, "Руководство по эксплуатации (краткое, для отделения)"),
    (0, ""),
    (13, "1. Включение"),
    (11, "Подключите монитор к сети: индикатор питания загорится зелёным."),
    (11, "Нажмите кнопку питания и дождитесь самотестирования (около 30 с)."),
    (11, "Выберите «Новый пациент» и категорию: взрослый, ребёнок, новорождённый."),
    (0, ""),
    (13, "2. Датчики"),
    (11, "Электроды ЭКГ — по схеме на корпусе; датчик SpO₂ — на палец;"),
    (11, "манжета АД — на плечо, на уровне сердца."),
    (0, ""),
    (13, "3. Тревоги"),
    (11, "Красная — немедленно к пациенту. Жёлтая — проверьте датчики."),
    (11, "Звук тревоги можно приглушить на 2 минуты, но не отключать."),
    (0, ""),
    (13, "4. Уход"),
    (11, "Протирайте корпус и кабели салфетками с дезинфицирующим средством."),
    (11, "Не погружайте датчики в жидкость. Плановое ТО — раз в год."),
    (0, ""),
    (9, "Демонстрационный документ портала больницы."),
]


def subset_font(text):
    font = TTFont(FONT)
    options = subset.Options()
    options.hinting = False
    options.name_IDs = [1, 2]
    options.layout_features = []
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=text)
    subsetter.subset(font)
    out = io.BytesIO()
    font.save(out)
    font = TTFont(io.BytesIO(out.getvalue()))
    return out.getvalue(), font


def utf16_hex(text):
    return text.encode("utf-16-be").hex().upper()


def main():
    used = "".join(sorted(set("".join(text for _, text in LINES))))
    data, font = subset_font(used)
    cmap = font.getBestCmap()
    gid = {ch: font.getGlyphID(cmap[ord(ch)]) for ch in used}
    scale = 1000 / font["head"].unitsPerEm
    advance = {g: round(font["hmtx"][font.getGlyphName(g)][0] * scale) for g in gid.values()}

    # The page: a drawing of the monitor top right (a screen with an ECG trace), then the text.
    ops = [
        "0.85 0.93 0.97 rg 0.1 0.3 0.45 RG 2 w",
        "455 770 90 56 re B",
        "0.15 0.6 0.35 RG 1.5 w",
        "461 798 m 478 798 l 483 808 l 488 784 l 494 818 l 500 798 l 539 798 l S",
        "0.1 0.3 0.45 RG 2 w 490 770 m 486 760 l 514 760 l 510 770 l S",
        "0 0 0 rg",
    ]
    y = 780
    for size, text in LINES:
        if not text:
            y -= 10
            continue
        glyphs = "".join(f"{gid[ch]:04X}" for ch in text)
        ops.append(f"BT /F1 {size} Tf 50 {y} Td <{glyphs}> Tj ET")
        y -= round(size * 1.6)
    content = "\n".join(ops).encode()

    tounicode = "\n".join(
        [
            "/CIDInit /ProcSet findresource begin 12 dict begin begincmap",
            "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
            "/CMapName /Adobe-Identity-UCS def /CMapType 2 def",
            "1 begincodespacerange <0000> <FFFF> endcodespacerange",
            f"{len(gid)} beginbfchar",
            *(f"<{g:04X}> <{utf16_hex(ch)}>" for ch, g in sorted(gid.items(), key=lambda i: i[1])),
            "endbfchar endcmap CMapName currentdict /CMap defineresource pop end end",
        ]
    ).encode()

    widths = " ".join(f"{g} [{advance[g]}]" for g in sorted(advance))
    head = font["head"]
    bbox = [round(v * scale) for v in (head.xMin, head.yMin, head.xMax, head.yMax)]
    ascent = round(font["hhea"].ascent * scale)
    descent = round(font["hhea"].descent * scale)

    def stream(body, extra=""):
        packed = zlib.compress(body, 9)
        return f"<< /Length {len(packed)} /Filter /FlateDecode{extra} >>\nstream\n".encode() + packed + b"\nendstream"

    objects = [
        b"<< /Type /Catalog /Pages 2 0 R /Lang (ru-RU) >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        stream(content),
        b"<< /Type /Font /Subtype /Type0 /BaseFont /AAAAAA+DejaVuSans /Encoding /Identity-H /DescendantFonts [6 0 R] /ToUnicode 9 0 R >>",
        f"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /AAAAAA+DejaVuSans /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor 7 0 R /CIDToGIDMap /Identity /DW 600 /W [{widths}] >>".encode(),
        f"<< /Type /FontDescriptor /FontName /AAAAAA+DejaVuSans /Flags 32 /FontBBox [{' '.join(map(str, bbox))}] /ItalicAngle 0 /Ascent {ascent} /Descent {descent} /CapHeight {ascent} /StemV 80 /FontFile2 8 0 R >>".encode(),
        stream(data, f" /Length1 {len(data)}"),
        stream(tounicode),
        f"<< /Title <FEFF{utf16_hex(TITLE)}> /Producer (Portal demo) >>".encode(),
    ]

    pdf = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(pdf))
        pdf += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(pdf)
    pdf += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        pdf += f"{offset:010d} 00000 n \n".encode()
    pdf += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info {len(objects)} 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    OUT.write_bytes(pdf)
    print(f"{OUT}: {len(pdf)} bytes, {len(gid)} glyphs")


if __name__ == "__main__":
    main()
