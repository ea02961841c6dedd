//! CEL syntax errors say what is wrong with the expression, with its column, in cel-go's words
//! where cel-go has them: never the parser's own internals (`No \`MemberContextAll\`!`,
//! `Incomplete \`ExprContext\` ...`, `OtherError(ParseError { .. })`), which cel-go never prints
//! (issue 40). Issue 40's inputs through the binary; a seeded generator of token soup through
//! the library finds any other.

mod common;

use common::{pvs_config, repository, resource_list, results_section, run, UPSTREAM_PR};

/// Words of the parser's internals that no message may hold.
const INTERNALS: &[&str] = &[
    "Context",
    "OtherError",
    "ParseError",
    "UNKNOWN",
    "No `",
    "Incomplete `",
    "source_info",
    "expr_id",
];

fn leaked(message: &str) -> Option<&'static str> {
    INTERNALS.iter().copied().find(|w| message.contains(w))
}

/// The results of a set whose one template field is the expression `expr`.
fn refusal_of(expr: &str) -> String {
    let targets = format!(
        "  targets:\n  - repositories: [{{name: edge1}}]\n    template:\n      downstream:\n        packageExpr: '{}'\n",
        expr.replace('\'', "''")
    );
    let out = run(&resource_list(
        &[UPSTREAM_PR, &repository("edge1", "{}")],
        &pvs_config(&targets),
    ));
    assert_eq!(out.code, 1, "{expr}: {}", out.stdout);
    let results = results_section(&out.stdout).to_string();
    assert!(
        results.contains("path: spec.targets[0].template.downstream.packageExpr"),
        "{results}"
    );
    results
}

#[test]
fn issue_40s_inputs_are_said_in_the_users_words() {
    let nested = format!("{}'b'", "true ? 'a' : ".repeat(45));
    for (expr, said) in [
        (
            "-----",
            "ERROR: <input>:1:6: Syntax error: no viable alternative at input '-'",
        ),
        (
            "1 ? 2 : 3 ? 4",
            "ERROR: <input>:1:14: Syntax error: mismatched input '<EOF>' expecting",
        ),
        (
            nested.as_str(),
            "expression recursion limit exceeded: it nests more than 40 expressions in one another",
        ),
    ] {
        let results = refusal_of(expr);
        assert!(results.contains(said), "{expr}: {results}");
        assert_eq!(leaked(&results), None, "{expr}: {results}");
    }
    // The recursion limit is said once, at the column where it was reached.
    let results = refusal_of(&nested);
    assert_eq!(results.matches("recursion limit").count(), 1, "{results}");
    assert!(results.contains("ERROR: <input>:1:534: "), "{results}");
}

/// A small seeded generator (xorshift).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Token soup: 4,000 expressions of up to 12 CEL tokens, every refusal free of internals.
#[test]
fn no_syntax_error_shows_the_parsers_internals() {
    const TOKENS: &[&str] = &[
        "1", "2u", "1.5", "'s'", "b'x'", "true", "null", "x", "target", ".", "name", "(", ")", "[",
        "]", "{", "}", ",", ":", "?", "-", "!", "+", "*", "/", "%", "==", "<", "&&", "||", "in",
        "has", "size", "matches", ".?", "[?", "--", "?:", "::", "'", "\"", "\\", "$", "#", "@",
        "1e", "0x", "r'", " ",
    ];
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut refused = 0;
    for _ in 0..4000 {
        let n = 1 + rng.below(12);
        let expr: Vec<&str> = (0..n).map(|_| TOKENS[rng.below(TOKENS.len())]).collect();
        let expr = expr.join(" ");
        if let Err(message) = package_variant::cel::compile(&expr) {
            refused += 1;
            assert_eq!(leaked(&message), None, "{expr:?}: {message}");
            assert!(
                message.starts_with("ERROR: <input>:") || !message.contains("<input>"),
                "{expr:?}: {message}"
            );
        }
    }
    assert!(refused > 2000, "only {refused} of 4000 refused");
}
