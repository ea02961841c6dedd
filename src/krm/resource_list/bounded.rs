//! Writing the output within the output limit ([`crate::krm::output`]): all or nothing, so
//! an output past the limit must be known before its first byte goes out, yet a large output
//! is never held whole.

use super::{Changes, ResourceList, EMIT_CHUNK, KEEP_TREES_UP_TO};
use crate::krm::results::ResultItem;
use crate::yaml::Emitter;

/// Output made by the first pass of [`ResourceList::emit_to`] (edited and new items, results:
/// not the untouched items, which are only counted, and copied again from the input as they
/// are written) that is held beyond the input's size: an output whose made part is at most
/// the input's size plus this is made once; a longer one is counted first (so that nothing
/// goes out of one past the limit) and made again as it is written. Holding costs at most the
/// input's size again plus 8 MiB, within 8 times the input plus 64 MiB; holding the copies too
/// would cost a large package as much memory as its input again.
pub const HOLD: usize = 8 << 20;

/// Part of the output held by the first pass.
enum Piece {
    /// Text the first pass made.
    Made(String),
    /// Untouched items `from..to`, copied from the input when written.
    Copies(usize, usize),
}

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
    /// what it made up to the input's size plus [`HOLD`] bytes (untouched items only as their
    /// numbers) and only counts it past that; an output that did not fit is written by a
    /// second pass (the output is the same every time it is made).
    pub fn emit_to(
        &self,
        changes: &Changes,
        results: &[ResultItem],
        w: &mut dyn std::io::Write,
        limit: usize,
    ) -> Result<(), EmitError> {
        let hold = self.src.len().saturating_add(HOLD);
        self.emit_within(changes, results, w, limit, hold)
    }

    /// [`emit_to`](Self::emit_to), holding at most `hold` bytes of made text.
    pub(super) fn emit_within(
        &self,
        changes: &Changes,
        results: &[ResultItem],
        w: &mut dyn std::io::Write,
        limit: usize,
        hold: usize,
    ) -> Result<(), EmitError> {
        let mut e = Emitter::new(self.src, 2 * EMIT_CHUNK);
        let mut held: Vec<Piece> = Vec::new();
        let mut total = 0usize;
        let mut made = 0usize;
        let mut holding = true;
        // A small input's untouched items are held as text, as made ones are: copying them
        // again later is what a call of a few items would spend on top.
        let small = self.src.len() <= KEEP_TREES_UP_TO;
        let done = self.emit_with(&mut e, changes, results, &mut |out, copied| {
            let keep = copied.map_or(out.len(), |(_, from)| from);
            if (copied.is_none() || small) && out.len() < EMIT_CHUNK {
                return true;
            }
            total = total.saturating_add(out.len());
            made = made.saturating_add(keep);
            holding = holding && made <= hold;
            if holding {
                if keep > 0 {
                    held.push(Piece::Made(out[..keep].to_string()));
                }
                if let Some((i, _)) = copied {
                    match held.last_mut() {
                        Some(Piece::Copies(_, to)) if *to == i => *to = i + 1,
                        _ => held.push(Piece::Copies(i, i + 1)),
                    }
                }
            } else {
                held = Vec::new();
            }
            out.clear();
            total <= limit
        });
        total = total.saturating_add(e.out.len());
        if !done || total > limit {
            return Err(EmitError::TooLarge);
        }
        if holding {
            let mut copy = Emitter::new(self.src, 2 * EMIT_CHUNK);
            for piece in &held {
                match *piece {
                    Piece::Made(ref text) => w.write_all(text.as_bytes())?,
                    Piece::Copies(from, to) => {
                        for i in from..to {
                            self.copy_item(&mut copy, i, &self.items.trivia(i, self.src));
                            if copy.out.len() >= EMIT_CHUNK || i + 1 == to {
                                w.write_all(copy.out.as_bytes())?;
                                copy.out.clear();
                            }
                        }
                    }
                }
            }
            return Ok(w.write_all(e.out.as_bytes())?);
        }
        drop((held, e));
        let mut e = Emitter::new(self.src, 2 * EMIT_CHUNK);
        let mut failed: std::io::Result<()> = Ok(());
        self.emit_with(&mut e, changes, results, &mut |out, _| {
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
