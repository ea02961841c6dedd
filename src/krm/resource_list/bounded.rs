//! Writing the output within the output limit ([`crate::krm::output`]): all or nothing, so
//! an output past the limit must be known before its first byte goes out, yet a large output
//! is never held whole.

use super::{Changes, ResourceList, EMIT_CHUNK};
use crate::krm::results::ResultItem;
use crate::yaml::Emitter;

/// Output held by the first pass of [`ResourceList::emit_to`]: an output up to this size (a
/// call on a small package) is made once and held; a longer one is counted first (so that
/// nothing goes out of one past the limit) and made again as it is written. A fixed amount,
/// not the input's size: holding a large package's output whole was as much memory as its
/// input again, where making it twice costs only the copying of its untouched text.
pub const HOLD: usize = 1 << 20;

/// Why [`ResourceList::emit_to`] wrote nothing, or not all.
#[derive(Debug)]
pub enum EmitError {
    /// The output would pass the limit given ([`crate::krm::output::limit`]); nothing was
    /// written.
    TooLarge,
    /// Writing failed.
    Io(std::io::Error),
}

impl From<std::io::Error> for EmitError {
    fn from(e: std::io::Error) -> Self {
        EmitError::Io(e)
    }
}

impl ResourceList<'_> {
    /// [`emit`](Self::emit) to `w`, handed over in chunks of about [`EMIT_CHUNK`] bytes at
    /// item boundaries: the output is never held whole in memory (on a large package that is
    /// as much memory as the input again). An output longer than `limit` bytes is
    /// [`EmitError::TooLarge`] and nothing is written: all or nothing. So the first pass holds
    /// the output up to [`HOLD`] bytes and only counts it past that; an output that did not
    /// fit is written by a second pass (the output is the same every time it is made).
    pub fn emit_to(
        &self,
        changes: &Changes,
        results: &[ResultItem],
        w: &mut dyn std::io::Write,
        limit: usize,
    ) -> Result<(), EmitError> {
        self.emit_within(changes, results, w, limit, HOLD)
    }

    /// [`emit_to`](Self::emit_to), holding at most `hold` bytes.
    pub(super) fn emit_within(
        &self,
        changes: &Changes,
        results: &[ResultItem],
        w: &mut dyn std::io::Write,
        limit: usize,
        hold: usize,
    ) -> Result<(), EmitError> {
        let mut e = Emitter::new(self.src, 2 * EMIT_CHUNK);
        // Chunks as they were made (moved, not copied: no string grows by doubling).
        let mut held: Vec<String> = Vec::new();
        let mut total = 0usize;
        let mut holding = true;
        let done = self.emit_with(&mut e, changes, results, &mut |out: &mut String| {
            if out.len() < EMIT_CHUNK {
                return true;
            }
            total = total.saturating_add(out.len());
            if holding && total <= hold {
                held.push(std::mem::replace(
                    out,
                    String::with_capacity(2 * EMIT_CHUNK),
                ));
            } else {
                holding = false;
                held = Vec::new();
                out.clear();
            }
            total <= limit
        });
        total = total.saturating_add(e.out.len());
        if !done || total > limit {
            return Err(EmitError::TooLarge);
        }
        if holding {
            for chunk in &held {
                w.write_all(chunk.as_bytes())?;
            }
            return Ok(w.write_all(e.out.as_bytes())?);
        }
        drop((held, e));
        let mut e = Emitter::new(self.src, 2 * EMIT_CHUNK);
        let mut failed: std::io::Result<()> = Ok(());
        self.emit_with(&mut e, changes, results, &mut |out: &mut String| {
            if out.len() >= EMIT_CHUNK {
                if failed.is_ok() {
                    failed = w.write_all(out.as_bytes());
                }
                out.clear();
            }
            true
        });
        failed?;
        Ok(w.write_all(e.out.as_bytes())?)
    }
}
