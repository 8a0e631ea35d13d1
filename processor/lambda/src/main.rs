//! `ttlstream-lambda`: the Lambda bootstrap (cargo-lambda, SAM `provided.al2023`).
//! Everything is in [`ttlstream::lambda`]. Its own package so that it builds
//! the `ttlstream` library without `ttlstream serve` (no ttlstream-server,
//! axum or SigV4 verifier in the function):
//! `cargo lambda build --release --arm64 -p ttlstream-lambda`.

fn main() -> std::process::ExitCode {
    ttlstream::lambda::main()
}
