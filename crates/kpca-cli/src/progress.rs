//! The progress bar of a streamed fit on standard error: the pass, the share
//! of the file read, rows and rows per second, the pass's ETA. It appears
//! once the fit has run for [`SHOW_AFTER`], only when standard error is a
//! terminal, and never with `--quiet`.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kpca_fit::stream::Pass;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// A fit shorter than this shows no bar.
pub const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Progress over the passes of a streamed fit of a file of `total_bytes`.
#[derive(Debug)]
pub struct PassProgress {
    bar: ProgressBar,
    allowed: bool,
    shown: bool,
    start: Instant,
    pass_start: Instant,
    rows: usize,
}

/// `1234567` as `1.23M`.
fn short(v: f64) -> String {
    match v {
        v if v >= 1e9 => format!("{:.2}G", v / 1e9),
        v if v >= 1e6 => format!("{:.2}M", v / 1e6),
        v if v >= 1e3 => format!("{:.1}k", v / 1e3),
        v => format!("{v:.0}"),
    }
}

impl PassProgress {
    /// A hidden bar over `total_bytes`; drawn later when allowed (not
    /// `quiet`, standard error a terminal).
    pub fn new(quiet: bool, total_bytes: u64) -> Self {
        let bar = ProgressBar::with_draw_target(Some(total_bytes), ProgressDrawTarget::hidden());
        if let Ok(style) =
            ProgressStyle::with_template("{prefix:>15} [{bar:30}] {percent:>3}%  {msg}  ETA {eta}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        let now = Instant::now();
        PassProgress {
            bar,
            allowed: !quiet && std::io::stderr().is_terminal(),
            shown: false,
            start: now,
            pass_start: now,
            rows: 0,
        }
    }

    /// A new pass starts at the beginning of the file.
    pub fn begin(&mut self, pass: Pass) {
        self.rows = 0;
        self.pass_start = Instant::now();
        self.bar.reset();
        self.bar
            .set_prefix(format!("pass {}/4 {}", pass.number(), pass.name()));
    }

    /// `rows` more rows were read; `bytes` of the file so far in this pass.
    pub fn advance(&mut self, rows: usize, bytes: u64) {
        self.rows += rows;
        let secs = self.pass_start.elapsed().as_secs_f64().max(1e-9);
        self.bar.set_message(format!(
            "{} rows, {} rows/s",
            short(self.rows as f64),
            short(self.rows as f64 / secs)
        ));
        self.bar.set_position(bytes);
        if self.allowed && !self.shown && self.start.elapsed() >= SHOW_AFTER {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_short() {
        assert_eq!(short(950.0), "950");
        assert_eq!(short(12_345.0), "12.3k");
        assert_eq!(short(10_000_000.0), "10.00M");
        assert_eq!(short(2.5e9), "2.50G");
    }
}
