//! One group of names in a summary, shown up to a limit and counted past it. Its own module
//! because the summary (`preview`) and the sync policy both list names this way, and the
//! sync policy sits below the summary.

/// Most names listed per group; the rest are counted.
pub const NAMES_SHOWN: usize = 20;

/// One group of the plan: how many, and the first [`NAMES_SHOWN`] as they are listed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Group {
    count: usize,
    shown: Vec<String>,
}

impl Group {
    /// Adds one entry; `text` is only called for the first [`NAMES_SHOWN`].
    pub fn add(&mut self, text: impl FnOnce() -> String) {
        if self.shown.len() < NAMES_SHOWN {
            self.shown.push(text());
        }
        self.count += 1;
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// ` (a, b, and 3 more)`, or nothing for an empty group.
    pub fn listed(&self) -> String {
        if self.shown.is_empty() {
            return String::new();
        }
        let mut shown = self.shown.join(", ");
        let more = self.count.saturating_sub(self.shown.len());
        if more > 0 {
            shown.push_str(&format!(", and {more} more"));
        }
        format!(" ({shown})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_show_twenty_and_count_the_rest() {
        let mut g = Group::default();
        for i in 0..25 {
            g.add(|| format!("v{i}"));
        }
        assert_eq!(g.len(), 25);
        assert!(g.listed().ends_with("v19, and 5 more)"), "{}", g.listed());
        assert_eq!(Group::default().listed(), "");
    }
}
