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
