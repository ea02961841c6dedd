# The package-variant KRM function image: a static (musl) binary in a small base, run as an
# unprivileged user. Porch's pod evaluator and `kpt fn eval --image` run the ENTRYPOINT once per
# call with the ResourceList on stdin.
#
#   docker build -t ghcr.io/package-variant/package-variant:v0.1.0 .
#
# Stage 1: build. The rust alpine image targets musl natively (x86_64 or aarch64, whichever the
# build platform is); +crt-static makes the binary static explicitly, so it needs no libc at run
# time and would run on distroless/static or scratch as well.
FROM rust:1.95-alpine AS build
RUN apk add --no-cache musl-dev
WORKDIR /src
# Dependencies first, so a source change does not refetch and rebuild them.
COPY Cargo.toml Cargo.lock ./
RUN mkdir src && echo 'fn main() {}' > src/main.rs && touch src/lib.rs \
 && cargo fetch --locked \
 && rm -rf src
COPY src ./src
ENV RUSTFLAGS="-C target-feature=+crt-static"
RUN cargo build --release --locked --bin package-variant \
 && cp target/release/package-variant /package-variant \
 && /package-variant --version

# Stage 2: run. alpine, as the kpt functions catalog uses, keeps a shell for debugging; the
# function itself needs nothing from it.
FROM alpine:3.21
COPY --from=build /package-variant /package-variant
# nobody:nobody, numeric so that Kubernetes runAsNonRoot can check it.
USER 65534:65534
ENTRYPOINT ["/package-variant"]
