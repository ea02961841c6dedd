//! Compile errors in cel-go's format (`common/errors.go`), so that a message here reads as
//! the one Porch reports: `ERROR: <input>:L:C: msg`, the source line, and a caret line; all
//! errors sorted by position, at most 100 shown. A line longer than [`MAX_QUOTED_LINE`] is
//! quoted by a window around the column: cel-go quotes it whole under every error, and 100
//! errors on one 10,000-byte line made a 3 MB message (an input 100 times smaller than its
//! output).

use cel::common::ast::SourceInfo;

/// cel-go shows at most this many errors, then says how many more there were.
const MAX_ERRORS_SHOWN: usize = 100;

/// Lines up to this many characters are quoted whole, as cel-go does; a longer one by
/// [`QUOTED_EITHER_SIDE`] characters either side of the column, cut ends marked `...`.
const MAX_QUOTED_LINE: usize = 256;
const QUOTED_EITHER_SIDE: usize = 60;

/// One error at a 1-based line and column (in characters).
struct Located {
    line: usize,
    column: usize,
    message: String,
}

/// Syntax errors of the parser, in cel-go's format and the user's words: what the parser says
/// about itself (its visitor's `No \`MemberContextAll\`!`, `Incomplete \`ExprContext\` ...`, a
/// recursion limit as `OtherError(ParseError { .. })`) never reaches the message. cel-go has
/// none of these: its own syntax error for the same input is there beside them, and they are
/// left out; alone, each is said as what is missing.
pub fn syntax_errors(source: &str, errors: &cel::ParseErrors) -> String {
    let position = |e: &cel::ParseError| {
        (
            usize::try_from(e.pos.0).unwrap_or(1).max(1),
            usize::try_from(e.pos.1).unwrap_or(1).max(1),
        )
    };
    let said: Vec<(usize, usize, Said)> = errors
        .errors
        .iter()
        .map(|e| {
            let (line, column) = position(e);
            (line, column, said(&e.msg))
        })
        .collect();
    let any_plain = said.iter().any(|(_, _, s)| !matches!(s, Said::Internal(_)));
    let mut recursion_said = false;
    let mut internal_said = false;
    let mut located = Vec::new();
    for (line, column, s) in said {
        let message = match s {
            Said::Plain(m) => m,
            // One is enough: the parser reports the limit at every level past it.
            Said::Recursion if recursion_said => continue,
            Said::Recursion => {
                recursion_said = true;
                format!(
                    "expression recursion limit exceeded: it nests more than {} expressions in \
                     one another (each branch of `? :`, bracket, argument and list or map entry \
                     is one); write it with fewer levels, or split it over several expressions",
                    super::MAX_AST_DEPTH
                )
            }
            Said::Internal(_) if any_plain || internal_said => continue,
            Said::Internal(what) => {
                internal_said = true;
                what
            }
        };
        located.push(Located {
            line,
            column,
            message,
        });
    }
    display(source, located, false)
}

/// A parser message, as the user is told it.
enum Said {
    /// About the expression (cel-go's words): kept.
    Plain(String),
    /// The parser's recursion limit.
    Recursion,
    /// About the parser's own tree (a rule it could not finish): what is missing, in words.
    Internal(String),
}

fn said(message: &str) -> Said {
    if message.contains("Recursion limit of") {
        return Said::Recursion;
    }
    // An error of the parser's runtime, written with its Debug format: its message.
    if message.contains("OtherError(") || message.contains("ParseError {") {
        let inner = message
            .split_once("msg: \"")
            .and_then(|(_, rest)| rest.split_once("\", expr_id"))
            .map(|(m, _)| m);
        return match inner {
            Some(m) => Said::Plain(format!("Syntax error: {m}")),
            None => Said::Internal("Syntax error: the expression could not be read".into()),
        };
    }
    let internal = message == "UNKNOWN"
        || ((message.starts_with("No ") || message.starts_with("Incomplete "))
            && message.ends_with('!'));
    if !internal {
        return Said::Plain(message.to_string());
    }
    let what = if message.contains("_?_:_") {
        "Syntax error: incomplete conditional: write `condition ? value : other value`"
    } else {
        "Syntax error: incomplete expression: an operand or a closing bracket is missing here"
    };
    Said::Internal(what.to_string())
}

/// Checker errors at the nodes they concern (`id`s of `info`), in cel-go's format.
pub fn compile_errors(source: &str, info: &SourceInfo, issues: Vec<(u64, String)>) -> String {
    let lines = LineStarts::new(source);
    let located = issues
        .into_iter()
        .map(|(id, message)| {
            let offset = info.offset_for(id).map(|(s, _)| s as usize).unwrap_or(0);
            let (line, column) = lines.line_and_column(offset);
            Located {
                line,
                column,
                message,
            }
        })
        .collect();
    display(source, located, true)
}

/// Where each line starts, in characters: one pass over the source, then a binary search per
/// error (an expression can have thousands of errors).
struct LineStarts {
    starts: Vec<usize>,
    chars: usize,
}

impl LineStarts {
    fn new(source: &str) -> LineStarts {
        let mut starts = vec![0];
        let mut chars = 0;
        for c in source.chars() {
            chars += 1;
            if c == '\n' {
                starts.push(chars);
            }
        }
        LineStarts { starts, chars }
    }

    /// The 1-based line and column of the character at `offset` (in characters; past the
    /// end counts as the end).
    fn line_and_column(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.chars);
        let line = self.starts.partition_point(|&s| s <= offset);
        (line, offset - self.starts[line - 1] + 1)
    }
}

fn display(source: &str, mut errors: Vec<Located>, sort: bool) -> String {
    if sort {
        errors.sort_by_key(|e| (e.line, e.column));
    }
    let total = errors.len();
    let lines: Vec<&str> = source.lines().collect();
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
            if let Some(line) = lines.get(e.line.saturating_sub(1)) {
                let (quoted, dots) = quote(line, e.column);
                text.push_str(&format!("\n | {quoted}\n | {dots}^"));
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

/// The source line as quoted under an error at `column`, and the dots before its caret.
/// cel-go marks each character before the column with a dot, a wide one for characters
/// outside ASCII, so that the caret lines up in a terminal; tabs are shown as spaces.
fn quote(line: &str, column: usize) -> (String, String) {
    let mut before = column.saturating_sub(1);
    let length = line.chars().count();
    let (from, to) = if length <= MAX_QUOTED_LINE {
        (0, length)
    } else {
        // A column past the end (the parser's end of input) has its caret at the end.
        before = before.min(length);
        (
            before.saturating_sub(QUOTED_EITHER_SIDE),
            (before + QUOTED_EITHER_SIDE).min(length),
        )
    };
    let window = || line.chars().skip(from).take(to - from);
    let mut quoted = String::new();
    let mut dots = String::new();
    if from > 0 {
        quoted.push_str("...");
        dots.push_str("...");
    }
    quoted.extend(window().map(|c| if c == '\t' { ' ' } else { c }));
    if to < length {
        quoted.push_str("...");
    }
    dots.extend(
        window()
            .chain(std::iter::repeat(' '))
            .take(before - from)
            .map(|c| if c.is_ascii() { '.' } else { '\u{FF0E}' }),
    );
    (quoted, dots)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_characters() {
        let at = |source: &str, offset| LineStarts::new(source).line_and_column(offset);
        assert_eq!(at("ab\ncd", 4), (2, 2));
        assert_eq!(at("ab\ncd", 3), (2, 1));
        assert_eq!(at("ab\ncd", 2), (1, 3));
        assert_eq!(at("é + 1", 2), (1, 3));
        assert_eq!(at("ab", 9), (1, 3));
        assert_eq!(at("", 0), (1, 1));
    }

    #[test]
    fn long_lines_are_quoted_around_the_column() {
        // Short lines whole, as cel-go quotes them.
        assert_eq!(quote("a\tb", 3), ("a b".to_string(), "..".to_string()));
        assert_eq!(
            quote("é+x", 3),
            ("é+x".to_string(), "\u{FF0E}.".to_string())
        );
        let line: String = (0..400)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        // Near the start: cut at the end only.
        let (quoted, dots) = quote(&line, 5);
        assert_eq!(quoted, format!("{}...", &line[..64]));
        assert_eq!(dots, "....");
        // In the middle: 60 characters either side, and the caret under the column's one.
        let (quoted, dots) = quote(&line, 201);
        assert_eq!(quoted, format!("...{}...", &line[140..260]));
        assert_eq!(dots.len(), 63);
        assert_eq!(quoted.as_bytes()[dots.len()], line.as_bytes()[200]);
        // At the end: cut at the start only; a column past the end keeps its caret there.
        let (quoted, dots) = quote(&line, 401);
        assert_eq!(quoted, format!("...{}", &line[340..]));
        assert_eq!(dots.len(), 63);
        let (_, dots) = quote(&line, 1000);
        assert_eq!(dots.len(), 63);
    }
}
