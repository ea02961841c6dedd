//! Compile errors in cel-go's format (`common/errors.go`), so that a message here reads as
//! the one Porch reports: `ERROR: <input>:L:C: msg`, the source line, and a caret line; all
//! errors sorted by position, at most 100 shown.

use cel::common::ast::SourceInfo;

/// cel-go shows at most this many errors, then says how many more there were.
const MAX_ERRORS_SHOWN: usize = 100;

/// One error at a 1-based line and column (in characters).
struct Located {
    line: usize,
    column: usize,
    message: String,
}

/// Syntax errors of the parser, in cel-go's format.
pub fn syntax_errors(source: &str, errors: &cel::ParseErrors) -> String {
    let located = errors
        .errors
        .iter()
        .map(|e| Located {
            line: usize::try_from(e.pos.0).unwrap_or(1),
            column: usize::try_from(e.pos.1).unwrap_or(1),
            message: e.msg.clone(),
        })
        .collect();
    display(source, located, false)
}

/// Checker errors at the nodes they concern (`id`s of `info`), in cel-go's format.
pub fn compile_errors(source: &str, info: &SourceInfo, issues: Vec<(u64, String)>) -> String {
    let located = issues
        .into_iter()
        .map(|(id, message)| {
            let offset = info.offset_for(id).map(|(s, _)| s as usize).unwrap_or(0);
            let (line, column) = line_and_column(source, offset);
            Located {
                line,
                column,
                message,
            }
        })
        .collect();
    display(source, located, true)
}

/// The 1-based line and column of the character at `offset` (in characters).
fn line_and_column(source: &str, offset: usize) -> (usize, usize) {
    let (mut line, mut column) = (1usize, 1usize);
    for c in source.chars().take(offset) {
        if c == '\n' {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    (line, column)
}

fn display(source: &str, mut errors: Vec<Located>, sort: bool) -> String {
    if sort {
        errors.sort_by_key(|e| (e.line, e.column));
    }
    let total = errors.len();
    let mut out: Vec<String> = errors
        .iter()
        .take(MAX_ERRORS_SHOWN)
        .map(|e| {
            // A message's lines after the first (a hint) follow the source and caret lines.
            let (message, hint) = match e.message.split_once('\n') {
                Some((first, rest)) => (first, Some(rest)),
                None => (e.message.as_str(), None),
            };
            let mut text = format!("ERROR: <input>:{}:{}: {message}", e.line, e.column);
            if let Some(line) = source.lines().nth(e.line.saturating_sub(1)) {
                // cel-go marks each character before the column with a dot, a wide one for
                // characters outside ASCII, so the caret lines up in a terminal.
                let dots: String = line
                    .chars()
                    .chain(std::iter::repeat(' '))
                    .take(e.column.saturating_sub(1))
                    .map(|c| if c.is_ascii() { '.' } else { '\u{FF0E}' })
                    .collect();
                text.push_str(&format!("\n | {}\n | {dots}^", line.replace('\t', " ")));
            }
            if let Some(hint) = hint {
                text.push('\n');
                text.push_str(hint);
            }
            text
        })
        .collect();
    if total > MAX_ERRORS_SHOWN {
        out.push(format!(
            "{} more errors were truncated",
            total - MAX_ERRORS_SHOWN
        ));
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_characters() {
        assert_eq!(line_and_column("ab\ncd", 4), (2, 2));
        assert_eq!(line_and_column("é + 1", 2), (1, 3));
    }
}
