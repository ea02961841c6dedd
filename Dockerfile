# The package-variant KRM function image: a static (musl) binary in a small base, run as an
# unprivileged user. Porch's pod evaluator and `kpt fn eval --image` run the ENTRYPOINT once per
# call with the ResourceList on stdin.
#
#   docker build -t ghcr.io/package-variant/package-variant:v0.1.0 .
#   docker buildx build --platform linux/amd64,linux/arm64 -t ghcr.io/package-variant/package-variant:v0.1.0 .
#
# tests/image.rs builds this stage without Docker: it copies exactly the files the COPY lines
# name (as a clean checkout has them) into an empty directory and runs the cargo commands there.

# Stage 1: build, on the machine's own platform (no emulation), for the image's platform.
FROM --platform=$BUILDPLATFORM rust:1.95-alpine AS build
# Set by BuildKit from --platform; the classic builder leaves it empty: build for this machine.
ARG TARGETARCH
RUN apk add --no-cache musl-dev
WORKDIR /src
# The Rust target of the image's platform, kept in /rust-target for the steps below.
RUN arch="${TARGETARCH:-$(uname -m)}" \
 && case "$arch" in \
      amd64|x86_64) echo x86_64-unknown-linux-musl ;; \
      arm64|aarch64) echo aarch64-unknown-linux-musl ;; \
      *) echo "unsupported platform architecture '$arch': build for linux/amd64 or linux/arm64" >&2; exit 1 ;; \
    esac > /rust-target \
 && rustup target add "$(cat /rust-target)"
# The crate has no C code and Rust's musl targets bring their own C runtime, so the linker that
# ships with Rust links either target from either build platform; +crt-static makes the binary
# static explicitly (no libc at run time: it would run on distroless/static or scratch too). It
# is a static-pie with full RELRO (address space randomisation applies to it), its relocations
# packed by build.rs (musl applies them), its allocator musl's own (see docs/design.md, "Start
# and allocation"). aarch64's linker is the one .cargo/config.toml names: rust-lld, through a
# script that makes the link static-pie (Rust's aarch64 musl target would link at a fixed
# address; .cargo/config.toml says where that would change upstream).
ENV CARGO_TARGET_X86_64_UNKNOWN_LINUX_MUSL_LINKER=rust-lld \
    RUSTFLAGS="-C target-feature=+crt-static"
# Dependencies first, so a source change does not fetch them again. Cargo reads every target
# Cargo.toml declares, so the benches come along (they are not built), and the crate its
# `[patch.crates-io]` names (the `cel` crate's time zones).
COPY Cargo.toml Cargo.lock ./
COPY benches ./benches
COPY crates ./crates
RUN cargo fetch --locked --target "$(cat /rust-target)"
COPY build.rs ./
COPY .cargo ./.cargo
COPY src ./src
RUN cargo build --release --locked --bin package-variant --target "$(cat /rust-target)" \
 && cp "target/$(cat /rust-target)/release/package-variant" /package-variant
# A native build can run what it built; a cross build cannot (no emulation here).
RUN if [ "$(uname -m)" = "$(cut -d- -f1 /rust-target)" ]; then /package-variant --version; fi

# Stage 2: run. alpine, as the kpt functions catalog uses, keeps a shell for debugging; the
# function itself needs nothing from it.
FROM alpine:3.21
COPY --from=build /package-variant /package-variant
# The licence texts the binary's MIT, BSD and Apache dependencies ask to ship with it
# (scripts/third-party-licenses.sh writes the file; tests/licenses.rs checks it is current).
COPY THIRD-PARTY-LICENSES /usr/share/doc/package-variant/THIRD-PARTY-LICENSES
# nobody:nobody, numeric so that Kubernetes runAsNonRoot can check it.
USER 65534:65534
ENTRYPOINT ["/package-variant"]
