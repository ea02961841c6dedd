//! criterion benchmarks of the hot parts: parse, emit, the PackageVariant run, CEL
//! render, naming, PackageVariantSet expansion. The end-to-end workloads are in `run.sh`.
//!
//! `cargo bench --bench hot` measures; `cargo test --benches` runs each once (CI smoke).

#[path = "support/workloads.rs"]
mod workloads;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use package_variant::api::package_variant_set::PackageVariantSet;
use package_variant::cel::{self as cel_env, Bindings, ProgramCache};
use package_variant::krm::dispatch;
use package_variant::krm::resource_list::{Changes, ResourceList};
use package_variant::package_variant::context::{self, ContextEdit};
use package_variant::package_variant::package::Package;
use package_variant::package_variant::PackageVariant;
use package_variant::package_variant::{injection, kptfile, pipeline};
use package_variant::package_variant_set::expansion::inputs::Item;
use package_variant::package_variant_set::expansion::naming;
use package_variant::package_variant_set::expansion::templates::{
    RenderInput, Renderer, RepositoryIndex,
};
use package_variant::yaml;
use serde_json::json;
use std::hint::black_box;

/// Items of the W1 package for the per-part benches (W1 itself is 10,000: see run.sh).
const ITEMS: usize = 1_000;

fn parse_emit(c: &mut Criterion) {
    let src = workloads::w1(workloads::W1::with_items(ITEMS));
    let mut g = c.benchmark_group("resource_list");
    g.throughput(Throughput::Bytes(src.len() as u64));
    g.bench_function("parse", |b| {
        b.iter(|| ResourceList::parse(black_box(&src)).map(|rl| rl.items.len()))
    });
    let rl = match ResourceList::parse(&src) {
        Ok(rl) => rl,
        Err(e) => panic!("{e}"),
    };
    g.bench_function("emit_unchanged", |b| {
        b.iter(|| rl.emit(black_box(&Changes::default()), &[]).len())
    });
    // Every item edited: the slow path of the emitter (no source copy of whole items).
    let mut all = Changes::default();
    for i in 0..rl.items.len() {
        if let Ok(mut t) = rl.tree(i) {
            if let Some(m) = t.path_mut(&["metadata"]) {
                m.set("generation", yaml::Node::plain("2"));
            }
            all.edited.insert(i, t);
        }
    }
    g.bench_function("emit_all_edited", |b| {
        b.iter(|| rl.emit(black_box(&all), &[]).len())
    });
    g.bench_function("reparse_item", |b| {
        b.iter(|| (0..rl.items.len()).filter_map(|i| rl.tree(i).ok()).count())
    });
    g.finish();
}

fn package_variant(c: &mut Criterion) {
    let src = workloads::w1(workloads::W1::with_items(ITEMS));
    let rl = match ResourceList::parse(&src) {
        Ok(rl) => rl,
        Err(e) => panic!("{e}"),
    };
    let mut g = c.benchmark_group("package_variant");
    g.bench_function("run_w1_1k", |b| {
        b.iter(|| {
            dispatch::run(black_box(&rl), package_variant::FUNCTIONS)
                .1
                .len()
        })
    });
    g.bench_function("process_w1_1k", |b| {
        b.iter(|| {
            package_variant::process_here(black_box(src.as_bytes()))
                .stdout
                .len()
        })
    });
    g.finish();
}

/// Each PackageVariant mutation alone, on the W1 package at 10,000 resources (what the
/// mutations cost on a large package: lookups over all items, not just the edits).
fn mutations(c: &mut Criterion) {
    let src = workloads::w1(workloads::W1::with_items(10_000));
    let rl = match ResourceList::parse(&src) {
        Ok(rl) => rl,
        Err(e) => panic!("{e}"),
    };
    let pv = match rl.function_config().map(PackageVariant::decode) {
        Some(Ok(pv)) => pv,
        _ => panic!("W1 has a PackageVariant functionConfig"),
    };
    let mut g = c.benchmark_group("mutation_w1_10k");
    g.sample_size(30);
    let data = pv
        .spec
        .package_context
        .as_ref()
        .map(|pc| pc.data.clone())
        .unwrap_or_default();
    g.bench_function("package_context", |b| {
        b.iter(|| {
            let mut pkg = Package::new(&rl, None);
            let edit = ContextEdit {
                data: &data,
                remove_keys: &[],
                field: "spec.packageContext",
            };
            context::apply(&mut pkg, &edit).is_ok()
        })
    });
    let root = kptfile::find_root(&Package::new(&rl, None)).unwrap_or(0);
    g.bench_function("pipeline", |b| {
        b.iter_batched(
            || rl.tree(root).ok(),
            |tree| {
                tree.map(|mut t| {
                    pipeline::apply(&mut t, &pv.name, pv.spec.pipeline.as_ref()).is_ok()
                })
            },
            BatchSize::SmallInput,
        )
    });
    // Step 3 of the PackageVariant function; the points it fills feed the next bench.
    let inject = || {
        let mut pkg = Package::new(&rl, None);
        let mut points = injection::find_points(&pkg);
        let named = Default::default();
        let (in_cluster, _) =
            injection::in_cluster_objects(&pkg, pv.namespace(), &named).unwrap_or_default();
        let _ = injection::inject(
            &mut pkg,
            pv.written_namespace.as_deref(),
            &pv.spec.injectors,
            &in_cluster,
            &mut points,
        );
        points
    };
    g.bench_function("injection", |b| b.iter(|| inject().len()));
    let points = inject();
    g.bench_function("conditions_and_gates", |b| {
        b.iter_batched(
            || rl.tree(root).ok(),
            |tree| {
                tree.map(|mut t| {
                    kptfile::set_conditions_and_gates(&mut t, &points, root, true).is_ok()
                })
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

/// One render of the W2 template (six CEL expressions) for one repository.
fn render(c: &mut Criterion) {
    let config = match yaml::parse(&workloads::w2_package_variant_set()).map(|n| yaml::to_json(&n))
    {
        Ok(Ok(v)) => v,
        _ => panic!("W2's PackageVariantSet parses"),
    };
    let set: PackageVariantSet = match package_variant::api::decode(&config, "") {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    let template = set.spec.targets.first().and_then(|t| t.template.as_ref());
    let repo = json!({"apiVersion": "config.porch.kpt.dev/v1alpha1", "kind": "Repository",
        "metadata": {"name": "site-00001", "namespace": "default",
        "labels": {"env": "prod", "region": "us-east1", "site": "s00001"}}});
    let upstream = cel_env::object_input(&json!({"metadata": {"name": "catalog.base.v3"}}));
    let repos = [repo.clone()];
    let index = RepositoryIndex::new(repos.iter().map(Item::Json));
    let mut programs = ProgramCache::new();
    let pinned = set.spec.upstream.as_ref().map(|u| u.as_written());
    let mut renderer = Renderer::new(&mut programs, pinned.as_ref(), &upstream, &index);
    let input = RenderInput {
        template,
        repo_default: "site-00001",
        package_default: "base",
        object: Some(Item::Json(&repos[0])),
        upstream: 0,
    };
    c.bench_function("cel/render_w2_template", |b| {
        b.iter(|| renderer.render(black_box(&input)).is_ok())
    });
}

/// CEL's view of an object, as the expander builds it per target.
fn object_val<'v>(item: &Item<'v>) -> cel::common::types::CelMap<'v> {
    cel_env::object_val(
        item.name(),
        item.namespace(),
        item.labels(),
        item.annotations(),
    )
}

fn cel(c: &mut Criterion) {
    let mut g = c.benchmark_group("cel");
    let source = "'base-' + target.labels['region']";
    g.bench_function("compile", |b| {
        b.iter(|| cel_env::compile(black_box(source)).is_ok())
    });
    let mut cache = ProgramCache::new();
    let program = match cache.compile(source) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    let object = json!({"metadata": {"name": "site-00001", "namespace": "default",
        "labels": {"env": "prod", "region": "us-east1", "site": "s00001"}}});
    let upstream = cel_env::object_input(&json!({"metadata": {"name": "catalog.base.v3"}}));
    let item = Item::Json(&object);
    let target = object_val(&item);
    g.bench_function("object_val", |b| b.iter(|| object_val(black_box(&item))));
    let bindings = Bindings::new(cache.env(), Some(&upstream));
    g.bench_function("activation", |b| {
        b.iter(|| bindings.activation("site-00001", "base", black_box(&target)))
    });
    let activation = bindings.activation("site-00001", "base", &target);
    g.bench_function("evaluate", |b| {
        b.iter(|| activation.evaluate(black_box(&program)))
    });
    g.finish();
}

fn naming(c: &mut Criterion) {
    let mut g = c.benchmark_group("naming");
    g.bench_function("short", |b| {
        b.iter(|| {
            naming::package_variant_name(&naming::identifier(
                "fleet",
                black_box("site-00001"),
                "base-us-east1",
            ))
        })
    });
    g.bench_function("hashed", |b| {
        b.iter(|| {
            naming::package_variant_name(&naming::identifier(
                "fleet-of-very-long-names",
                black_box("site-00001-in-a-very-long-region-name"),
                "base-southamerica-east1",
            ))
        })
    });
    g.finish();
}

fn package_variant_set(c: &mut Criterion) {
    let src = workloads::w2(workloads::W2::with_repositories(ITEMS));
    let mut g = c.benchmark_group("package_variant_set");
    g.sample_size(20);
    g.bench_function("process_w2_1k", |b| {
        b.iter_batched(
            || src.as_bytes(),
            |s| package_variant::process_here(s).stdout.len(),
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

criterion_group!(
    benches,
    parse_emit,
    package_variant,
    mutations,
    render,
    cel,
    naming,
    package_variant_set
);
criterion_main!(benches);
