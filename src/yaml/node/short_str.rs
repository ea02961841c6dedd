//! The text of a scalar or an alias, held in the node itself when it is short.
//!
//! Why: a wide mapping is mostly short keys and values (`k1: v`), and a `String` for each costs
//! 24 bytes plus a heap block of at least 32. Up to [`INLINE`] bytes live in the 24 bytes the
//! `String` took; longer text is one exact-size heap block.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;

/// Longest text held without a heap block.
pub const INLINE: usize = 22;

/// Immutable text: inline up to [`INLINE`] bytes, else boxed. 24 bytes.
#[derive(Clone)]
pub struct ShortStr(Repr);

#[derive(Clone)]
enum Repr {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Box<str>),
}

impl ShortStr {
    /// The empty text.
    pub const fn new() -> ShortStr {
        ShortStr(Repr::Inline {
            len: 0,
            bytes: [0; INLINE],
        })
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline { len, bytes } => {
                // SAFETY: `Repr` is private and an `Inline` is only ever made by `From<&str>`,
                // which copies all of a `str`'s bytes: `bytes[..len]` is that `str`, UTF-8.
                // Why not `from_utf8`: checking on every read cost 12% of W1's instructions.
                unsafe { std::str::from_utf8_unchecked(&bytes[..*len as usize]) }
            }
            Repr::Heap(s) => s,
        }
    }

    /// The text as a `String`.
    pub fn into_string(self) -> String {
        match self.0 {
            Repr::Heap(s) => s.into_string(),
            Repr::Inline { .. } => self.as_str().to_string(),
        }
    }
}

impl Default for ShortStr {
    fn default() -> ShortStr {
        ShortStr::new()
    }
}

impl From<&str> for ShortStr {
    fn from(s: &str) -> ShortStr {
        if s.len() <= INLINE {
            let mut bytes = [0; INLINE];
            bytes[..s.len()].copy_from_slice(s.as_bytes());
            ShortStr(Repr::Inline {
                len: s.len() as u8,
                bytes,
            })
        } else {
            ShortStr(Repr::Heap(s.into()))
        }
    }
}

impl From<String> for ShortStr {
    fn from(s: String) -> ShortStr {
        if s.len() <= INLINE {
            ShortStr::from(s.as_str())
        } else {
            ShortStr(Repr::Heap(s.into_boxed_str()))
        }
    }
}

impl From<&String> for ShortStr {
    fn from(s: &String) -> ShortStr {
        ShortStr::from(s.as_str())
    }
}

impl From<ShortStr> for String {
    fn from(t: ShortStr) -> String {
        t.into_string()
    }
}

impl Deref for ShortStr {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for ShortStr {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for ShortStr {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for ShortStr {
    fn eq(&self, other: &ShortStr) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for ShortStr {}

impl PartialEq<str> for ShortStr {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ShortStr {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for ShortStr {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl std::hash::Hash for ShortStr {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl fmt::Debug for ShortStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

// `to_string()` goes through the formatting machinery (about 120 instructions of growing a
// `String`); where it is hot, `as_str().to_owned()` copies the text at once.
impl fmt::Display for ShortStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_up_to_the_limit_then_boxed() {
        assert_eq!(std::mem::size_of::<ShortStr>(), 24);
        for s in ["", "a", "é-ü", &"x".repeat(INLINE), &"y".repeat(INLINE + 1)] {
            let t = ShortStr::from(s);
            assert_eq!(t.as_str(), s);
            assert_eq!(ShortStr::from(s.to_string()), t);
            assert_eq!(t.clone().into_string(), s);
            assert_eq!(matches!(t.0, Repr::Inline { .. }), s.len() <= INLINE);
        }
    }
}
