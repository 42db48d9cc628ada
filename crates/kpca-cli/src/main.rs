//! The `kpca` command: see `kpca --help` and the `kpca::cli` module.

fn main() -> std::process::ExitCode {
    kpca_cli::main()
}
