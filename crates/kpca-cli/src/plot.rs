//! SVG figures with plotters: a scatter of the first two components (coloured
//! by group), a scree plot of the explained variance, and the anomaly view
//! (every row's anomaly score in row order against the threshold).
//!
//! Each panel's legend is drawn under its chart, never over the data. plotters
//! is built with its SVG backend only and no font feature: the SVG backend
//! writes `<text>` elements for the viewer to render, and text extents are
//! estimated, so no font file and no fontconfig are needed.

use crate::error::{CliError, CliResult};
use crate::output::float_text;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Points of one group (one label) in the scatter.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// Legend text.
    pub name: String,
    /// (x, y) of each point.
    pub points: Vec<(f64, f64)>,
}

/// The anomaly view: each row's anomaly score against its row number.
#[derive(Clone, Debug, PartialEq)]
pub struct AnomalyView<'a> {
    /// Title of the panel.
    pub title: &'a str,
    /// (row number from 1, score) of each row, grouped as the scatter is (the
    /// same groups in the same order get the same colours).
    pub groups: &'a [Group],
    /// The anomaly threshold; `None` when the model has none.
    pub threshold: Option<f64>,
}

/// What goes into the figure.
pub struct Figure<'a> {
    /// Scatter title.
    pub scatter_title: &'a str,
    /// Axis names of the scatter.
    pub axes: (&'a str, &'a str),
    /// Scatter groups.
    pub groups: &'a [Group],
    /// Scree title.
    pub scree_title: &'a str,
    /// Scree y-axis name.
    pub scree_y: &'a str,
    /// Explained-variance shares for the scree panel (of the total variance
    /// when known; see `scree_note` otherwise).
    pub ratios: &'a [f64],
    /// A note printed under the scree plot (what the shares are shares of,
    /// when it is not the fit's total variance).
    pub scree_note: Option<&'a str>,
    /// The anomaly view, drawn under the other panels when present.
    pub anomaly: Option<AnomalyView<'a>>,
}

/// Colours for the groups, in order (colour-blind-friendly first ones).
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The colour of the threshold line and of the cumulative share.
const ACCENT: RGBColor = RGBColor(214, 39, 40);
/// The colour of notes.
const NOTE: RGBColor = RGBColor(80, 80, 80);

/// Figure size of one panel in pixels.
const PANEL: (u32, u32) = (640, 480);
/// Font size of legends and notes, and the height of one of their lines.
const SMALL_FONT: u32 = 13;
const LINE_HEIGHT: u32 = 20;

fn plot_err<E: std::fmt::Debug>(e: E) -> CliError {
    CliError::input(format!("cannot draw the plot: {e:?}"))
}

/// The range of `values` with 5% padding (and a unit range when they are all equal).
fn padded_range(values: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if !lo.is_finite() || !hi.is_finite() {
        return -1.0..1.0;
    }
    let span = hi - lo;
    if span <= 0.0 {
        return (lo - 1.0)..(hi + 1.0);
    }
    (lo - 0.05 * span)..(hi + 0.05 * span)
}

/// How a legend entry is marked.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mark {
    /// A filled dot (a group of points).
    Dot(RGBColor),
    /// A black ring (points above the threshold).
    Ring,
    /// A line.
    Line(RGBColor),
    /// A dashed line.
    Dashed(RGBColor),
    /// A filled box (bars).
    Bar(RGBColor),
}

/// One legend entry.
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    mark: Mark,
    text: String,
}

/// Estimated width in pixels of a legend entry (marker, text, gap).
fn entry_width(e: &Entry) -> u32 {
    // About 0.6 em per character of a sans-serif font.
    34 + (e.text.chars().count() as u32 * SMALL_FONT * 6) / 10 + 18
}

/// The entries in rows that fit `width` pixels.
fn legend_rows(entries: &[Entry], width: u32) -> Vec<Vec<&Entry>> {
    let mut rows: Vec<Vec<&Entry>> = Vec::new();
    let mut used = 0;
    for e in entries {
        let w = entry_width(e);
        match rows.last_mut() {
            Some(row) if used + w <= width => {
                row.push(e);
                used += w;
            }
            _ => {
                rows.push(vec![e]);
                used = w;
            }
        }
    }
    rows
}

/// Height in pixels of `lines` lines of legend or note (0 for none).
fn block_height(lines: usize) -> u32 {
    if lines == 0 {
        0
    } else {
        6 + LINE_HEIGHT * lines as u32
    }
}

/// Draws one legend marker centred at (x, y).
fn draw_mark<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    mark: Mark,
    (x, y): (i32, i32),
) -> CliResult<()> {
    match mark {
        Mark::Dot(c) => area.draw(&Circle::new((x, y), 5, c.filled())),
        Mark::Ring => area.draw(&Circle::new((x, y), 6, BLACK.stroke_width(1))),
        Mark::Line(c) => area.draw(&PathElement::new(
            vec![(x - 10, y), (x + 10, y)],
            c.stroke_width(2),
        )),
        Mark::Dashed(c) => {
            for dx in [-11, 1] {
                area.draw(&PathElement::new(
                    vec![(x + dx, y), (x + dx + 9, y)],
                    c.stroke_width(2),
                ))
                .map_err(plot_err)?;
            }
            Ok(())
        }
        Mark::Bar(c) => area.draw(&Rectangle::new(
            [(x - 8, y - 5), (x + 8, y + 5)],
            c.filled(),
        )),
    }
    .map_err(plot_err)
}

/// Draws the legend rows into `area` (the strip under a chart).
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    rows: &[Vec<&Entry>],
    left: i32,
) -> CliResult<()> {
    let font = ("sans-serif", SMALL_FONT).into_font().color(&BLACK);
    let style = font.pos(Pos::new(HPos::Left, VPos::Center));
    for (i, row) in rows.iter().enumerate() {
        let y = (LINE_HEIGHT / 2 + LINE_HEIGHT * i as u32) as i32;
        let mut x = left;
        for e in row {
            draw_mark(area, e.mark, (x + 12, y))?;
            area.draw(&Text::new(e.text.clone(), (x + 30, y), style.clone()))
                .map_err(plot_err)?;
            x += entry_width(e) as i32;
        }
    }
    Ok(())
}

/// Splits `area` into the chart and the strip for `rows` of legend under it.
fn with_legend_strip<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    rows: usize,
) -> (DrawingArea<DB, Shift>, DrawingArea<DB, Shift>) {
    let (_, h) = area.dim_in_pixel();
    area.split_vertically(h.saturating_sub(block_height(rows)))
}

/// The legend entries of point groups: one per named group, with its size.
fn group_entries(groups: &[Group]) -> Vec<Entry> {
    if groups.len() <= 1 && groups.iter().all(|g| g.name.is_empty()) {
        return Vec::new();
    }
    groups
        .iter()
        .enumerate()
        .map(|(i, g)| Entry {
            mark: Mark::Dot(PALETTE[i % PALETTE.len()]),
            text: format!("{} ({})", g.name, g.points.len()),
        })
        .collect()
}

/// Draws the scatter into `area`, its legend under it.
fn draw_scatter<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    axes: (&str, &str),
    groups: &[Group],
) -> CliResult<()> {
    let entries = group_entries(groups);
    let rows = legend_rows(&entries, area.dim_in_pixel().0.saturating_sub(80));
    let (chart_area, legend_area) = with_legend_strip(area, rows.len());
    let xs = padded_range(groups.iter().flat_map(|g| g.points.iter().map(|p| p.0)));
    let ys = padded_range(groups.iter().flat_map(|g| g.points.iter().map(|p| p.1)));
    let mut chart = ChartBuilder::on(&chart_area)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(xs, ys)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .x_desc(axes.0)
        .y_desc(axes.1)
        .light_line_style(WHITE)
        .draw()
        .map_err(plot_err)?;
    for (i, group) in groups.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        chart
            .draw_series(
                group
                    .points
                    .iter()
                    .map(|&p| Circle::new(p, 3, color.mix(0.75).filled())),
            )
            .map_err(plot_err)?;
    }
    draw_legend(&legend_area, &rows, 72)
}

/// A share as a percentage for an axis: no decimals on whole percents.
fn percent(v: &f64) -> String {
    let p = 100.0 * v;
    if (p - p.round()).abs() < 1e-9 {
        format!("{p:.0}%")
    } else {
        format!("{p:.1}%")
    }
}

/// The cumulative shares, as (component, cumulative share) points.
fn cumulative(ratios: &[f64]) -> Vec<(f64, f64)> {
    let mut acc = 0.0;
    ratios
        .iter()
        .enumerate()
        .map(|(i, &r)| {
            acc += r;
            ((i + 1) as f64, acc)
        })
        .collect()
}

/// Draws the scree chart into `area`: a bar per component with its share of
/// the variance, the cumulative share as a line, its last value written.
fn draw_scree<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    y_desc: &str,
    ratios: &[f64],
) -> CliResult<()> {
    let k = ratios.len();
    let points = cumulative(ratios);
    let total = points.last().map_or(0.0, |p| p.1);
    let y_max = (total * 1.15).clamp(0.02, 1.05);
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.5f64..(k as f64 + 0.5), 0.0f64..y_max)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .x_desc("component")
        .y_desc(y_desc)
        .x_labels(k.clamp(1, 16))
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&percent)
        .light_line_style(WHITE)
        .draw()
        .map_err(plot_err)?;
    chart
        .draw_series(ratios.iter().enumerate().map(|(i, &r)| {
            let x = (i + 1) as f64;
            Rectangle::new([(x - 0.35, 0.0), (x + 0.35, r)], PALETTE[0].filled())
        }))
        .map_err(plot_err)?;
    chart
        .draw_series(LineSeries::new(
            points.iter().copied(),
            ACCENT.stroke_width(2),
        ))
        .map_err(plot_err)?;
    chart
        .draw_series(points.iter().map(|&p| Circle::new(p, 3, ACCENT.filled())))
        .map_err(plot_err)?;
    if let Some(&(x, total)) = points.last() {
        let style = ("sans-serif", 15)
            .into_font()
            .color(&ACCENT)
            .pos(Pos::new(HPos::Right, VPos::Bottom));
        let text = format!("{:.1}% in all", 100.0 * total);
        chart
            .draw_series(std::iter::once(Text::new(
                text,
                (x, total + 0.01 * y_max),
                style,
            )))
            .map_err(plot_err)?;
    }
    Ok(())
}

/// Splits `text` into lines of at most about `width` characters, at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.len() + 1 + word.len() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// Draws the scree panel: the chart, its legend, and its note (if any).
fn draw_scree_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    fig: &Figure<'_>,
) -> CliResult<()> {
    let width = area.dim_in_pixel().0;
    let chars = (width.saturating_sub(40) * 10 / (SMALL_FONT * 6)) as usize;
    let lines = fig.scree_note.map(|n| wrap(n, chars)).unwrap_or_default();
    let entries = [
        Entry {
            mark: Mark::Bar(PALETTE[0]),
            text: "share of each component".into(),
        },
        Entry {
            mark: Mark::Line(ACCENT),
            text: "cumulative".into(),
        },
    ];
    let rows = legend_rows(&entries, width.saturating_sub(80));
    let (_, h) = area.dim_in_pixel();
    let below = block_height(rows.len()) + block_height(lines.len());
    let (chart_area, rest) = area.split_vertically(h.saturating_sub(below));
    let (legend_area, note_area) = rest.split_vertically(block_height(rows.len()));
    draw_scree(&chart_area, fig.scree_title, fig.scree_y, fig.ratios)?;
    draw_legend(&legend_area, &rows, 82)?;
    let font = ("sans-serif", SMALL_FONT).into_font().color(&NOTE);
    let style = font.pos(Pos::new(HPos::Left, VPos::Center));
    for (i, line) in lines.iter().enumerate() {
        let y = (LINE_HEIGHT / 2 + LINE_HEIGHT * i as u32) as i32;
        note_area
            .draw(&Text::new(line.clone(), (20, y), style.clone()))
            .map_err(plot_err)?;
    }
    Ok(())
}

/// The rows above the threshold, as (row, score) points.
fn above_threshold(view: &AnomalyView<'_>, t: f64) -> Vec<(f64, f64)> {
    view.groups
        .iter()
        .flat_map(|g| g.points.iter().copied())
        .filter(|p| p.1 > t)
        .collect()
}

/// The legend of the anomaly view: the groups, the ringed rows, the threshold.
fn anomaly_entries(view: &AnomalyView<'_>) -> Vec<Entry> {
    let mut entries = group_entries(view.groups);
    if let Some(t) = view.threshold {
        entries.push(Entry {
            mark: Mark::Ring,
            text: format!("above the threshold ({})", above_threshold(view, t).len()),
        });
        entries.push(Entry {
            mark: Mark::Dashed(ACCENT),
            text: format!("threshold {}", float_text(t as f32)),
        });
    }
    entries
}

/// Draws the anomaly view into `area`: the scores as points (coloured by
/// group), the points above the threshold ringed, the threshold as a dashed
/// line with its value written on it, the legend under the chart.
fn draw_anomaly<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    view: &AnomalyView<'_>,
) -> CliResult<()> {
    let entries = anomaly_entries(view);
    let rows = legend_rows(&entries, area.dim_in_pixel().0.saturating_sub(90));
    let (chart_area, legend_area) = with_legend_strip(area, rows.len());
    let all = || view.groups.iter().flat_map(|g| g.points.iter());
    let n = all().count();
    let ys = padded_range(all().map(|p| p.1).chain(view.threshold).chain([0.0]));
    let xs = 0.0..(n as f64 + 1.0);
    let mut chart = ChartBuilder::on(&chart_area)
        .caption(view.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(xs.clone(), ys)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .x_desc("row (input order)")
        .y_desc("anomaly score")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .light_line_style(WHITE)
        .draw()
        .map_err(plot_err)?;
    let radius = if n > 2000 { 2 } else { 3 };
    if let Some(t) = view.threshold {
        // Under the points, so their colours stay visible where rings pile up.
        let rings = above_threshold(view, t);
        chart
            .draw_series(
                rings
                    .iter()
                    .map(|&p| Circle::new(p, radius + 3, BLACK.mix(0.7).stroke_width(1))),
            )
            .map_err(plot_err)?;
    }
    for (i, group) in view.groups.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        chart
            .draw_series(
                group
                    .points
                    .iter()
                    .map(|&p| Circle::new(p, radius, color.mix(0.8).filled())),
            )
            .map_err(plot_err)?;
    }
    if let Some(t) = view.threshold {
        draw_threshold(&mut chart, t, xs)?;
    }
    draw_legend(&legend_area, &rows, 82)
}

/// The threshold line of the anomaly view, with its value written under its
/// right end on a white box (readable over the points).
fn draw_threshold<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    t: f64,
    xs: std::ops::Range<f64>,
) -> CliResult<()> {
    chart
        .draw_series(DashedLineSeries::new(
            [(xs.start, t), (xs.end, t)],
            8,
            5,
            ACCENT.stroke_width(2),
        ))
        .map_err(plot_err)?;
    let text = format!("threshold {}", float_text(t as f32));
    let width = (text.chars().count() as i32 * 15 * 6) / 10;
    let style = ("sans-serif", 15).into_font().color(&ACCENT);
    let label = EmptyElement::at((xs.end, t))
        + Rectangle::new([(-width - 10, 4), (-2, 24)], WHITE.mix(0.9).filled())
        + Text::new(text, (-width - 6, 6), style);
    chart
        .draw_series(std::iter::once(label))
        .map_err(plot_err)?;
    Ok(())
}

/// The panels of a figure, laid out: the scatter and (with `with_scree`) the
/// scree plot side by side, and the anomaly view under them, or beside the
/// scatter without the scree plot.
fn draw_figure<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    fig: &Figure<'_>,
    with_scree: bool,
) -> CliResult<()> {
    root.fill(&WHITE).map_err(plot_err)?;
    match (&fig.anomaly, with_scree) {
        (Some(view), true) => {
            let (top, bottom) = root.split_vertically(PANEL.1);
            let (left, right) = top.split_horizontally(PANEL.0);
            draw_scatter(&left, fig.scatter_title, fig.axes, fig.groups)?;
            draw_scree_panel(&right, fig)?;
            draw_anomaly(&bottom, view)?;
        }
        (Some(view), false) => {
            let (left, right) = root.split_horizontally(PANEL.0);
            draw_scatter(&left, fig.scatter_title, fig.axes, fig.groups)?;
            draw_anomaly(&right, view)?;
        }
        (None, true) => {
            let (left, right) = root.split_horizontally(PANEL.0);
            draw_scatter(&left, fig.scatter_title, fig.axes, fig.groups)?;
            draw_scree_panel(&right, fig)?;
        }
        (None, false) => draw_scatter(root, fig.scatter_title, fig.axes, fig.groups)?,
    }
    root.present().map_err(plot_err)
}

/// The size of the figure [`draw_figure`] lays out.
fn figure_size(fig: &Figure<'_>, with_scree: bool) -> (u32, u32) {
    match (fig.anomaly.is_some(), with_scree) {
        (true, true) => (PANEL.0 * 2, PANEL.1 * 2),
        (false, false) => PANEL,
        _ => (PANEL.0 * 2, PANEL.1),
    }
}

/// Every panel in one SVG document: the scatter and the scree plot side by
/// side, and the anomaly view (when the figure has one) under them.
pub fn figure_svg(fig: &Figure<'_>) -> CliResult<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, figure_size(fig, true)).into_drawing_area();
        draw_figure(&root, fig, true)?;
    }
    Ok(svg)
}

/// The scatter (and the anomaly view beside it, when the figure has one), as
/// an SVG document: everything but the scree plot.
pub fn scatter_svg(fig: &Figure<'_>) -> CliResult<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, figure_size(fig, false)).into_drawing_area();
        draw_figure(&root, fig, false)?;
    }
    Ok(svg)
}

/// The scree plot alone (with its legend and note), as an SVG document.
pub fn scree_svg(fig: &Figure<'_>) -> CliResult<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, PANEL).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        draw_scree_panel(&root, fig)?;
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

/// Groups rows by label, in order of first appearance (one unnamed group when
/// there are no labels). `points` are (x, y) per row.
pub fn group_by_label(points: &[(f64, f64)], labels: Option<&[String]>) -> Vec<Group> {
    let Some(labels) = labels else {
        return vec![Group {
            name: String::new(),
            points: points.to_vec(),
        }];
    };
    let mut groups: Vec<Group> = Vec::new();
    for (&p, label) in points.iter().zip(labels) {
        match groups.iter_mut().find(|g| &g.name == label) {
            Some(g) => g.points.push(p),
            None => groups.push(Group {
                name: label.clone(),
                points: vec![p],
            }),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legend_entries_wrap_into_rows_that_fit() {
        let entry = |t: &str| Entry {
            mark: Mark::Dot(BLACK),
            text: t.into(),
        };
        let entries = [
            entry("aaaaaaaaaa"),
            entry("bbbbbbbbbb"),
            entry("cccccccccc"),
        ];
        let one = entry_width(&entries[0]);
        assert_eq!(legend_rows(&entries, 3 * one).len(), 1);
        let rows = legend_rows(&entries, 2 * one);
        assert_eq!(rows.iter().map(Vec::len).collect::<Vec<_>>(), [2, 1]);
        assert!(legend_rows(&[], 100).is_empty());
    }

    #[test]
    fn notes_wrap_at_spaces() {
        assert_eq!(wrap("one two three four", 9), ["one two", "three", "four"]);
    }

    #[test]
    fn axis_percentages_drop_zero_decimals() {
        assert_eq!(percent(&0.05), "5%");
        assert_eq!(percent(&0.025), "2.5%");
    }
}
