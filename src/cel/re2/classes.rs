//! The parts of RE2's syntax that name sets of characters, read as Go's `regexp` reads them:
//! bracket classes, Unicode classes (`\\p{Greek}`, only Go's names), Perl classes (ASCII), and
//! single characters (escapes, octal, hex), each written in the `regex` crate's syntax with the
//! same meaning.

use super::refusal;

/// A class no character is in: what Go's surrogate code points match in a string.
pub(super) const NOTHING: &str = "[^\\x{0}-\\x{10FFFF}]";

/// Go's Unicode categories (`unicode.Categories`).
#[rustfmt::skip]
const CATEGORIES: &[&str] = &[
    "C", "Cc", "Cf", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N",
    "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm", "So",
    "Z", "Zl", "Zp", "Zs",
];

/// Go's scripts (`unicode.Scripts`, Unicode 15: Go 1.21 and later), sorted.
#[rustfmt::skip]
const SCRIPTS: &[&str] = &[
    "Adlam", "Ahom", "Anatolian_Hieroglyphs", "Arabic", "Armenian", "Avestan", "Balinese", "Bamum",
    "Bassa_Vah", "Batak", "Bengali", "Bhaiksuki", "Bopomofo", "Brahmi", "Braille", "Buginese",
    "Buhid", "Canadian_Aboriginal", "Carian", "Caucasian_Albanian", "Chakma", "Cham", "Cherokee",
    "Chorasmian", "Common", "Coptic", "Cuneiform", "Cypriot", "Cypro_Minoan", "Cyrillic", "Deseret",
    "Devanagari", "Dives_Akuru", "Dogra", "Duployan", "Egyptian_Hieroglyphs", "Elbasan", "Elymaic",
    "Ethiopic", "Georgian", "Glagolitic", "Gothic", "Grantha", "Greek", "Gujarati", "Gunjala_Gondi",
    "Gurmukhi", "Han", "Hangul", "Hanifi_Rohingya", "Hanunoo", "Hatran", "Hebrew", "Hiragana",
    "Imperial_Aramaic", "Inherited", "Inscriptional_Pahlavi", "Inscriptional_Parthian", "Javanese",
    "Kaithi", "Kannada", "Katakana", "Kawi", "Kayah_Li", "Kharoshthi", "Khitan_Small_Script",
    "Khmer", "Khojki", "Khudawadi", "Lao", "Latin", "Lepcha", "Limbu", "Linear_A", "Linear_B",
    "Lisu", "Lycian", "Lydian", "Mahajani", "Makasar", "Malayalam", "Mandaic", "Manichaean",
    "Marchen", "Masaram_Gondi", "Medefaidrin", "Meetei_Mayek", "Mende_Kikakui", "Meroitic_Cursive",
    "Meroitic_Hieroglyphs", "Miao", "Modi", "Mongolian", "Mro", "Multani", "Myanmar", "Nabataean",
    "Nag_Mundari", "Nandinagari", "New_Tai_Lue", "Newa", "Nko", "Nushu", "Nyiakeng_Puachue_Hmong",
    "Ogham", "Ol_Chiki", "Old_Hungarian", "Old_Italic", "Old_North_Arabian", "Old_Permic",
    "Old_Persian", "Old_Sogdian", "Old_South_Arabian", "Old_Turkic", "Old_Uyghur", "Oriya", "Osage",
    "Osmanya", "Pahawh_Hmong", "Palmyrene", "Pau_Cin_Hau", "Phags_Pa", "Phoenician",
    "Psalter_Pahlavi", "Rejang", "Runic", "Samaritan", "Saurashtra", "Sharada", "Shavian",
    "Siddham", "SignWriting", "Sinhala", "Sogdian", "Sora_Sompeng", "Soyombo", "Sundanese",
    "Syloti_Nagri", "Syriac", "Tagalog", "Tagbanwa", "Tai_Le", "Tai_Tham", "Tai_Viet", "Takri",
    "Tamil", "Tangsa", "Tangut", "Telugu", "Thaana", "Thai", "Tibetan", "Tifinagh", "Tirhuta",
    "Toto", "Ugaritic", "Vai", "Vithkuqi", "Wancho", "Warang_Citi", "Yezidi", "Yi",
    "Zanabazar_Square",
];

/// The POSIX classes of a bracket class, as Go names them (the crate has the same).
const POSIX: &[&str] = &[
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
    "space", "upper", "word", "xdigit",
];

/// The class at `at` (its `[`), read as Go reads it: its text for the crate, and the bytes it
/// took.
pub(super) fn class(
    pattern: &str,
    at: usize,
    closes: &mut NextClose,
) -> Result<(String, usize), String> {
    let mut w = String::from("[");
    let mut i = at + 1;
    if pattern[i..].starts_with('^') {
        w.push('^');
        i += 1;
    }
    let mut first = true;
    loop {
        let rest = &pattern[i..];
        if rest.is_empty() {
            return Err(refusal(
                pattern,
                "missing closing ]",
                at,
                pattern.len() - at,
            ));
        }
        if rest.starts_with(']') && !first {
            w.push(']');
            return Ok((w, i + 1 - at));
        }
        first = false;
        if rest.starts_with("[:") {
            if let Some(close) = closes.at_or_after(pattern, i + 2) {
                let name = &pattern[i..close + 2];
                let bare = &name[2..name.len() - 2];
                if !POSIX.contains(&bare.strip_prefix('^').unwrap_or(bare)) {
                    return Err(refusal(
                        pattern,
                        "invalid character class range",
                        i,
                        name.len(),
                    ));
                }
                w.push_str(name);
                i = close + 2;
                continue;
            }
        }
        if rest.starts_with("\\p") || rest.starts_with("\\P") {
            let (class, len) = unicode_class(pattern, i)?;
            w.push_str(&class);
            i += len;
            continue;
        }
        if let Some(class) = rest
            .strip_prefix('\\')
            .and_then(|e| e.chars().next())
            .and_then(perl_class)
        {
            w.push_str(class.inside);
            i += 2;
            continue;
        }
        let (lo, len) = class_char(pattern, i)?;
        let mut hi = lo;
        let mut end = i + len;
        let after = &pattern[end..];
        if after.len() >= 2 && after.starts_with('-') && !after[1..].starts_with(']') {
            let (h, len) = class_char(pattern, end + 1)?;
            hi = h;
            end += 1 + len;
            if hi < lo {
                return Err(refusal(
                    pattern,
                    "invalid character class range",
                    i,
                    end - i,
                ));
            }
        }
        push_range(&mut w, lo, hi);
        i = end;
    }
}

/// `\p{..}` or `\P{..}` (or `\pL`) at `at`, as Go reads it: the crate's class, and its bytes.
pub(super) fn unicode_class(pattern: &str, at: usize) -> Result<(String, usize), String> {
    let text = &pattern[at..];
    let mut negated = text.as_bytes()[1] == b'P';
    let (name, len) = match text[2..].chars().next() {
        Some('{') => match text.find('}') {
            Some(end) => (&text[3..end], end + 1),
            None => {
                return Err(refusal(
                    pattern,
                    "invalid character class range",
                    at,
                    text.len(),
                ))
            }
        },
        Some(c) => (&text[2..2 + c.len_utf8()], 2 + c.len_utf8()),
        None => return Err(refusal(pattern, "invalid character class range", at, 2)),
    };
    let name = match name.strip_prefix('^') {
        Some(n) => {
            negated = !negated;
            n
        }
        None => name,
    };
    let known = name == "Any" || CATEGORIES.contains(&name) || SCRIPTS.binary_search(&name).is_ok();
    if !known {
        return Err(refusal(pattern, "invalid character class range", at, len));
    }
    let not = if negated { "^" } else { "" };
    let class = if name == "C" {
        // Go's `C` is Cc, Cf, Co and Cs (surrogates: in no string): not the unassigned code
        // points the crate's includes.
        format!("[{not}\\p{{Cc}}\\p{{Cf}}\\p{{Co}}]")
    } else if name == "Cs" {
        // The crate has no name for the surrogates.
        format!("[{not}{}]", NOTHING)
    } else {
        format!("\\{}{{{name}}}", if negated { 'P' } else { 'p' })
    };
    Ok((class, len))
}

/// One character of a class (or an escaped one outside), as Go reads it: its code point (a
/// surrogate too: Go takes `\x{D800}`) and the bytes it took.
pub(super) fn class_char(pattern: &str, at: usize) -> Result<(u32, usize), String> {
    let text = &pattern[at..];
    let mut chars = text.chars();
    let Some(c) = chars.next() else {
        return Err(refusal(pattern, "missing closing ]", at, 0));
    };
    if c != '\\' {
        return Ok((c as u32, c.len_utf8()));
    }
    let Some(e) = chars.next() else {
        return Err(refusal(
            pattern,
            "trailing backslash at end of expression",
            at,
            1,
        ));
    };
    let invalid = |len: usize| Err(refusal(pattern, "invalid escape sequence", at, len));
    if e.is_ascii() && !e.is_ascii_alphanumeric() {
        return Ok((e as u32, 2));
    }
    let rest = chars.as_str();
    if let Some((c, digits)) = octal(e, rest) {
        return Ok((c as u32, 2 + digits));
    }
    let control = match e {
        'a' => Some(7),
        'f' => Some(12),
        'n' => Some(10),
        'r' => Some(13),
        't' => Some(9),
        'v' => Some(11),
        _ => None,
    };
    if let Some(c) = control {
        return Ok((c, 2));
    }
    if e != 'x' {
        return invalid(1 + e.len_utf8());
    }
    if let Some(hex) = rest.strip_prefix('{') {
        let mut value: u32 = 0;
        for (j, h) in hex.char_indices() {
            if h == '}' {
                return if j == 0 {
                    invalid(4)
                } else {
                    Ok((value, 4 + j))
                };
            }
            let Some(d) = h.to_digit(16) else {
                return invalid(3 + j + h.len_utf8());
            };
            value = value * 16 + d;
            if value > 0x10FFFF {
                return invalid(4 + j);
            }
        }
        return invalid(text.len());
    }
    let mut digits = rest.chars().map(|h| h.to_digit(16));
    match (digits.next().flatten(), digits.next().flatten()) {
        (Some(x), Some(y)) => Ok((x * 16 + y, 4)),
        _ => invalid(2 + rest.chars().take(2).map(char::len_utf8).sum::<usize>()),
    }
}

/// A character as a literal in either place; a surrogate (in no string) as a class of nothing.
pub(super) fn push_char(out: &mut String, c: u32) {
    match char::from_u32(c) {
        Some(c) => push_literal(out, c),
        None => out.push_str(NOTHING),
    }
}

/// The range `lo`-`hi` of a class, without the surrogates (in no string, and refused by the
/// crate).
pub(super) fn push_range(w: &mut String, lo: u32, hi: u32) {
    const SURROGATES: std::ops::RangeInclusive<u32> = 0xD800..=0xDFFF;
    if SURROGATES.contains(&lo) && SURROGATES.contains(&hi) {
        w.push_str(NOTHING);
        return;
    }
    let lo = if SURROGATES.contains(&lo) { 0xE000 } else { lo };
    let hi = if SURROGATES.contains(&hi) { 0xD7FF } else { hi };
    push_char(w, lo);
    if hi != lo {
        w.push('-');
        push_char(w, hi);
    }
}

/// RE2's Perl classes, ASCII only: as a class of their own and as a class's items.
pub(super) struct PerlClass {
    pub(super) outside: &'static str,
    pub(super) inside: &'static str,
}

pub(super) fn perl_class(e: char) -> Option<PerlClass> {
    let (outside, inside) = match e {
        'd' => ("[0-9]", "0-9"),
        'D' => ("[^0-9]", "[^0-9]"),
        'w' => ("[0-9A-Za-z_]", "0-9A-Za-z_"),
        'W' => ("[^0-9A-Za-z_]", "[^0-9A-Za-z_]"),
        's' => ("[\\t\\n\\x{0C}\\r\\x{20}]", "\\t\\n\\x{0C}\\r\\x{20}"),
        'S' => ("[^\\t\\n\\x{0C}\\r\\x{20}]", "[^\\t\\n\\x{0C}\\r\\x{20}]"),
        _ => return None,
    };
    Some(PerlClass { outside, inside })
}

/// A character as a literal in either place: ASCII punctuation and controls as hex escapes
/// (never special to the crate), everything else as itself.
pub(super) fn push_literal(out: &mut String, c: char) {
    if c.is_ascii() && !c.is_ascii_alphanumeric() {
        push_hex(out, c);
    } else {
        out.push(c);
    }
}

fn push_hex(out: &mut String, c: char) {
    out.push_str(&format!("\\x{{{:02X}}}", c as u32));
}

/// Where the next `:]` of a pattern is, for `[:name:]`: asked at positions that only grow, it
/// searches each part of the pattern once (a search per class would be quadratic on a
/// pattern of many `[[:`).
#[derive(Default)]
pub(super) struct NextClose {
    /// Searched from here on: the first `:]` at `found` (or none after `from`).
    from: usize,
    found: Option<usize>,
    searched: bool,
}

impl NextClose {
    pub(super) fn at_or_after(&mut self, pattern: &str, at: usize) -> Option<usize> {
        let stale = !self.searched || at < self.from || self.found.is_some_and(|f| f < at);
        if stale {
            self.from = at;
            self.found = pattern[at..].find(":]").map(|f| at + f);
            self.searched = true;
        }
        self.found
    }
}

/// RE2's octal escape `\<e><rest>` (the crate has none): `\0` and up to two more octal digits,
/// or `\1`-`\7` followed by at least one (alone it would be a backreference, refused by both).
/// The character, and how many digits of `rest` it took.
fn octal(e: char, rest: &str) -> Option<(char, usize)> {
    let digits = rest
        .bytes()
        .take(2)
        .take_while(|d| matches!(d, b'0'..=b'7'))
        .count();
    if !matches!(e, '0'..='7') || (e != '0' && digits == 0) {
        return None;
    }
    let value = rest.as_bytes()[..digits]
        .iter()
        .fold(e as u32 - '0' as u32, |v, d| v * 8 + u32::from(d - b'0'));
    char::from_u32(value).map(|c| (c, digits))
}

#[cfg(test)]
mod tests {
    /// Looked up by binary search.
    #[test]
    fn scripts_are_sorted() {
        assert!(super::SCRIPTS.windows(2).all(|w| w[0] < w[1]));
    }
}
