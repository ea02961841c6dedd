use super::characters::{forbidden_character, needs_a_look};
use super::*;

/// A removal listed twice removes one item: the list is still written as a block list
/// holding the other item (counting removals underflowed, or wrote `items: []` before it).
#[test]
fn repeated_removal_counts_once() {
    let src = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- a: 1\n- b: 2\n";
    let rl = ResourceList::parse(src).unwrap_or_else(|e| panic!("{e}"));
    let changes = Changes {
        removed: vec![0, 0, 0],
        ..Changes::default()
    };
    assert_eq!(
        rl.emit(&changes, &[]),
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- b: 2\n"
    );
}

/// The byte scan finds what a scan of the characters finds, at the same place.
#[test]
fn forbidden_characters_by_bytes_as_by_characters() {
    let by_chars = |s: &str| {
        let mut it = s.char_indices().peekable();
        while let Some((i, c)) = it.next() {
            if c == '\r' && it.peek().map(|&(_, n)| n) != Some('\n') {
                return Some((i, '\r'));
            }
            if (c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\u{85}'))
                || c == '\u{fffe}'
                || c == '\u{ffff}'
            {
                return Some((i, c));
            }
        }
        None
    };
    let alphabet = [
        'a',
        '\t',
        '\n',
        '\r',
        '\0',
        '\x07',
        '\x1f',
        ' ',
        '\x7f',
        '\u{80}',
        '\u{85}',
        '\u{9f}',
        '\u{a0}',
        'é',
        '\u{fffd}',
        '\u{fffe}',
        '\u{ffff}',
        '\u{10000}',
    ];
    let mut words = vec![String::new()];
    for _ in 0..3 {
        let longer: Vec<String> = words
            .iter()
            .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
            .collect();
        words.extend(longer);
    }
    for w in &words {
        assert_eq!(forbidden_character(w), by_chars(w), "{w:?}");
        // At every offset of an eight-byte word, and after whole clean words.
        for pad in 0..17 {
            let padded = format!(
                "{}{w}{}",
                "x\n\t".repeat(pad).get(..pad).unwrap_or(""),
                "y".repeat(9)
            );
            assert_eq!(
                forbidden_character(&padded),
                by_chars(&padded),
                "{padded:?}"
            );
        }
    }
}

/// The eight-byte check flags exactly the words holding a byte the byte loop looks at.
#[test]
fn words_need_a_look_exactly_when_a_byte_does() {
    let looks = |c: u8| !(matches!(c, 0x20..=0x7e | b'\n' | b'\t'));
    for c in 0..=255u8 {
        for at in 0..8 {
            for fill in [b'a', b'\n', b'\t', b' ', b'~'] {
                let mut word = [fill; 8];
                word[at] = c;
                assert_eq!(
                    needs_a_look(u64::from_le_bytes(word)),
                    looks(c),
                    "byte {c:#x} at {at} among {fill:#x}"
                );
            }
        }
    }
}

#[test]
fn input_size_limit() {
    assert!(check_size(0).is_ok());
    assert!(check_size(MAX_INPUT_BYTES).is_ok());
    let err = check_size(MAX_INPUT_BYTES + 1).unwrap_err();
    assert!(
        err.0.contains("limit of 268435456 bytes (256 MiB)"),
        "{err}"
    );
}

mod kept_trees;
