//! RE2's syntax, as cel-go's `matches` reads it (Go's `regexp`), checked as Go checks it and
//! written in the `regex` crate's syntax with the same meaning. The crate's parser is never
//! the judge of a pattern: it takes patterns Go refuses (`a**`, `a{1001}`, `\p{greek}`,
//! `\u0041`) and refuses patterns Go takes (`x{foo}`, `a{,3}`, `\p{^Greek}`, `\x{D800}`), so
//! every pattern is read here by Go's rules and written out in a form the crate reads alike:
//! - a `{` that does not start a valid count (`{2}`, `{2,}`, `{2,5}`, no leading zero) is a
//!   character; counts above 1000, and nested counts whose product is above 1000, are refused,
//!   and so is a repetition of a repetition (`a**`, `a{2}{3}`, `a*??`);
//! - `\d`, `\w`, `\s`, `\b` and `\B` are ASCII in RE2 (`\s` is `[\t\n\f\r ]`): written out as
//!   ASCII classes and assertions; `\p{..}` takes only Go's exact names (categories, scripts,
//!   `Any`; `^` negates), and `\p{C}` is Go's (without unassigned code points);
//! - every character is written as a literal the crate cannot read otherwise (ASCII
//!   punctuation as hex escapes), so `\<`, `&&`, `--`, `~~` and `[` in a class stay characters;
//!   octal, `\x{..}` and `\Q...\E` become those literals; a surrogate (`\x{D800}`, which no
//!   string holds) becomes a class that matches nothing;
//! - group names are checked as Go checks them (ASCII word characters, repeats allowed) and
//!   the groups written unnamed (`matches` reads no group); flags are Go's four (i, m, s, U).
//!
//! Go's limits are kept: at most [`MAX_REPEAT`] for a count, [`MAX_GROUP_DEPTH`] groups open at
//! once. tests/re2_differential.rs runs generated and hand-picked patterns through Go itself.

/// Go's largest count (`{1000}`), and the largest product of counts nested in one another.
pub(super) const MAX_REPEAT: u32 = 1000;
/// Go refuses an expression nested this deep ("expression nests too deeply"): 999 groups
/// inside one another are taken, 1000 are not.
pub(super) const MAX_GROUP_DEPTH: usize = 1000;
/// A class no character is in: what Go's surrogate code points match in a string.
const NOTHING: &str = "[^\\x{0}-\\x{10FFFF}]";

/// Go's Unicode categories (`unicode.Categories`).
const CATEGORIES: &[&str] = &[
    "C", "Cc", "Cf", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N",
    "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm", "So",
    "Z", "Zl", "Zp", "Zs",
];

/// Go's scripts (`unicode.Scripts`, Unicode 15: Go 1.21 and later), sorted.
const SCRIPTS: &[&str] = &[
    "Adlam",
    "Ahom",
    "Anatolian_Hieroglyphs",
    "Arabic",
    "Armenian",
    "Avestan",
    "Balinese",
    "Bamum",
    "Bassa_Vah",
    "Batak",
    "Bengali",
    "Bhaiksuki",
    "Bopomofo",
    "Brahmi",
    "Braille",
    "Buginese",
    "Buhid",
    "Canadian_Aboriginal",
    "Carian",
    "Caucasian_Albanian",
    "Chakma",
    "Cham",
    "Cherokee",
    "Chorasmian",
    "Common",
    "Coptic",
    "Cuneiform",
    "Cypriot",
    "Cypro_Minoan",
    "Cyrillic",
    "Deseret",
    "Devanagari",
    "Dives_Akuru",
    "Dogra",
    "Duployan",
    "Egyptian_Hieroglyphs",
    "Elbasan",
    "Elymaic",
    "Ethiopic",
    "Georgian",
    "Glagolitic",
    "Gothic",
    "Grantha",
    "Greek",
    "Gujarati",
    "Gunjala_Gondi",
    "Gurmukhi",
    "Han",
    "Hangul",
    "Hanifi_Rohingya",
    "Hanunoo",
    "Hatran",
    "Hebrew",
    "Hiragana",
    "Imperial_Aramaic",
    "Inherited",
    "Inscriptional_Pahlavi",
    "Inscriptional_Parthian",
    "Javanese",
    "Kaithi",
    "Kannada",
    "Katakana",
    "Kawi",
    "Kayah_Li",
    "Kharoshthi",
    "Khitan_Small_Script",
    "Khmer",
    "Khojki",
    "Khudawadi",
    "Lao",
    "Latin",
    "Lepcha",
    "Limbu",
    "Linear_A",
    "Linear_B",
    "Lisu",
    "Lycian",
    "Lydian",
    "Mahajani",
    "Makasar",
    "Malayalam",
    "Mandaic",
    "Manichaean",
    "Marchen",
    "Masaram_Gondi",
    "Medefaidrin",
    "Meetei_Mayek",
    "Mende_Kikakui",
    "Meroitic_Cursive",
    "Meroitic_Hieroglyphs",
    "Miao",
    "Modi",
    "Mongolian",
    "Mro",
    "Multani",
    "Myanmar",
    "Nabataean",
    "Nag_Mundari",
    "Nandinagari",
    "New_Tai_Lue",
    "Newa",
    "Nko",
    "Nushu",
    "Nyiakeng_Puachue_Hmong",
    "Ogham",
    "Ol_Chiki",
    "Old_Hungarian",
    "Old_Italic",
    "Old_North_Arabian",
    "Old_Permic",
    "Old_Persian",
    "Old_Sogdian",
    "Old_South_Arabian",
    "Old_Turkic",
    "Old_Uyghur",
    "Oriya",
    "Osage",
    "Osmanya",
    "Pahawh_Hmong",
    "Palmyrene",
    "Pau_Cin_Hau",
    "Phags_Pa",
    "Phoenician",
    "Psalter_Pahlavi",
    "Rejang",
    "Runic",
    "Samaritan",
    "Saurashtra",
    "Sharada",
    "Shavian",
    "Siddham",
    "SignWriting",
    "Sinhala",
    "Sogdian",
    "Sora_Sompeng",
    "Soyombo",
    "Sundanese",
    "Syloti_Nagri",
    "Syriac",
    "Tagalog",
    "Tagbanwa",
    "Tai_Le",
    "Tai_Tham",
    "Tai_Viet",
    "Takri",
    "Tamil",
    "Tangsa",
    "Tangut",
    "Telugu",
    "Thaana",
    "Thai",
    "Tibetan",
    "Tifinagh",
    "Tirhuta",
    "Toto",
    "Ugaritic",
    "Vai",
    "Vithkuqi",
    "Wancho",
    "Warang_Citi",
    "Yezidi",
    "Yi",
    "Zanabazar_Square",
];

/// The POSIX classes of a bracket class, as Go names them (the crate has the same).
const POSIX: &[&str] = &[
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
    "space", "upper", "word", "xdigit",
];

/// The pattern `pattern` (RE2 syntax) in the `regex` crate's syntax, or why Go refuses it.
pub(super) fn to_regex_syntax(pattern: &str) -> Result<String, String> {
    Translation::new(pattern).run()
}

/// The last item of a group, which a repetition applies to: its weight (the largest product
/// of the counts nested in it, as Go weighs them), where its text is in the output, and
/// whether it is itself a repetition.
struct Operand {
    weight: u32,
    repeated: bool,
}

/// An open group: the heaviest of its finished items, and its last one.
#[derive(Default)]
struct Frame {
    done: u32,
    last: Option<Operand>,
    /// Where the group started in the pattern, for a message.
    at: usize,
}

impl Frame {
    fn push(&mut self, weight: u32) {
        self.fold();
        self.last = Some(Operand {
            weight,
            repeated: false,
        });
    }

    fn fold(&mut self) {
        if let Some(l) = self.last.take() {
            self.done = self.done.max(l.weight);
        }
    }

    fn weight(&self) -> u32 {
        self.done.max(self.last.as_ref().map_or(1, |l| l.weight))
    }
}

struct Translation<'p> {
    pattern: &'p str,
    out: String,
    stack: Vec<Frame>,
    /// Flags read but not yet written: written before the next item, so that a repetition
    /// that follows them (Go applies `a(?i)*` to `a`) is written right after its operand.
    flags: String,
    closes: NextClose,
}

impl<'p> Translation<'p> {
    fn new(pattern: &'p str) -> Self {
        Translation {
            pattern,
            out: String::with_capacity(pattern.len() + 16),
            stack: vec![Frame::default()],
            flags: String::new(),
            closes: NextClose::default(),
        }
    }

    /// Why Go refuses the pattern, `what` found at byte `at` (`len` bytes of it).
    fn refuse(&self, what: &str, at: usize, len: usize) -> String {
        refusal(self.pattern, what, at, len)
    }

    fn frame(&mut self) -> &mut Frame {
        // The outermost frame is never popped: `)` without a group is refused first.
        let last = self.stack.len() - 1;
        &mut self.stack[last]
    }

    /// Writes an item that a repetition may follow.
    fn operand(&mut self, text: &str, weight: u32) {
        self.out.push_str(&self.flags);
        self.flags.clear();
        self.out.push_str(text);
        self.frame().push(weight);
    }

    fn literal(&mut self, c: u32) {
        let mut text = String::new();
        push_char(&mut text, c);
        self.operand(&text, 1);
    }

    fn run(mut self) -> Result<String, String> {
        let pattern = self.pattern;
        let mut i = 0;
        // Where the previous item started, when it was a repetition.
        let mut last_repeat: Option<usize> = None;
        while let Some(c) = pattern[i..].chars().next() {
            let rest = &pattern[i..];
            let mut repeat = None;
            match c {
                '(' if rest.starts_with("(?") => i += self.perl_group(i)?,
                '(' => {
                    self.open(i, "(")?;
                    i += 1;
                }
                ')' => {
                    self.close(i)?;
                    i += 1;
                }
                '|' => {
                    self.out.push_str(&self.flags);
                    self.flags.clear();
                    self.out.push('|');
                    self.frame().fold();
                    i += 1;
                }
                '*' | '+' | '?' => {
                    let (min, max) = match c {
                        '*' => (0, -1),
                        '+' => (1, -1),
                        _ => (0, 1),
                    };
                    let start = i;
                    i = self.repeat(i, i + 1, min, max, last_repeat)?;
                    repeat = Some(start);
                }
                '{' => match count(rest) {
                    Some((min, max, len)) => {
                        let start = i;
                        i = self.repeat(i, i + len, min, max, last_repeat)?;
                        repeat = Some(start);
                    }
                    None => {
                        self.literal('{' as u32);
                        i += 1;
                    }
                },
                '[' => {
                    let (text, len) = self.class(i)?;
                    self.operand(&text, 1);
                    i += len;
                }
                '\\' => i += self.escape(i)?,
                '.' | '^' | '$' => {
                    self.operand(&c.to_string(), 1);
                    i += 1;
                }
                _ => {
                    self.literal(c as u32);
                    i += c.len_utf8();
                }
            }
            last_repeat = repeat;
        }
        if self.stack.len() > 1 {
            let at = self.stack[self.stack.len() - 1].at;
            return Err(self.refuse("missing closing )", at, 1));
        }
        self.out.push_str(&self.flags);
        Ok(self.out)
    }

    fn open(&mut self, at: usize, text: &str) -> Result<(), String> {
        if self.stack.len() >= MAX_GROUP_DEPTH {
            return Err(self.refuse("expression nests too deeply", at, 1));
        }
        self.out.push_str(&self.flags);
        self.flags.clear();
        self.out.push_str(text);
        self.stack.push(Frame {
            at,
            ..Frame::default()
        });
        Ok(())
    }

    fn close(&mut self, at: usize) -> Result<(), String> {
        if self.stack.len() == 1 {
            return Err(self.refuse("unexpected )", at, 1));
        }
        let Some(group) = self.stack.pop() else {
            return Err(self.refuse("unexpected )", at, 1));
        };
        // Flags set inside a group end with it.
        self.flags.clear();
        self.out.push(')');
        self.frame().push(group.weight());
        Ok(())
    }

    /// A repetition `pattern[at..end]` (`min`, `max`; -1 for none), with a `?` after it making
    /// it lazy; the byte after it.
    fn repeat(
        &mut self,
        at: usize,
        mut end: usize,
        min: i64,
        max: i64,
        last_repeat: Option<usize>,
    ) -> Result<usize, String> {
        let counted = self.pattern.as_bytes()[at] == b'{';
        if counted
            && (min > i64::from(MAX_REPEAT)
                || max > i64::from(MAX_REPEAT)
                || (max >= 0 && min > max))
        {
            return Err(self.refuse("invalid repeat count", at, end - at));
        }
        let lazy = self.pattern[end..].starts_with('?');
        if lazy {
            end += 1;
        }
        if let Some(before) = last_repeat {
            return Err(self.refuse("invalid nested repetition operator", before, end - before));
        }
        let Some(operand) = self.frame().last.as_ref() else {
            return Err(self.refuse("missing argument to repetition operator", at, end - at));
        };
        let factor = if max < 0 { min } else { max };
        let weight = match (max, factor) {
            (0, _) => 1,
            (_, 0) => operand.weight,
            _ => u32::try_from(factor)
                .unwrap_or(u32::MAX)
                .saturating_mul(operand.weight),
        };
        if counted && (min >= 2 || max >= 2) && weight > MAX_REPEAT {
            return Err(self.refuse("invalid repeat count", at, end - at));
        }
        // A repetition of a repetition (after flags: Go reads `a*(?i)?` as `(a*)?`) is written
        // with a count, which the crate reads as nested, not as lazy.
        let text = match (operand.repeated, min, max) {
            (false, 0, -1) => "*".to_string(),
            (false, 1, -1) => "+".to_string(),
            (false, 0, 1) if !counted => "?".to_string(),
            (_, min, -1) => format!("{{{min},}}"),
            (_, min, max) => format!("{{{min},{max}}}"),
        };
        self.out.push_str(&text);
        if lazy {
            self.out.push('?');
        }
        self.frame().last = Some(Operand {
            weight,
            repeated: true,
        });
        Ok(end)
    }

    /// `(?` at `at`: a named group, flags, or a group with flags; the bytes it took.
    fn perl_group(&mut self, at: usize) -> Result<usize, String> {
        let rest = &self.pattern[at..];
        if rest.len() > 4 && rest[2..].starts_with("P<") {
            let Some(end) = rest.find('>') else {
                return Err(self.refuse("invalid named capture", at, rest.len()));
            };
            let name = &rest[4..end];
            if name.is_empty() || !name.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric()) {
                return Err(self.refuse("invalid named capture", at, end + 1));
            }
            self.open(at, "(")?;
            return Ok(end + 1);
        }
        // Go's flags: the last of `i`, `m`, `s`, `U` or `-x` for each wins.
        let mut state: Vec<(char, bool)> = Vec::new();
        let mut negated = false;
        let mut saw_flag = false;
        for (j, f) in rest.char_indices().skip(2) {
            match f {
                'i' | 'm' | 's' | 'U' => {
                    state.retain(|(g, _)| *g != f);
                    state.push((f, !negated));
                    saw_flag = true;
                }
                '-' if !negated => {
                    negated = true;
                    saw_flag = false;
                }
                ':' | ')' if !negated || saw_flag => {
                    let on: String = state.iter().filter(|s| s.1).map(|s| s.0).collect();
                    let off: String = state.iter().filter(|s| !s.1).map(|s| s.0).collect();
                    let mut flags = on;
                    if !off.is_empty() {
                        flags.push('-');
                        flags.push_str(&off);
                    }
                    if f == ':' {
                        self.open(at, &format!("(?{flags}:"))?;
                    } else if !flags.is_empty() {
                        self.flags.push_str(&format!("(?{flags})"));
                    }
                    return Ok(j + 1);
                }
                _ => {
                    let why = if matches!(f, 'x' | 'u' | 'R') {
                        format!(
                            "invalid or unsupported Perl syntax (flag `{f}` is not RE2 syntax: \
                             cel-go accepts only the flags i, m, s and U)"
                        )
                    } else {
                        "invalid or unsupported Perl syntax".to_string()
                    };
                    return Err(self.refuse(&why, at, j + f.len_utf8()));
                }
            }
        }
        Err(self.refuse("invalid or unsupported Perl syntax", at, rest.len()))
    }

    /// The escape at `at` (its `\`), outside a class; the bytes it took.
    fn escape(&mut self, at: usize) -> Result<usize, String> {
        let text = &self.pattern[at..];
        let Some(e) = text[1..].chars().next() else {
            return Err(self.refuse("trailing backslash at end of expression", at, 1));
        };
        if let Some(class) = perl_class(e) {
            self.operand(class.outside, 1);
            return Ok(2);
        }
        match e {
            'A' | 'z' => self.operand(&text[..2], 1),
            'b' => self.operand("(?-u:\\b)", 1),
            'B' => self.operand("(?-u:\\B)", 1),
            'Q' => {
                let rest = &text[2..];
                let (quoted, skip) = match rest.find("\\E") {
                    Some(end) => (&rest[..end], end + 2),
                    None => (rest, rest.len()),
                };
                quoted.chars().for_each(|q| self.literal(q as u32));
                return Ok(2 + skip);
            }
            'p' | 'P' => {
                let (class, len) = unicode_class(self.pattern, at)?;
                self.operand(&class, 1);
                return Ok(len);
            }
            _ => {
                let (c, len) = class_char(self.pattern, at)?;
                self.literal(c);
                return Ok(len);
            }
        }
        Ok(2)
    }

    /// The class at `at` (its `[`), read as Go reads it: its text for the crate, and the bytes
    /// it took.
    fn class(&mut self, at: usize) -> Result<(String, usize), String> {
        let pattern = self.pattern;
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
                return Err(self.refuse("missing closing ]", at, pattern.len() - at));
            }
            if rest.starts_with(']') && !first {
                w.push(']');
                return Ok((w, i + 1 - at));
            }
            first = false;
            if rest.starts_with("[:") {
                if let Some(close) = self.closes.at_or_after(pattern, i + 2) {
                    let name = &pattern[i..close + 2];
                    let bare = &name[2..name.len() - 2];
                    if !POSIX.contains(&bare.strip_prefix('^').unwrap_or(bare)) {
                        return Err(self.refuse("invalid character class range", i, name.len()));
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
                    return Err(self.refuse("invalid character class range", i, end - i));
                }
            }
            push_range(&mut w, lo, hi);
            i = end;
        }
    }
}

/// Go's count `{n}`, `{n,}` or `{n,m}` at the start of `text`: (min, max or -1, bytes). Not
/// a count (a `{` that is a character): `None`. Numbers with a leading zero are not counts;
/// a huge one is kept huge (refused as a count).
fn count(text: &str) -> Option<(i64, i64, usize)> {
    let bytes = text.as_bytes();
    let number = |from: usize| -> Option<(i64, usize)> {
        let digits = bytes[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 || (digits > 1 && bytes[from] == b'0') {
            return None;
        }
        let value = bytes[from..from + digits].iter().fold(0i64, |v, d| {
            v.saturating_mul(10).saturating_add(i64::from(d - b'0'))
        });
        Some((value.min(1 << 40), from + digits))
    };
    let (min, mut i) = number(1)?;
    let max = match bytes.get(i) {
        Some(b',') if bytes.get(i + 1) == Some(&b'}') => {
            i += 1;
            -1
        }
        Some(b',') => {
            let (max, j) = number(i + 1)?;
            i = j;
            max
        }
        _ => min,
    };
    (bytes.get(i) == Some(&b'}')).then_some((min, max, i + 1))
}

/// Why Go refuses `pattern`: `what`, and the `len` bytes at `at` it concerns (quoted whole in
/// a short pattern, by a window and its position in a long one).
fn refusal(pattern: &str, what: &str, at: usize, len: usize) -> String {
    const MAX_QUOTED: usize = 256;
    let end = (at + len).min(pattern.len());
    if pattern.len() <= MAX_QUOTED {
        return format!(
            "invalid regular expression: {what}: `{}`",
            &pattern[at..end]
        );
    }
    format!(
        "invalid regular expression: {what} at byte {at} of the {} bytes of the pattern, near \
         {:?}",
        pattern.len(),
        near(pattern, at)
    )
}

/// The bytes of a long pattern around byte `at` (30 either side, on character boundaries),
/// quoted in a message instead of the whole pattern.
pub(super) fn near(pattern: &str, at: usize) -> &str {
    let (mut from, mut to) = (at.saturating_sub(30), (at + 30).min(pattern.len()));
    while !pattern.is_char_boundary(from) {
        from -= 1;
    }
    while !pattern.is_char_boundary(to) {
        to += 1;
    }
    &pattern[from..to]
}

/// `\p{..}` or `\P{..}` (or `\pL`) at `at`, as Go reads it: the crate's class, and its bytes.
fn unicode_class(pattern: &str, at: usize) -> Result<(String, usize), String> {
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
fn class_char(pattern: &str, at: usize) -> Result<(u32, usize), String> {
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
fn push_char(out: &mut String, c: u32) {
    match char::from_u32(c) {
        Some(c) => push_literal(out, c),
        None => out.push_str(NOTHING),
    }
}

/// The range `lo`-`hi` of a class, without the surrogates (in no string, and refused by the
/// crate).
fn push_range(w: &mut String, lo: u32, hi: u32) {
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
struct PerlClass {
    outside: &'static str,
    inside: &'static str,
}

fn perl_class(e: char) -> Option<PerlClass> {
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
fn push_literal(out: &mut String, c: char) {
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
struct NextClose {
    /// Searched from here on: the first `:]` at `found` (or none after `from`).
    from: usize,
    found: Option<usize>,
    searched: bool,
}

impl NextClose {
    fn at_or_after(&mut self, pattern: &str, at: usize) -> Option<usize> {
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
    use super::to_regex_syntax;

    fn is_match(pattern: &str, text: &str) -> bool {
        let translated = to_regex_syntax(pattern).unwrap();
        regex::Regex::new(&translated)
            .unwrap_or_else(|e| panic!("{pattern} -> {translated}: {e}"))
            .is_match(text)
    }

    #[test]
    fn perl_classes_and_word_boundaries_are_ascii() {
        assert!(!is_match(r"^\d$", "٣"));
        assert!(is_match(r"^\d+$", "0129"));
        assert!(is_match(r"^\D$", "٣"));
        assert!(!is_match(r"^\w$", "é"));
        assert!(is_match(r"^\W$", "é"));
        assert!(is_match(r"^\w+$", "edge_1"));
        assert!(!is_match(r"^\s$", "\u{0B}"));
        assert!(!is_match(r"^\s$", "\u{A0}"));
        assert!(is_match(r"^\s+$", "\t\n\u{0C}\r "));
        assert!(is_match(r"^\S$", "\u{0B}"));
        // `é` is not a word character in RE2: a boundary stands before `x`.
        assert!(is_match(r"\bx", "éx"));
        assert!(!is_match(r"\Bx", "éx"));
        assert!(!is_match(r"\bx", "ax"));
        assert!(is_match(r"^[\d_]+$", "1_2"));
        assert!(!is_match(r"^[\d]$", "٣"));
        assert!(is_match(r"^[a\D]$", "٣"));
        assert!(!is_match(r"^[^\w]$", "a"));
        assert!(is_match(r"^[^\w]$", "é"));
    }

    #[test]
    fn what_re2_reads_as_characters_stays_characters() {
        assert!(is_match(r"^\<a\>$", "<a>"));
        assert!(is_match(r"^[a&&b]+$", "&&ab"));
        assert!(is_match(r"^[a~~b]+$", "~a"));
        assert!(is_match(r"^[a-c--b]+$", "0b"));
        assert!(is_match(r"^[a-c-]+$", "b-"));
        assert!(is_match(r"^[[a]+$", "[a"));
        assert!(is_match(r"^[]a]+$", "]a"));
        assert!(is_match(r"^[^]a]$", "b"));
        assert!(is_match(r"^[a-]+$", "a-"));
        assert!(is_match(r"^[-a]+$", "-a"));
        assert!(is_match(r"^\Qa.b*\E$", "a.b*"));
        assert!(!is_match(r"^\Qa.b\E$", "axb"));
        assert!(is_match(r"^\Qa.b$", "a.b$"));
        assert!(is_match(r"^[\-\]\\]+$", "-]\\"));
    }

    #[test]
    fn what_both_read_alike_is_kept() {
        assert!(is_match(r"^[[:alpha:]]+$", "abc"));
        assert!(!is_match(r"^[[:^alpha:]]$", "a"));
        assert!(is_match(r"^\pL+$", "éa"));
        assert!(is_match(r"^\p{Greek}$", "α"));
        assert!(is_match(r"^[\p{Greek}a]+$", "αa"));
        assert!(is_match(r"^[\x{3B1}-\x{3C9}]$", "β"));
        assert!(is_match(r"^\x41\x{42}$", "AB"));
        assert!(is_match(r"(?i)^ÉDGE$", "édge"));
        assert!(is_match(r"(?P<n>a)(?:b)", "ab"));
        assert!(is_match(r"^a{2,3}$", "aaa"));
        assert!(is_match(r"^[\n]$", "\n"));
        assert!(is_match(r"^[\101]$", "A"));
        assert!(is_match(r"^\101\0$", "A\0"));
        assert!(is_match(r"^\1018$", "A8"));
        assert!(to_regex_syntax(r"(a)\1").is_err());
        assert_eq!(
            to_regex_syntax(r"^edge-[0-9]+\.x$").unwrap(),
            r"^edge\x{2D}[0-9]+\x{2E}x$"
        );
    }

    #[test]
    fn flags_re2_lacks_are_refused() {
        for p in ["(?x)a b", "(?u)a", "(?R)a", "(?ix:a)"] {
            let why = to_regex_syntax(p).unwrap_err();
            assert!(why.contains("not RE2 syntax"), "{p}: {why}");
        }
        for p in ["(?i)a", "(?ms-U:a)", "(?P<name>a)", "(?:a)"] {
            assert!(to_regex_syntax(p).is_ok(), "{p}");
        }
    }

    proptest::proptest! {
        /// Any text at all: translated without a panic, and what comes out is given to the
        /// crate (which refuses or compiles it) without one either.
        #[test]
        fn any_pattern_is_translated_without_a_panic(
            pattern in r"[\\\[\]^\-&~:(?)<>a-dQEPpxX0-9{}é٣]{0,24}"
        ) {
            if let Ok(t) = to_regex_syntax(&pattern) {
                let _ = regex::Regex::new(&t);
            }
        }
    }

    /// Hostile sizes: every part of the pattern is read a bounded number of times.
    #[test]
    fn many_classes_and_escapes_stay_linear() {
        for unit in ["[[:", "[:", "[]", "\\Q", "(?", "\\p{", "[\\x{", "[a-"] {
            let pattern = unit.repeat(200_000);
            let _ = to_regex_syntax(&pattern);
        }
        let named = "[[:alpha:]".repeat(50_000) + "]";
        assert!(to_regex_syntax(&named).is_ok());
    }

    #[test]
    fn unclosed_classes_and_trailing_escapes_are_refused_as_go_refuses_them() {
        assert_eq!(
            to_regex_syntax("[ab").unwrap_err(),
            "invalid regular expression: missing closing ]: `[ab`"
        );
        assert_eq!(
            to_regex_syntax("a\\").unwrap_err(),
            "invalid regular expression: trailing backslash at end of expression: `\\`"
        );
    }

    /// Go's readings the crate's syntax lacks (issue 40): a `{` that starts no count, `^` in
    /// a Unicode class name, surrogates, stacked repetitions and counts over 1000.
    #[test]
    fn what_go_reads_is_read_so() {
        assert!(is_match(r"^x{foo}$", "x{foo}"));
        assert!(is_match(r"^a{,3}$", "a{,3}"));
        assert!(is_match(r"^a{01}$", "a{01}"));
        assert!(is_match(r"^\p{^Greek}$", "a"));
        assert!(!is_match(r"^\p{^Greek}$", "α"));
        assert!(!is_match(r"\x{D800}", "\u{D7FF}\u{E000}"));
        assert!(is_match(r"^[a-\x{D800}]$", "\u{D7FF}"));
        assert!(!is_match(r"^\p{C}$", "\u{378}"));
        assert!(is_match(r"^a(?i)*$", "aa"));
        for p in [
            r"a**",
            r"a++",
            r"a*??",
            r"a{2}{3}",
            r"a{1001}",
            r"(a{2,3}){400}",
            r"\p{greek}",
        ] {
            assert!(to_regex_syntax(p).is_err(), "{p}");
        }
        // Unicode 15's scripts, which Go 1.21 and later take.
        assert!(is_match(r"^\p{Kawi}$", "\u{11F04}"));
        assert!(is_match(r"^\p{Vithkuqi}$", "\u{10570}"));
    }
}
