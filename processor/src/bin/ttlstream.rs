//! The `ttlstream` command: see `ttlstream --help`.

/// mimalloc: the pipeline allocates per record attribute, and glibc's
/// malloc/free were a third of its CPU (see README, Performance).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    ttlstream::cli::main()
}
