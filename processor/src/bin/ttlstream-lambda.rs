//! `ttlstream-lambda`: the Lambda bootstrap (cargo-lambda, SAM `provided.al2023`).
//! Everything is in [`ttlstream::lambda`].

fn main() -> std::process::ExitCode {
    ttlstream::lambda::main()
}
