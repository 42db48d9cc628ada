//! The `kpca` command: see `kpca --help` and the `kpca_cli` library.

fn main() -> std::process::ExitCode {
    kpca_cli::main()
}
