//! The outputs of the benchmark workloads stay byte-identical through performance work: each
//! workload is generated again (benches/support/workloads.rs, as `benches/run.sh` does) at a
//! size a debug build runs in about a second, run through the binary, and the SHA-1 of its
//! stdout compared with the digest of what the binary printed before the work on issue 11
//! (the release binary of main at b9284a4). The W2 digests changed once since, by design, in
//! the results alone (issue 23: a warning per deleted variant, and the fields each update
//! changes in the summary): the items were checked byte-identical to main's. The W1 and W3
//! digests changed once, by design, in the results alone (issue 50: the PackageVariant's summary
//! result, first among them): each output less that result was checked to have the digest
//! before it (W1 fae7d1bd2dfb7013008da33ef5962b85f56fa232, W3
//! 1e6bd2807cffc57bddc20739ab87fde936713c1a).

mod common;

#[path = "../benches/support/workloads.rs"]
mod workloads;

/// The W2 shape owned by name: a set without a uid (as read from a file) and variants labelled
/// with the set's name, so the new variants carry no owner reference.
fn w2_owned_by_name(repositories: usize) -> String {
    workloads::w2(workloads::W2::with_repositories(repositories))
        .replace("    uid: 5d1c7a4e-0000-4000-8000-000000000001\n", "")
        .replace(
            "packagevariantset: 5d1c7a4e-0000-4000-8000-000000000001",
            "packagevariantset: fleet",
        )
}

/// (workload, exit code, SHA-1 of stdout) as printed by the binary before issue 11.
fn cases() -> Vec<(&'static str, String, i32, &'static str)> {
    vec![
        (
            "W1, 2000 resources",
            workloads::w1(workloads::W1::with_items(2000)),
            0,
            "35ebded8e6d3b2727529f092aa10055bf9cd1282",
        ),
        (
            "W2, 2000 repositories",
            workloads::w2(workloads::W2::with_repositories(2000)),
            0,
            "65145686891f10a42371f70064bda03082658f8c",
        ),
        (
            "W2 owned by name, 2000 repositories",
            w2_owned_by_name(2000),
            0,
            "decfa03042a42f9b7235fa4ce67d204d59630de7",
        ),
        (
            "W2, 300 repositories",
            workloads::w2(workloads::W2::with_repositories(300)),
            0,
            "6e43c1b8993b0b3bd3c9982dad978d86de6cbd58",
        ),
        (
            "W3",
            workloads::w3(),
            0,
            "db1f2087f458588edd2dcc52f89aafbd3b5822d9",
        ),
    ]
}

#[test]
fn workload_outputs_are_byte_identical_to_before() {
    let mut changed = Vec::new();
    for (name, input, code, digest) in cases() {
        let run = common::run(&input);
        let got = sha1_smol::Sha1::from(run.stdout.as_bytes())
            .digest()
            .to_string();
        if run.code != code || got != digest {
            changed.push(format!(
                "{name}: exit code {} (expected {code}), stdout SHA-1 {got} (expected {digest}), {} bytes; stderr: {}",
                run.code,
                run.stdout.len(),
                run.stderr
            ));
        }
    }
    assert!(changed.is_empty(), "{}", changed.join("\n"));
}
