//! The characters YAML does not allow anywhere in a stream, found before parsing: the whole
//! input passes through here, eight bytes at a time where it can.

/// The first character YAML does not allow in a stream, with where it is: a control character
/// other than tab, line feed, carriage return and U+0085, U+FFFE, U+FFFF, or a carriage return
/// not followed by a line feed (reported as `'\r'`). One pass over the bytes: every character
/// it looks for starts with a byte no ordinary text character starts with.
pub(super) fn forbidden_character(src: &str) -> Option<(usize, char)> {
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // Eight bytes at a time while none needs a look: the whole input passes through here.
        while let Some(word) = b.get(i..i + 8) {
            if needs_a_look(u64::from_le_bytes(word.try_into().unwrap_or_default())) {
                break;
            }
            i += 8;
        }
        let Some(&c) = b.get(i) else { break };
        if (0x20..0x7f).contains(&c) || c == b'\n' || c == b'\t' || (0x80..0xc2).contains(&c) {
            i += 1;
            continue;
        }
        let found = match c {
            b'\r' if b.get(i + 1) == Some(&b'\n') => None,
            b'\r' => Some('\r'),
            0xc2 if b
                .get(i + 1)
                .is_some_and(|&n| (0x80..0xa0).contains(&n) && n != 0x85) =>
            {
                src[i..].chars().next()
            }
            0xef if b.get(i + 1) == Some(&0xbf) && matches!(b.get(i + 2), Some(0xbe | 0xbf)) => {
                src[i..].chars().next()
            }
            c if c < 0x20 || c == 0x7f => Some(c as char),
            _ => None,
        };
        if let Some(ch) = found {
            return Some((i, ch));
        }
        i += 1;
    }
    None
}

/// Whether any of the eight bytes of `word` is other than printable ASCII, a line feed or a
/// tab (the bytes [`forbidden_character`] passes without a look). Exact per byte: no carry
/// crosses a byte.
pub(super) fn needs_a_look(word: u64) -> bool {
    const LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = !LOW;
    const ONES: u64 = 0x0101_0101_0101_0101;
    // High bit of each byte that equals `b` (for an ASCII `b`).
    let equals = |b: u8| {
        let x = word ^ (ONES * u64::from(b));
        !(((x & LOW) + LOW) | x) & HIGH
    };
    // A byte from 0x80 up, or 0x7f (whose low seven bits carry into the eighth when one is
    // added): always a look.
    if ((word | ((word & LOW) + ONES)) & HIGH) != 0 {
        return true;
    }
    // High bit of each byte below 0x20 (all are ASCII here): a look unless a line feed or tab,
    // which most words of a document do not hold either.
    let control = !(((word & LOW) + ONES * 0x60) | word) & HIGH;
    control != 0 && control & !equals(b'\n') & !equals(b'\t') != 0
}
