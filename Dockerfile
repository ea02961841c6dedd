# A static (musl) build of package-variant in a small image that runs as an unprivileged user.
# Porch's pod evaluator and `kpt fn eval --image` run the ENTRYPOINT once per call with the
# ResourceList on stdin.
FROM rust:1.95-alpine AS build
RUN apk add --no-cache musl-dev
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src ./src
RUN cargo build --release --locked --bin package-variant \
 && cp target/release/package-variant /package-variant

FROM alpine:3.21
COPY --from=build /package-variant /package-variant
USER 65534:65534
ENTRYPOINT ["/package-variant"]
