//! The `package-variant` binary: a KRM function. Reads a ResourceList on stdin, writes one on
//! stdout, exits 1 when any result is an error.

use std::io::Read;

const USAGE: &str = "\
package-variant: a KRM function for Porch PackageVariant mutations and PackageVariantSet expansion

USAGE:
    package-variant < resource-list.yaml > out.yaml
    kpt fn eval PKG --exec package-variant --fn-config pv.yaml
    kpt fn eval PKG --exec package-variant -- key=value ...

Reads one ResourceList (config.kubernetes.io/v1) on stdin and writes one on stdout.
The functionConfig selects the function:
    PackageVariant     (config.porch.kpt.dev/v1alpha1)  package context, pipeline, injection
    PackageVariantSet  (config.porch.kpt.dev/v1alpha2)  emits the PackageVariants of a set
    ConfigMap          (v1)                             package context data (key=value)
Exit code 1 when any result has severity error or the input is not a ResourceList.

OPTIONS:
    -h, --help       print this help
    -V, --version    print the version
";

fn main() {
    let mut args = std::env::args().skip(1);
    if let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => {
                print!("{USAGE}");
                return;
            }
            "-V" | "--version" => {
                println!("package-variant {}", env!("CARGO_PKG_VERSION"));
                return;
            }
            other => {
                eprintln!("package-variant: unknown argument {other:?}; see --help");
                std::process::exit(2);
            }
        }
    }
    // One byte past the limit is enough to refuse the input: never read (or hold) more.
    let limit = package_variant::krm::resource_list::MAX_INPUT_BYTES as u64 + 1;
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().lock().take(limit).read_to_end(&mut input) {
        eprintln!("package-variant: cannot read stdin: {e}");
        std::process::exit(1);
    }
    package_variant::run_and_exit(input)
}
