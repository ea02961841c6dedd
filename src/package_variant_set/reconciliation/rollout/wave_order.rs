//! The one order of waves every gate uses: the upgrade and creation order, `pauseAfterWave`'s
//! approvals, and reverse deletions (issue 48, item 8: "10" rolled out before "2" and was
//! deleted before it too).
//!
//! A wave is an int, or a string (a `waveExpr` value, or a `wave` annotation read back). A
//! string that is a whole number (`"2"`, `"10"`, `"-1"`) is that number; numbers come before
//! every other string and compare by value; other strings compare byte-wise. Two spellings of
//! one number (`"01"`, `"1"`) tie on the number and then compare as text, so the order is
//! total. Nothing is allocated: the gates sort a fleet by it.

use std::cmp::Ordering;

use crate::cel::IntOrString;

/// A wave, ordered the one way ([`compare`]).
#[derive(Debug, Clone, Copy)]
pub struct Wave<'a>(pub &'a IntOrString);

/// The number a wave is, if it is one.
fn number(w: &IntOrString) -> Option<i64> {
    match w {
        IntOrString::Int(i) => Some(*i),
        IntOrString::String(s) => {
            let digits = s.strip_prefix('-').unwrap_or(s);
            let whole = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
            whole.then(|| s.parse::<i64>().ok()).flatten()
        }
    }
}

/// The order of two waves (see the module's comment).
pub fn compare(a: &IntOrString, b: &IntOrString) -> Ordering {
    match (number(a), number(b)) {
        (Some(x), Some(y)) => x.cmp(&y).then_with(|| match (a, b) {
            (IntOrString::String(s), IntOrString::String(t)) => s.cmp(t),
            _ => Ordering::Equal,
        }),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => match (a, b) {
            (IntOrString::String(s), IntOrString::String(t)) => s.cmp(t),
            _ => Ordering::Equal,
        },
    }
}

/// A wave given as text (an annotation's value, an approval) in the one order.
pub fn of_text(text: &str) -> IntOrString {
    IntOrString::String(text.to_string())
}

impl PartialEq for Wave<'_> {
    fn eq(&self, other: &Self) -> bool {
        compare(self.0, other.0) == Ordering::Equal
    }
}

impl Eq for Wave<'_> {}

impl PartialOrd for Wave<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Wave<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        compare(self.0, other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digit_strings_are_numbers_and_come_first() {
        let s = |v: &str| IntOrString::String(v.into());
        let mut waves = [
            s("canary"),
            s("10"),
            s("2"),
            s("b"),
            s("-1"),
            s("01"),
            s("1"),
        ];
        waves.sort_by(compare);
        let texts: Vec<String> = waves
            .iter()
            .map(|w| match w {
                IntOrString::String(t) => t.clone(),
                IntOrString::Int(i) => i.to_string(),
            })
            .collect();
        assert_eq!(texts, ["-1", "01", "1", "2", "10", "b", "canary"]);
        assert_eq!(compare(&IntOrString::Int(2), &s("2")), Ordering::Equal);
        assert_eq!(compare(&IntOrString::Int(2), &s("10")), Ordering::Less);
        assert_eq!(compare(&s("2"), &s("10")), Ordering::Less);
    }
}
