//! `matches` against the reference itself: every pattern here, generated (a seeded generator,
//! a few thousand) and hand-picked (issue 40's), goes through the function's translation
//! (`package_variant::cel::compile_matches_pattern`, what `matches` compiles) and through Go's
//! `regexp`, the package cel-go compiles patterns with (tests/support/re2/main.go, built with
//! `go build` into target/); each must be accepted or refused alike, and an accepted one must
//! match the same texts. Go comes from Debian's `golang-go` (`.ci/run` installs it); without
//! `go` on PATH each test says it is skipped and passes, except in CI (`CI=true`), where it
//! fails.

use package_variant::cel::compile_matches_pattern;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Whether `go` runs. Without it `test` is skipped with the reason (cargo test has no skip at run
/// time), except in CI, which must run it: there its absence fails the test.
fn go_available(test: &str) -> bool {
    let ok = Command::new("go")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{test}: go is not on PATH; CI installs it (apt-get install -y golang-go)"
        );
        eprintln!("SKIPPED {test}: go is not on PATH (apt-get install -y golang-go)");
    }
    ok
}

/// The reference program, built once per test run.
fn reference() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("re2-reference");
    std::fs::create_dir_all(&dir).unwrap();
    let bin = dir.join("re2-reference");
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/re2/main.go");
    let out = Command::new("go")
        .arg("build")
        .arg("-o")
        .arg(&bin)
        .arg(&source)
        .env("GOCACHE", dir.join("cache"))
        .env("GOPATH", dir.join("gopath"))
        .env("GO111MODULE", "off")
        .env("GOTOOLCHAIN", "local")
        .env("GOTELEMETRY", "off")
        .output()
        .unwrap_or_else(|e| {
            panic!("go did not run ({e}): install Go (apt-get install -y golang-go)")
        });
    assert!(
        out.status.success(),
        "go build failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    bin
}

/// Go's answers: for each pattern, whether it compiles, and which texts it matches.
fn ask_go(patterns: &[String], texts: &[&str]) -> Vec<Result<Vec<bool>, String>> {
    let mut child = Command::new(reference())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let queries: Vec<String> = patterns
        .iter()
        .map(|p| json!({"p": p, "t": texts}).to_string())
        .collect();
    let writer = std::thread::spawn(move || {
        for q in queries {
            writeln!(stdin, "{q}").unwrap();
        }
    });
    let answers: Vec<_> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|line| {
            let a: Value = serde_json::from_str(&line.unwrap()).unwrap();
            if a["ok"] == true {
                Ok(a["m"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| m == true)
                    .collect())
            } else {
                Err(a["err"].as_str().unwrap_or_default().to_string())
            }
        })
        .collect();
    writer.join().unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(answers.len(), patterns.len());
    answers
}

/// The texts every pattern is matched against: the characters where RE2 and the crate read
/// alike text differently (Unicode digits and spaces, case folds such as `ſ` and the Kelvin
/// sign, a line break), and the characters of the generated patterns.
const TEXTS: &[&str] = &[
    "",
    "a",
    "b",
    "ab",
    "abc",
    "aaa",
    "aaaa",
    "ba",
    "A",
    "AB",
    "K",
    "k",
    "\u{212A}",
    "s",
    "S",
    "\u{17F}",
    "é",
    "É",
    "α",
    "Ω",
    "٣",
    "3",
    "12",
    "_",
    "-",
    " ",
    "\t",
    "\u{B}",
    "\u{A0}",
    "\n",
    "a\nb",
    "\r\n",
    "x{foo}",
    "{",
    "}",
    "{.*}",
    "a{,3}",
    "a{2",
    "[",
    "]",
    "[a]",
    "&&",
    "--",
    "<a>",
    "\\",
    "a.b",
    "axb",
    "(a)",
    "$",
    "^",
    ":",
    "A\u{0}",
    "é٣ab",
    "\u{1F600}",
    "\u{E000}",
    "\u{D7FF}",
    "aé",
    "b-c",
    "x",
    "QE",
];

/// Each accepted pattern's answer for every text, or why it is refused.
fn ask_ours(pattern: &str, texts: &[&str]) -> Option<Result<Vec<bool>, String>> {
    match compile_matches_pattern(pattern) {
        Ok(re) => Some(Ok(texts.iter().map(|t| re.is_match(t)).collect())),
        // The program size limit is this function's own bound on memory (docs: the CEL
        // limits), not syntax: such a pattern is left out of the comparison.
        Err(why) if why.starts_with("regular expression is too large") => None,
        Err(why) => Some(Err(why)),
    }
}

/// Runs `patterns` through both; every difference, described.
fn differences(patterns: &[String]) -> Vec<String> {
    let go = ask_go(patterns, TEXTS);
    let mut out = Vec::new();
    let mut too_large = 0;
    for (p, go) in patterns.iter().zip(go) {
        let Some(ours) = ask_ours(p, TEXTS) else {
            too_large += 1;
            continue;
        };
        match (&go, &ours) {
            (Ok(g), Ok(o)) => {
                let differ: Vec<String> = TEXTS
                    .iter()
                    .zip(g.iter().zip(o))
                    .filter(|(_, (g, o))| g != o)
                    .map(|(t, (g, _))| format!("{t:?} (Go: {g})"))
                    .collect();
                if !differ.is_empty() {
                    out.push(format!("{p:?} matches differently: {}", differ.join(", ")));
                }
            }
            (Err(_), Err(_)) => {}
            (Ok(_), Err(why)) => out.push(format!("{p:?}: Go accepts it, we refuse: {why}")),
            (Err(why), Ok(_)) => out.push(format!("{p:?}: Go refuses it ({why}), we accept it")),
        }
    }
    // Left out for their size: a few, never the comparison itself.
    if too_large * 50 > patterns.len() {
        out.push(format!("{too_large} patterns left out as too large"));
    }
    out
}

fn assert_no_differences(patterns: &[String]) {
    // On the stack the binary gives its work (a pattern of 999 nested groups is compiled
    // recursively).
    let owned = patterns.to_vec();
    let found = std::thread::Builder::new()
        .stack_size(package_variant::STACK_SIZE)
        .spawn(move || differences(&owned))
        .unwrap()
        .join()
        .unwrap();
    assert!(
        found.is_empty(),
        "{} of {} patterns differ from Go's regexp:\n{}",
        found.len(),
        patterns.len(),
        found
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The patterns of issue 40 and their neighbours: each accepted or refused as Go does.
#[test]
fn hand_picked_patterns_are_read_as_go_reads_them() {
    if !go_available("hand_picked_patterns_are_read_as_go_reads_them") {
        return;
    }
    let mut patterns: Vec<String> = [
        // Go takes: `{` that starts no count is a character; `\p{^..}` negates.
        r"x{foo}",
        r"^{.*}$",
        r"a{,3}",
        r"\p{^Greek}",
        r"\P{^Greek}",
        r"a{01}",
        r"a{ 2}",
        r"a{2",
        r"{",
        r"}",
        r"{2}",
        r"a{2}{",
        r"a{1,2}b{",
        r"a{1000}",
        r"(a{10}){100}",
        r"((a{1000}){0}){2}",
        r"(a{500}){1}",
        r"((a{500}){1}){2}",
        r"\x{D800}",
        r"[a-\x{D800}]",
        r"[\x{D800}-\x{E000}]",
        r"[^\x{D800}]",
        r"\x{10FFFF}",
        r"\x{0000041}",
        r"(?P<1a>x)",
        r"(?P<a>x)(?P<a>y)",
        r"(?)",
        r"(?i-i)A",
        r"a(?i)*",
        r"a*(?i)*",
        r"a*(?i)?",
        r"^*",
        r"$+",
        r"\b*",
        r"(?:a*)*",
        r"(|a)",
        r"()",
        "",
        r"\pN",
        r"\p{Any}",
        r"\p{L}",
        r"\p{C}",
        r"\P{C}",
        r"\p{Cs}",
        r"[\p{Greek}\d]",
        r"[[:word:]]",
        r"[[:^alpha:]]",
        r"[]a]",
        r"[^]a]",
        r"[a-]",
        r"\v\a\f",
        r"\0\101\1018",
        r"\Qa.b\E*",
        r"[a&&b]",
        r"[a~~b]",
        r"[a-c--b]",
        r"\<a\>",
        r"(?i)k",
        r"(?i)\w",
        r"(?i)\W",
        r"(?i)[[:upper:]]",
        r"(?i)\p{Lu}",
        r"(?U)a+",
        r"(?s).",
        r"(?m)^a$",
        r"\z\A",
        r"a*?",
        r"a{2,}?",
        r"\d\D\s\S\w\W",
        r"[\s\S]",
        // Go refuses: stacked repetitions, counts over 1000, names Go lacks, other escapes.
        r"a**",
        r"a++",
        r"a*+",
        r"a??",
        r"a*??",
        r"a{2}{3}",
        r"a{2}*",
        r"a*{2}",
        r"a{1001}",
        r"a{1000,1001}",
        r"a{2,1}",
        r"a{100000000}",
        r"(a{2,3}){400}",
        r"((a{2}){2}){251}",
        r"\p{greek}",
        r"\p{Emoji}",
        r"\p{Cn}",
        r"\p{LC}",
        r"\p{}",
        r"\p{^}",
        r"\p^L",
        r"\p",
        r"\p{Greek",
        r"\pZ",
        r"\C",
        r"\u0041",
        r"\U00000041",
        r"\e",
        r"[\b]",
        r"\Z",
        r"\8",
        r"\1",
        r"\x4",
        r"\x{}",
        r"\x{110000}",
        r"\xg1",
        r"\é",
        r"a|*",
        r"(*)",
        r"(?i)*",
        r"\Q\E*",
        r"(?<n>x)",
        r"(?P<>x)",
        r"(?P<é>x)",
        r"(?P<a",
        r"(?P=a)",
        r"(?x)a",
        r"(?u)a",
        r"(?R)a",
        r"(?--i)",
        r"(?-)",
        r"(?i-)",
        r"(?i",
        r"(?",
        r"(a",
        r"a)",
        r"[a",
        r"[]",
        r"[^]",
        r"[[:foo:]]",
        r"[[:alpha:]",
        r"[z-a]",
        r"[a-\d]",
        r"[\Q]\E]",
        r"[\pL-z]",
        r"a\",
    ]
    .iter()
    .map(|p| p.to_string())
    .collect();
    // Nesting: 999 groups are taken, 1000 are not.
    for depth in [100, 260, 999, 1000] {
        patterns.push(format!("{}a{}", "(".repeat(depth), ")".repeat(depth)));
    }
    assert_no_differences(&patterns);
}

/// A small seeded generator (xorshift), so that a failure names a pattern to reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[(self.next() % from.len() as u64) as usize]
    }
}

/// The pieces generated patterns are made of: every construct whose reading differs between
/// RE2 and the crate's syntax, and the plain ones they combine with.
const PIECES: &[&str] = &[
    "a",
    "b",
    "c",
    "k",
    "s",
    "é",
    "α",
    "٣",
    "K",
    "3",
    ".",
    "^",
    "$",
    "|",
    "|",
    "(",
    "(",
    ")",
    ")",
    "(?:",
    "(?i)",
    "(?i:",
    "(?-i)",
    "(?s)",
    "(?m)",
    "(?U)",
    "(?P<n>",
    "(?P<n1>",
    "(?)",
    "[",
    "[",
    "]",
    "]",
    "[^",
    "-",
    "&&",
    "--",
    "~~",
    "[:alpha:]",
    "[:^space:]",
    "[:word:]",
    "[:foo:]",
    "*",
    "*",
    "+",
    "+",
    "?",
    "?",
    "{",
    "}",
    ",",
    "0",
    "1",
    "2",
    "{2}",
    "{1,3}",
    "{,2}",
    "{2,}",
    "{0}",
    "{0,}",
    "{01}",
    "{1000}",
    "{1001}",
    "{500}",
    "\\d",
    "\\D",
    "\\w",
    "\\W",
    "\\s",
    "\\S",
    "\\b",
    "\\B",
    "\\A",
    "\\z",
    "\\pL",
    "\\p{Greek}",
    "\\p{^Greek}",
    "\\P{L}",
    "\\p{greek}",
    "\\p{C}",
    "\\p{Lu}",
    "\\x41",
    "\\x{3B1}",
    "\\x{D800}",
    "\\101",
    "\\0",
    "\\1",
    "\\Q",
    "\\E",
    "\\.",
    "\\-",
    "\\]",
    "\\[",
    "\\{",
    "\\\\",
    "\\<",
    "\\n",
    "\\t",
    "\\v",
    "\\e",
    "\\u",
    "\\C",
    "\\Z",
    "\\",
    " ",
    "\n",
    "\u{17F}",
    "\u{212A}",
];

/// Thousands of generated patterns of 1 to 10 pieces: a few accepted by both, most refused by
/// one or both, every one answered as Go answers it.
#[test]
fn generated_patterns_are_read_as_go_reads_them() {
    if !go_available("generated_patterns_are_read_as_go_reads_them") {
        return;
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let patterns: Vec<String> = (0..6000)
        .map(|_| {
            let pieces = 1 + rng.next() % 10;
            (0..pieces).map(|_| rng.pick(PIECES)).collect()
        })
        .collect();
    let accepted = ask_go(&patterns, &[]).iter().filter(|a| a.is_ok()).count();
    // The generator must reach both sides.
    assert!(
        accepted > 1000 && accepted < 5000,
        "{accepted} of 6000 accepted by Go"
    );
    assert_no_differences(&patterns);
}
