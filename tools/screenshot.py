"""Reading Tessera screenshots: the text format the hypervisor's shell command `screenshot`
writes over serial (grammar in docs/display.md and vmm/display/screenshot.h).

Standard library only.  The end-to-end tests import this module; tools/screenshot-to-png is the
command-line front end.

    import screenshot
    shot = screenshot.decode(console_text)            # the first screenshot in the text
    shot.pixel(10, 20)                                # 0xRRGGBB
    shot.fraction((0, 0, 512, 384), 0x202020)         # share of a rectangle in one colour
    shot.is_nosignal((0, 0, 512, 384))                # the tile shows the no-signal pattern
    screenshot.write_png(shot, "wall.png")

Anything that is not a screenshot (shell prompts, log lines, ANSI colour codes, CR/LF line
ends) is ignored.  A screenshot that is cut short, malformed, aborted by the hypervisor or whose
pixels do not match its CRC raises ScreenshotError with a message that says which and where.
"""
import re
import struct
import zlib

VERSION = 1
NOSIGNAL_BG = 0x202020      # vmm/display/compose.h DISPLAY_NOSIGNAL_BG
NOSIGNAL_FG = 0x707070      # vmm/display/compose.h DISPLAY_NOSIGNAL_FG

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x07")
_HEADER = re.compile(r"TSHOT (\d+) (\d+) (\d+) (\S+)\s*$")
_END = re.compile(r"TSHOT END ([0-9a-f]{8})\s*$")
_ABORT = re.compile(r"TSHOT ABORT ?(.*)$")
_CRCLINE = re.compile(r"TSHOT CRC (\d+) (\d+) (\S+) ([0-9a-f]{8})\s*$")
_RUN = re.compile(r"(?:([1-9][0-9]*)\*)?([0-9a-f]{6})$")
_ROWLINE = re.compile(r"^(?:=[1-9][0-9]*|(?:(?:[1-9][0-9]*\*)?[0-9a-f]{6})(?: (?:[1-9][0-9]*\*)?[0-9a-f]{6})*)$")


class ScreenshotError(Exception):
    pass


def crc32_rgb(rgb):
    """The screenshot CRC of pixels given as R, G, B bytes in row-major order (zlib's CRC-32)."""
    return zlib.crc32(bytes(rgb)) & 0xFFFFFFFF


def nosignal_pixel(w, h, x, y):
    """The no-signal pattern of a w x h tile at (x, y), as vmm/display/compose.c draws it."""
    bar_h = max(1, h // 8)
    bar_y = (h - bar_h) // 2
    return NOSIGNAL_FG if bar_y <= y < bar_y + bar_h and w // 8 <= x < w - w // 8 else NOSIGNAL_BG


class Screenshot:
    """One decoded picture: width, height, subject ("wall" or a guest name), crc, and rgb (a
    bytearray of width * height * 3 bytes, row-major)."""

    def __init__(self, width, height, subject, crc, rgb, line=0):
        self.width, self.height, self.subject, self.crc, self.rgb = width, height, subject, crc, rgb
        self.line = line        # where its header was in the input (1-based)

    def __repr__(self):
        return f"<Screenshot {self.subject} {self.width}x{self.height} crc {self.crc:08x}>"

    def pixel(self, x, y):
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise IndexError(f"pixel ({x}, {y}) outside {self.width}x{self.height}")
        i = (y * self.width + x) * 3
        r, g, b = self.rgb[i:i + 3]
        return r << 16 | g << 8 | b

    def _clip(self, rect):
        x, y, w, h = rect
        x0, y0 = max(0, x), max(0, y)
        x1, y1 = min(self.width, x + w), min(self.height, y + h)
        if x1 <= x0 or y1 <= y0:
            raise ValueError(f"rectangle {rect} lies outside the {self.width}x{self.height} picture")
        return x0, y0, x1, y1

    def histogram(self, rect=None):
        """{0xRRGGBB: pixel count} over rect (x, y, w, h), default the whole picture."""
        x0, y0, x1, y1 = self._clip(rect or (0, 0, self.width, self.height))
        counts = {}
        for y in range(y0, y1):
            row = self.rgb[(y * self.width + x0) * 3:(y * self.width + x1) * 3]
            for i in range(0, len(row), 3):
                c = row[i] << 16 | row[i + 1] << 8 | row[i + 2]
                counts[c] = counts.get(c, 0) + 1
        return counts

    def fraction(self, rect, colour):
        """Share (0..1) of the pixels in rect that are exactly `colour` (0xRRGGBB)."""
        hist = self.histogram(rect)
        return hist.get(colour, 0) / sum(hist.values())

    def dominant(self, rect=None):
        """The most common colour in rect and its share."""
        hist = self.histogram(rect)
        c = max(hist, key=hist.get)
        return c, hist[c] / sum(hist.values())

    def check_tile(self, rect, colour, min_fraction=0.9):
        """True if at least min_fraction of rect is `colour`."""
        return self.fraction(rect, colour) >= min_fraction

    def is_nosignal(self, rect):
        """True if rect (a whole tile as placed on the wall) shows exactly the no-signal pattern
        (clipped at the picture's edge like the wall clips it)."""
        x, y, w, h = rect
        x0, y0, x1, y1 = self._clip(rect)
        return all(self.pixel(px, py) == nosignal_pixel(w, h, px - x, py - y)
                   for py in range(y0, y1) for px in range(x0, x1))

    def crop_crc(self, rect):
        """The screenshot CRC of a rectangle, as a guest would compute it over what it drew."""
        x0, y0, x1, y1 = self._clip(rect)
        data = b"".join(bytes(self.rgb[(y * self.width + x0) * 3:(y * self.width + x1) * 3]) for y in range(y0, y1))
        return crc32_rgb(data)


class CrcLine:
    """A `screenshot ... crc` answer: width, height, subject, crc."""

    def __init__(self, width, height, subject, crc, line=0):
        self.width, self.height, self.subject, self.crc, self.line = width, height, subject, crc, line

    def __repr__(self):
        return f"<CrcLine {self.subject} {self.width}x{self.height} crc {self.crc:08x}>"


def _lines(text):
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8", "replace")
    for n, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        yield n, _ANSI.sub("", line)


def _decode_row(line, width, lineno):
    row = bytearray()
    for token in line.split(" "):
        m = _RUN.match(token)
        if not m:
            raise ScreenshotError(f"line {lineno}: bad run '{token}'")
        count = int(m.group(1) or 1)
        if m.group(1) and count < 2:
            raise ScreenshotError(f"line {lineno}: run count {count} (a run of one has no count)")
        row += bytes.fromhex(m.group(2)) * count
        if len(row) > width * 3:
            break
    if len(row) != width * 3:
        raise ScreenshotError(f"line {lineno}: row holds {len(row) // 3} pixels, the picture is {width} wide")
    return row


def parse(text):
    """Every screenshot and crc-line in `text` (str or bytes), in order.  Raises ScreenshotError
    on the first bad one."""
    items = []
    cur = None          # [header line, width, height, subject, rows list, skipped lines]
    for n, line in _lines(text):
        pos = line.find("TSHOT ")
        tail = line[pos:] if pos >= 0 else None
        if cur is None:
            if tail is None:
                continue
            m = _CRCLINE.match(tail)
            if m:
                items.append(CrcLine(int(m.group(1)), int(m.group(2)), m.group(3), int(m.group(4), 16), n))
                continue
            m = _HEADER.match(tail)
            if m:
                version, w, h = int(m.group(1)), int(m.group(2)), int(m.group(3))
                if version != VERSION:
                    raise ScreenshotError(f"line {n}: screenshot format version {version}, this tool reads {VERSION}")
                if not (w and h):
                    raise ScreenshotError(f"line {n}: empty picture {w}x{h}")
                cur = [n, w, h, m.group(4), [], []]
            continue
        start, w, h, subject, rows, skipped = cur
        if _ROWLINE.match(line):
            if line.startswith("="):
                count = int(line[1:])
                if not rows:
                    raise ScreenshotError(f"line {n}: a repeat before the first row")
                if len(rows) + count > h:
                    raise ScreenshotError(f"line {n}: repeat past the picture's {h} rows")
                rows.extend([rows[-1]] * count)
            else:
                if len(rows) >= h:
                    raise ScreenshotError(f"line {n}: more rows than the picture's {h}")
                rows.append(_decode_row(line, w, n))
            continue
        if tail is not None:
            m = _END.match(tail)
            if m:
                if len(rows) != h:
                    raise ScreenshotError(f"screenshot of {subject} at line {start}: {len(rows)} of {h} rows"
                                          + _skipped_note(skipped))
                rgb = bytearray().join(rows)
                crc = int(m.group(1), 16)
                got = crc32_rgb(rgb)
                if got != crc:
                    raise ScreenshotError(f"screenshot of {subject} at line {start}: CRC mismatch (trailer "
                                          f"{crc:08x}, pixels {got:08x}): corrupted in transit"
                                          + _skipped_note(skipped))
                items.append(Screenshot(w, h, subject, crc, rgb, start))
                cur = None
                continue
            m = _ABORT.match(tail)
            if m:
                raise ScreenshotError(f"screenshot of {subject} at line {start}: the hypervisor aborted it "
                                      f"at line {n}: {m.group(1)}")
            if _HEADER.match(tail) or _CRCLINE.match(tail):
                raise ScreenshotError(f"screenshot of {subject} at line {start}: truncated after {len(rows)} "
                                      f"of {h} rows (another screenshot starts at line {n})")
        if line.strip():
            skipped.append((n, line))   # interleaved noise (a log line): skipped, the row count and CRC decide
    if cur is not None:
        raise ScreenshotError(f"screenshot of {cur[3]} at line {cur[0]}: truncated after {len(cur[4])} of "
                              f"{cur[2]} rows (no 'TSHOT END' line)" + _skipped_note(cur[5]))
    return items


def _skipped_note(skipped):
    if not skipped:
        return ""
    n, line = skipped[0]
    return f"; {len(skipped)} line(s) inside it were not rows, the first at line {n}: {line[:60]!r}"


def screenshots(text):
    return [i for i in parse(text) if isinstance(i, Screenshot)]


def crc_lines(text):
    return [i for i in parse(text) if isinstance(i, CrcLine)]


def decode(text, subject=None, last=False):
    """The first (or last) screenshot in `text`, optionally of one subject."""
    shots = [s for s in screenshots(text) if subject is None or s.subject == subject]
    if not shots:
        raise ScreenshotError("no screenshot" + (f" of {subject}" if subject else "") + " in the input")
    return shots[-1] if last else shots[0]


def to_png(shot):
    """The picture as PNG bytes (8-bit RGB, no filtering, zlib level 6)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    stride = shot.width * 3
    raw = bytearray()
    for y in range(shot.height):
        raw.append(0)           # filter type None
        raw += shot.rgb[y * stride:(y + 1) * stride]
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", shot.width, shot.height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes(raw), 6))
            + chunk(b"IEND", b""))


def write_png(shot, path):
    with open(path, "wb") as f:
        f.write(to_png(shot))
