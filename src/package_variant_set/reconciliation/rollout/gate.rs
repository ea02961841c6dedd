//! The gates' names, in the order they judge the plan, where a rollout stands after a run,
//! and what the gates over deletions decide of a run's deletions: what every held entry and
//! the summary report. Its own file so that the order reads
//! at a glance, apart from the code of each gate.

/// The gates, in the order they judge the plan (docs/fleet-safety.md): a held entry names the
/// first that holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// Nothing holds it: it moves in this run.
    None,
    /// `revisionActivationPolicy: Manual`: the revision is not activated.
    Activation,
    /// The sync policy forbids the change.
    SyncPolicy,
    /// `requireReady` / `readyExpr` / render state: a variant on the new upstream is not
    /// ready (or this one is, and holds the others).
    Readiness,
    /// `pauseAfterWave`: the wave waits for `approved-wave`.
    Approval,
    /// A later wave.
    Waves,
    /// `maxUpgrades`: the run's limit is reached.
    MaxUpgrades,
    /// `deletionOrder: Reverse`: a higher wave is deleted first.
    DeletionOrder,
}

impl Gate {
    /// The `gate` tag's value.
    pub fn name(self) -> &'static str {
        match self {
            Gate::None => "none",
            Gate::Activation => "activation",
            Gate::SyncPolicy => "syncPolicy",
            Gate::Readiness => "readiness",
            Gate::Approval => "approval",
            Gate::Waves => "waves",
            Gate::MaxUpgrades => "maxUpgrades",
            Gate::DeletionOrder => "deletionOrder",
        }
    }
}

/// Why a new variant of a later wave waits.
pub const HELD_CREATE: &str = "its wave may not move yet: it is created with its wave";

/// Where a rollout stands after this run, as its summary's `phase` tag says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Phase {
    /// Something moved or may move on the next run.
    #[default]
    Progressing,
    /// A variant on the new upstream is not Ready: nothing moves until it is.
    Blocked,
    /// The next wave waits for `approved-wave`.
    AwaitingApproval,
    /// Every variant is on the new upstream; nothing is left to do.
    Complete,
}

impl Phase {
    /// The tag's value.
    pub fn text(self) -> &'static str {
        match self {
            Phase::Progressing => "Progressing",
            Phase::Blocked => "Blocked",
            Phase::AwaitingApproval => "AwaitingApproval",
            Phase::Complete => "Complete",
        }
    }
}

/// What a run deletes in reverse waves.
#[derive(Debug, Default)]
pub struct Deletions {
    /// Item indexes deleted now.
    pub now: Vec<usize>,
    /// Item indexes that wait for a later run, the gate that holds each, and why.
    pub held: Vec<(usize, Gate, String)>,
    /// `; deletions in reverse waves: ...`, or empty.
    pub text: String,
}
