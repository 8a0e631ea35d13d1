//! The `ttlstream` command: see `ttlstream --help`.

/// mimalloc: when it was chosen, glibc's malloc/free were a third of the
/// pipeline's CPU (ARCHITECTURE.md, the `mimalloc` row of the dependencies).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    ttlstream::cli::main()
}
