//! The bundled BasicMotions recordings (protocol step 1), read with the command's
//! CSV reader (`kpca_cli::table::csv::records`): one row per split, case and
//! time step, with a label and the six channels.

use kpca_cli::error::{CliError, CliResult};
use kpca_cli::table::csv::{records, Record};
use std::collections::BTreeMap;

/// The name of the data in messages and in the report.
pub const DATA_NAME: &str = "data/basicmotions.csv";
/// The data (data/README.md describes it), built into the program.
pub const DATA: &str = include_str!("../../../../data/basicmotions.csv");
/// Channels, in feature order (protocol step 1).
pub const CHANNELS: [&str; 6] = ["acc_x", "acc_y", "acc_z", "gyr_x", "gyr_y", "gyr_z"];

/// One recording: split, case index, label and its 6-channel series.
#[derive(Clone, Debug, PartialEq)]
pub struct Recording {
    /// `train` or `test`.
    pub split: String,
    /// 0-based case index within the split.
    pub case: usize,
    /// Class name.
    pub label: String,
    /// series[t][channel].
    pub series: Vec<[f64; 6]>,
}

/// Reads the BasicMotions CSV into recordings, ordered by split (as in the file),
/// then case, with each series ordered by t. Checks that every case has the
/// time steps 0..T-1 exactly once and one label. `name` is used in messages.
pub fn read_recordings(bytes: &[u8], name: &str) -> CliResult<Vec<Recording>> {
    let records = records(bytes, name)?;
    let Some((header, rows)) = records.split_first() else {
        return Err(CliError::input(format!("{name}: no data rows")));
    };
    let columns = Columns::find(&header.fields, name)?;
    let mut cases = Cases::default();
    for record in rows {
        let at = |c: usize| {
            let column = header.fields.get(c).map(String::as_str).unwrap_or("");
            format!("{name}: line {}, column {} ({column})", record.line, c + 1)
        };
        let step = columns.step(record, &at)?;
        cases.add(step, &columns, &at)?;
    }
    cases.into_recordings(name)
}

/// Where the columns the demo reads are.
struct Columns {
    case: usize,
    split: usize,
    label: usize,
    t: usize,
    channels: [usize; 6],
}

/// One data row: its recording, time step and values.
struct Step {
    split: String,
    case: usize,
    label: String,
    t: usize,
    values: [f64; 6],
}

impl Columns {
    /// Finds the columns by name in the header line.
    fn find(header: &[String], name: &str) -> CliResult<Columns> {
        let col = |wanted: &str| -> CliResult<usize> {
            header.iter().position(|h| h == wanted).ok_or_else(|| {
                CliError::input(format!(
                    "{name}: line 1: no column {wanted:?} (expected the columns case, split, \
                     label, t, {})",
                    CHANNELS.join(", ")
                ))
            })
        };
        let (case, split, label, t) = (col("case")?, col("split")?, col("label")?, col("t")?);
        let mut channels = [0; 6];
        for (c, channel) in channels.iter_mut().zip(CHANNELS) {
            *c = col(channel)?;
        }
        Ok(Columns {
            case,
            split,
            label,
            t,
            channels,
        })
    }

    /// Parses one data row; `at(c)` names column `c` of the row in messages.
    fn step(&self, record: &Record, at: &dyn Fn(usize) -> String) -> CliResult<Step> {
        let field = |c: usize| record.fields.get(c).map(String::as_str).unwrap_or("");
        let int = |c: usize| -> CliResult<usize> {
            field(c).parse::<usize>().map_err(|_| {
                CliError::input(format!(
                    "{}: expected an integer >= 0, found {:?}",
                    at(c),
                    field(c)
                ))
            })
        };
        let (case, t) = (int(self.case)?, int(self.t)?);
        let mut values = [0.0f64; 6];
        for (v, &c) in values.iter_mut().zip(&self.channels) {
            let parsed = field(c).parse::<f64>().map_err(|_| {
                CliError::input(format!(
                    "{}: expected a number, found {:?}",
                    at(c),
                    field(c)
                ))
            })?;
            if !parsed.is_finite() {
                return Err(CliError::input(format!(
                    "{}: {:?} is not a finite number",
                    at(c),
                    field(c)
                )));
            }
            *v = parsed;
        }
        Ok(Step {
            split: field(self.split).to_string(),
            case,
            label: field(self.label).to_string(),
            t,
            values,
        })
    }
}

/// A case's label and its values by time step.
type CaseSteps = (String, BTreeMap<usize, [f64; 6]>);

/// The recordings as they are read: the splits in order of appearance, and
/// (split index, case) -> (label, t -> values).
#[derive(Default)]
struct Cases {
    split_order: Vec<String>,
    cases: BTreeMap<(usize, usize), CaseSteps>,
}

impl Cases {
    /// Adds one row, checking that its case keeps one label and that its time
    /// step is new.
    fn add(
        &mut self,
        step: Step,
        columns: &Columns,
        at: &dyn Fn(usize) -> String,
    ) -> CliResult<()> {
        let Step {
            split,
            case,
            label,
            t,
            values,
        } = step;
        let split_index = match self.split_order.iter().position(|s| *s == split) {
            Some(i) => i,
            None => {
                self.split_order.push(split.clone());
                self.split_order.len() - 1
            }
        };
        let entry = self
            .cases
            .entry((split_index, case))
            .or_insert_with(|| (label.clone(), BTreeMap::new()));
        if entry.0 != label {
            return Err(CliError::input(format!(
                "{}: label {label:?} differs from {:?} earlier in {split} case {case}",
                at(columns.label),
                entry.0
            )));
        }
        if entry.1.insert(t, values).is_some() {
            return Err(CliError::input(format!(
                "{}: time step {t} of {split} case {case} appears twice",
                at(columns.t)
            )));
        }
        Ok(())
    }

    /// The recordings, each checked for time steps 0..T-1 without gaps.
    fn into_recordings(self, name: &str) -> CliResult<Vec<Recording>> {
        if self.cases.is_empty() {
            return Err(CliError::input(format!("{name}: no data rows")));
        }
        let mut out = Vec::with_capacity(self.cases.len());
        for ((split_index, case), (label, steps)) in self.cases {
            let split = self
                .split_order
                .get(split_index)
                .cloned()
                .unwrap_or_default();
            let n = steps.len();
            if steps.keys().copied().ne(0..n) {
                return Err(CliError::input(format!(
                    "{name}: {split} case {case}: time steps are not 0..{} without gaps",
                    n.saturating_sub(1)
                )));
            }
            out.push(Recording {
                split,
                case,
                label,
                series: steps.into_values().collect(),
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recordings_are_read_by_split_case_and_time() {
        let text = "case,split,label,t,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z\n\
                    1,train,Walking,1,1,2,3,4,5,6\n\
                    1,train,Walking,0,0,0,0,0,0,0\n\
                    0,test,Running,0,6,5,4,3,2,1\n";
        let recs = read_recordings(text.as_bytes(), "r.csv").unwrap();
        assert_eq!(recs.len(), 2);
        assert_eq!((recs[0].split.as_str(), recs[0].case), ("train", 1));
        assert_eq!(
            recs[0].series,
            vec![[0.0; 6], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]
        );
        assert_eq!(recs[1].label, "Running");
    }

    #[test]
    fn bad_recordings_are_refused_with_their_place() {
        let header = "case,split,label,t,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z\n";
        let err = |rows: &str| {
            read_recordings(format!("{header}{rows}").as_bytes(), "r.csv")
                .unwrap_err()
                .to_string()
        };
        let e = err("0,train,Walking,0,1,2,x,4,5,6\n");
        assert!(
            e.contains("r.csv: line 2, column 7 (acc_z): expected a number"),
            "{e}"
        );
        let e = err("0,train,Walking,0,1,2,3,4,5,6\n0,train,Running,1,1,2,3,4,5,6\n");
        assert!(
            e.contains("line 3, column 3 (label): label \"Running\" differs"),
            "{e}"
        );
        let e = err("0,train,Walking,1,1,2,3,4,5,6\n");
        assert!(e.contains("time steps are not 0..0 without gaps"), "{e}");
        let e = err("");
        assert!(e.contains("r.csv: no data rows"), "{e}");
        let e = read_recordings(b"case,split\n", "r.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("no column \"label\""), "{e}");
    }
}
