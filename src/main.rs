//! The `package-variant` binary: a KRM function. Reads a ResourceList on stdin, writes one on
//! stdout, exits 1 when any result is an error. `--help` is the function's documentation (what
//! `kpt fn doc` shows); its field reference is rendered from `api::schema`, the schemas strict
//! decoding walks.

mod reference;

use package_variant::api::annotations;
use package_variant::krm::run::start::{self, Stdout};
use std::io::{IsTerminal, Read};

const ABOUT: &str = "\
package-variant: a KRM function that applies Porch's PackageVariant mutations to a package and
expands a PackageVariantSet into PackageVariants, leaving every byte it does not change as it was.

It reads one ResourceList (config.kubernetes.io/v1) on stdin and writes one on stdout. The
functionConfig selects what it does:
  PackageVariant     config.porch.kpt.dev/v1alpha1  package context, Kptfile pipeline, config
                                                    injection with conditions and readiness gates
  PackageVariantSet  config.porch.kpt.dev/v1alpha2  creates, updates and deletes the set's
                                                    PackageVariants among the items
  ConfigMap          v1                             its data becomes package context data
  PackageVariant,    fn.kpt.dev/v1alpha1            this function's extension kinds: Porch's
  PackageVariantSet                                 fields plus its own, e.g. point-keyed
                                                    injection (spec.injection); see
                                                    docs/extensions.md
A run is all or nothing (on an error the items come back unchanged, with the error results and
the warnings and info found before them) and idempotent (running it again changes nothing). A
PackageVariant run's first info result sums up what it set: context keys, pipeline functions
and their places, injections, readiness gates, conditions, items changed. It is strict: a
field it does not know (a typo, a field at the wrong level) is an error naming the field and
the closest known one, e.g.
  spec.targets[0].repositorySelector.matchLabel: unknown field \"matchLabel\"; did you mean \"matchLabels\"?

HOW TO RUN
  1. kpt fn eval with a functionConfig file (the binary on PATH, or the image):
       kpt fn eval PKG --exec package-variant --fn-config pv.yaml
       kpt fn eval PKG --image ghcr.io/package-variant/package-variant:v0.1.0 --fn-config pv.yaml
     The image is not published (a pull fails): build it from the repository's Dockerfile and
     push it under a name of yours, or use --exec with the binary.
     kpt shows only the first lines of the results (errors come first);
     --truncate-output=false shows them all.
  2. kpt fn eval with key=value arguments: kpt passes a ConfigMap, whose data is set in the
     package context (the keys name and package-path are reserved):
       kpt fn eval PKG --exec package-variant -- region=us-east1 tier=gold
  3. A Kptfile pipeline (kpt fn render; exec: needs --allow-exec), or a ResourceList on stdin:
       pipeline:
         mutators:
         - image: ghcr.io/package-variant/package-variant:v0.1.0
           configPath: variant.yaml
       kpt fn source PKG | kpt fn eval - --exec package-variant --fn-config pv.yaml | kpt fn sink OUT
       package-variant < resource-list.yaml > out.yaml
  Objects from a cluster go through a folder, where kpt shows the function's errors (piped
  straight into kpt fn eval -, objects without a file path make kpt show only
  \"resource at path ... already exists\" instead):
       kubectl get repositories,packagerevisions,packagevariants -n NS -o yaml | kpt fn sink DIR
       kpt fn eval DIR --exec package-variant --fn-config pvs.yaml
  A variant's cluster copies: in package files named by its cluster-objects annotation, each
  marked config.kubernetes.io/local-config: \"true\" too (else a warning: kpt live apply would
  deploy it), or fed by scripts/apply-variant.sh PV PKG OBJECTS... (docs/reference.md, Objects
  from the cluster).

  Objects from the cluster are items: config injection reads only items annotated
  config.porch.kpt.dev/in-cluster: \"true\" in the PackageVariant's namespace; a
  PackageVariantSet reads the Repositories, the upstream PackageRevision, the existing
  PackageVariants and the objects an objectSelector names, in the set's namespace; given the
  variants' downstream PackageRevisions (porch.kpt.dev/v1alpha2), it lists those whose Rendered
  or Ready is not True in its summary, and they block rollout.requireReady.

";

/// After the ANNOTATIONS section, which is rendered from the registry
/// (`api::annotations::help`).
const ABOUT_END: &str = "\
CEL IN A SET
  Every *Expr of a set's template, a target's when and rollout.waveExpr see: target (the
  selected Repository or object, or {repo, package} for a repositories target), repository
  (the downstream Repository; not in repoExpr), upstream (the upstream PackageRevision),
  repoDefault and packageDefault (strings). Objects show name, namespace, labels and
  annotations only. More: docs/reference.md (CEL), docs/cel.md.

EXIT CODES
  0  done; the results may hold warnings and info (an unfilled required injection point is a
     warning, and its readiness gate stays unmet, unless package-variant.fn.kpt.dev/unfilled
     is \"error\")
  1  an error result (the items come back unchanged; the errors are summed up on stderr, the
     first 20 one per line), or the input is not a ResourceList (one line on stderr, nothing
     on stdout), or stdout is closed
  2  an unknown command-line argument, or stdin is a terminal (nothing to read: the
     binary says what it expects and exits at once)

OPTIONS
  -h, --help     print this documentation
  -V, --version  print the version

EXAMPLES
  PackageVariant (kpt fn eval PKG --exec package-variant --fn-config pv.yaml):
    apiVersion: config.porch.kpt.dev/v1alpha1
    kind: PackageVariant
    metadata:
      name: web-us-east1
    spec:
      upstream: {repo: blueprints, package: web, revision: 3}
      downstream: {repo: edge-us-east1, package: web}
      packageContext:
        data: {region: us-east1}
        removeKeys: [legacy-key]
      pipeline:
        mutators:
        - name: namespace
          image: ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4.1
          configMap: {namespace: web}
      injectors:
      - kind: ConfigMap
        name: us-east1-endpoints

  PackageVariantSet (kpt fn eval DIR --exec package-variant --fn-config pvs.yaml, DIR from kpt fn sink):
    apiVersion: config.porch.kpt.dev/v1alpha2
    kind: PackageVariantSet
    metadata:
      name: fleet-web
    spec:
      upstream: {repo: blueprints, package: web, revision: 2}
      targets:
      - repositorySelector:
          matchLabels: {env: prod}
        template:
          packageContext:
            dataExprs:
            - key: region
              valueExpr: repository.labels['region']

  Extension PackageVariant (fn.kpt.dev/v1alpha1, Porch's fields plus the extension's):
    apiVersion: fn.kpt.dev/v1alpha1
    kind: PackageVariant
    metadata:
      name: web-us-east1
      annotations:
        package-variant.fn.kpt.dev/cluster-objects: in-cluster/
    spec:
      upstream: {repo: blueprints, package: web, revision: 3}
      downstream: {repo: edge-us-east1, package: web}
      injection:
      - bindingPoint: endpoints
        clusterResource: {name: us-east1-endpoints}
      - directResource:
          apiVersion: v1
          kind: ConfigMap
          metadata: {name: web-flags}
          data: {beta: \"true\"}

  ConfigMap (what kpt builds from kpt fn eval PKG --exec package-variant -- region=us-east1):
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: function-input
    data:
      region: us-east1

";

/// Looks at descriptor 1 among the program's constructors, before the Rust runtime's start
/// puts `/dev/null` in place of a closed one (`krm::run::start`): a closed stdout then fails
/// the run instead of losing its output.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static NOTE_CLOSED_STDOUT: extern "C" fn() = {
    extern "C" fn note() {
        start::note_closed_stdout()
    }
    note
};

fn main() {
    // At once, before anything else grows the main thread's stack: `ulimit -s` may leave it
    // only a few KiB, and the work moves to a stack of its own (`krm::run::on_work_stack`).
    package_variant::on_work_stack(work)
}

fn work() -> ! {
    run(std::env::args_os().skip(1).collect(), start::stdout_state())
}

/// The binary's work: `args` are the command-line arguments after the program's name.
fn run(args: Vec<std::ffi::OsString>, stdout: Stdout) -> ! {
    if let Some(arg) = args.first() {
        match arg.to_string_lossy().as_ref() {
            "-h" | "--help" => {
                print!(
                    "{ABOUT}{}\n{ABOUT_END}{}",
                    annotations::help(),
                    reference::render()
                );
                std::process::exit(0)
            }
            "-V" | "--version" => {
                println!("package-variant {}", env!("CARGO_PKG_VERSION"));
                std::process::exit(0)
            }
            other => {
                eprintln!("package-variant: unknown argument {other:?}; see --help");
                std::process::exit(2);
            }
        }
    }
    if std::io::stdin().is_terminal() {
        // Nothing is piped in: a person typed the command. Say what it needs at once rather
        // than wait for a ResourceList to be typed.
        eprintln!("{STDIN_IS_A_TERMINAL}");
        std::process::exit(2);
    }
    // One byte past the limit is enough to refuse the input: never read (or hold) more.
    let limit = package_variant::krm::resource_list::MAX_INPUT_BYTES as u64 + 1;
    // Room for a small package at once: read in growing steps, the input would be copied
    // (and spread over new pages) at each.
    let mut input = Vec::with_capacity(INPUT_CAPACITY);
    if let Err(e) = std::io::stdin().lock().take(limit).read_to_end(&mut input) {
        eprintln!("package-variant: cannot read stdin: {e}");
        std::process::exit(1);
    }
    package_variant::run_and_exit(input, stdout)
}

/// Bytes of input the binary makes room for before reading: a small package. Only the pages
/// written cost memory.
const INPUT_CAPACITY: usize = 64 * 1024;

/// What the binary says when stdin is a terminal.
const STDIN_IS_A_TERMINAL: &str = "\
package-variant: stdin is a terminal; the function reads a ResourceList on stdin. Run it with kpt:
  kpt fn eval PKG --exec package-variant --fn-config pv.yaml
or give it a ResourceList:
  kpt fn source PKG --fn-config pv.yaml > rl.yaml && package-variant < rl.yaml
See package-variant --help.";
