//! The strings each render produced, back to back, so that a new PackageVariant can be
//! written after the whole set has been decided without keeping its spec: the spec is rendered
//! again from its template and these values, with no CEL (see `templates::replay`).
//!
//! A fleet of 100,000 targets keeps about a hundred bytes per target here, where a rendered
//! spec (maps, strings, vectors) takes a few kilobytes.

/// Strings in the order they were pushed, addressed by index.
#[derive(Debug, Default, Clone)]
pub struct Records {
    text: String,
    /// End offset in `text` of each string.
    ends: Vec<u32>,
}

/// More text than [`Records`] can address (4 GiB): the CEL cost limits keep a run far below.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Full;

impl Records {
    /// Appends `s`; it gets index [`Records::len`] (before the push).
    pub fn push(&mut self, s: &str) -> Result<(), Full> {
        self.text.push_str(s);
        let end = u32::try_from(self.text.len()).map_err(|_| Full)?;
        self.ends.push(end);
        Ok(())
    }

    /// How many strings there are.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// String `i`, or `""` past the end.
    pub fn get(&self, i: usize) -> &str {
        let start = match i.checked_sub(1) {
            Some(p) => self.ends.get(p).map_or(usize::MAX, |&e| e as usize),
            None => 0,
        };
        let end = self.ends.get(i).map_or(0, |&e| e as usize);
        self.text.get(start..end).unwrap_or("")
    }

    /// The strings from `from` on, in order.
    pub fn from(&self, from: usize) -> impl Iterator<Item = &str> {
        (from..self.len()).map(|i| self.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_come_back_as_pushed() {
        let mut r = Records::default();
        for s in ["a", "", "bcd", "é"] {
            assert_eq!(r.push(s), Ok(()));
        }
        assert_eq!(r.len(), 4);
        assert_eq!(
            (0..5).map(|i| r.get(i)).collect::<Vec<_>>(),
            ["a", "", "bcd", "é", ""]
        );
        assert_eq!(r.from(2).collect::<Vec<_>>(), ["bcd", "é"]);
    }
}
