//! `spec.rollout.maxUpgrades`: how many existing variants one run may upgrade, read from the
//! set (a count, or a share of the existing variants) and applied to a fleet.

use serde_json::Value;

/// How many existing variants one run may upgrade.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxUpgrades {
    /// At most this many (at least 1).
    Count(u64),
    /// At most this share of the existing variants, rounded up (1 to 100).
    Percent(u64),
}

impl MaxUpgrades {
    /// The number of upgrades one run may make in a fleet of `existing` variants: a share is
    /// rounded up, so it is at least 1 when there is anything to upgrade.
    pub fn limit(self, existing: usize) -> usize {
        match self {
            MaxUpgrades::Count(n) => usize::try_from(n).unwrap_or(usize::MAX),
            MaxUpgrades::Percent(p) => {
                let n = existing as u128 * u128::from(p);
                usize::try_from(n.div_ceil(100)).unwrap_or(usize::MAX)
            }
        }
    }

    pub(super) fn text(self) -> String {
        match self {
            MaxUpgrades::Count(n) => n.to_string(),
            MaxUpgrades::Percent(p) => format!("{p}%"),
        }
    }
}

/// `maxUpgrades`: a whole number from 1, or a string `"P%"` with P from 1 to 100.
pub(super) fn max_upgrades(value: &Value) -> Result<MaxUpgrades, String> {
    const WRITE: &str = "write a whole number of variants from 1 (maxUpgrades: 5) or a percentage of the existing variants from \"1%\" to \"100%\" (maxUpgrades: \"25%\", rounded up)";
    match value {
        Value::Number(n) => match n.as_u64() {
            Some(0) => Err(format!("0 would never upgrade anything; {WRITE}")),
            Some(n) => Ok(MaxUpgrades::Count(n)),
            None => Err(format!("{n} is not a number of variants; {WRITE}")),
        },
        Value::String(s) => {
            let percent = s
                .strip_suffix('%')
                .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|d| d.parse::<u64>().ok());
            match percent {
                Some(p @ 1..=100) => Ok(MaxUpgrades::Percent(p)),
                Some(0) => Err(format!("\"0%\" would never upgrade anything; {WRITE}")),
                Some(_) => Err(format!("{s:?} is more than all of them; {WRITE}")),
                None if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => Err(format!(
                    "{s:?} is a string: write maxUpgrades: {s} without quotes for a number of variants, or \"{s}%\" for a share"
                )),
                None => Err(format!("{s:?} is not a number or a percentage; {WRITE}")),
            }
        }
        other => Err(format!(
            "{} is not a number or a percentage; {WRITE}",
            match other {
                Value::Bool(b) => b.to_string(),
                Value::Array(_) => "a list".into(),
                Value::Object(_) => "a mapping".into(),
                _ => "null".into(),
            }
        )),
    }
}
