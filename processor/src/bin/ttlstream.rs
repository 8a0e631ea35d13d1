//! The `ttlstream` command: see `ttlstream --help`.

fn main() -> std::process::ExitCode {
    ttlstream::cli::main()
}
