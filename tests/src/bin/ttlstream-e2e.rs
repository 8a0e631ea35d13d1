//! The `ttlstream` command, built inside the tests crate so its tests can run it.

fn main() -> std::process::ExitCode {
    ttlstream::cli::main()
}
