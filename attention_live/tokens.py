"""Token labels from byte-level BPE pieces, by the rule the page's chips follow
(static/attention-view/model/token-labels.js): a piece spells raw UTF-8 bytes in GPT-2's printable
stand-in characters; each character goes to the token holding its first byte, tokens holding
only the rest of a character get "", and bytes that are no valid UTF-8 are one U+FFFD each.
Joined, the labels are the decoded text, so Python's token texts are the page's."""

from __future__ import annotations


def _byte_of_char() -> dict[str, int]:
    # GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves, the other 68 are
    # shifted up to U+0100 and beyond, in byte order.
    table, shifted = {}, 0
    for b in range(256):
        printable = 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF
        if printable:
            table[chr(b)] = b
        else:
            table[chr(256 + shifted)] = b
            shifted += 1
    return table


BYTE_OF_CHAR = _byte_of_char()


def piece_bytes(piece: str) -> bytes:
    """The raw bytes a byte-level piece stands for; unknown characters count as their UTF-8."""
    return b"".join(bytes([BYTE_OF_CHAR[ch]]) if ch in BYTE_OF_CHAR else ch.encode("utf-8") for ch in piece)


def _sequence_length(lead: int) -> int:
    if lead < 0x80:
        return 1
    for low, high, n in ((0xC2, 0xDF, 2), (0xE0, 0xEF, 3), (0xF0, 0xF4, 4)):
        if low <= lead <= high:
            return n
    return 0


def labels(pieces: list[str]) -> list[str]:
    """Each token's text: the characters whose first byte it holds."""
    data, owner = bytearray(), []
    for t, piece in enumerate(pieces):
        b = piece_bytes(piece)
        data += b
        owner += [t] * len(b)
    out = [""] * len(pieces)
    i = 0
    while i < len(data):
        n = _sequence_length(data[i])
        try:
            # Python's strict decoder rejects what the page's does: overlong forms, surrogates,
            # anything past U+10FFFF, a truncated sequence.
            text = bytes(data[i:i + n]).decode("utf-8") if n else None
        except UnicodeDecodeError:
            text = None
        if text is None:
            text, n = "\ufffd", 1
        out[owner[i]] += text
        i += n
    return out
