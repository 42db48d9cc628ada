//! SVG figures with plotters: a scatter of the first two components (coloured
//! by group) and a scree plot of the explained variance.
//!
//! plotters is built with its SVG backend only and no font feature: the SVG
//! backend writes `<text>` elements for the viewer to render, and text extents
//! are estimated, so no font file and no fontconfig are needed.

use crate::error::{CliError, CliResult};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Points of one group (one label) in the scatter.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// Legend text.
    pub name: String,
    /// (x, y) of each point.
    pub points: Vec<(f64, f64)>,
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

/// Figure size of one panel in pixels.
const PANEL: (u32, u32) = (640, 480);

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

/// Draws the scatter into `area`.
fn draw_scatter<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    axes: (&str, &str),
    groups: &[Group],
) -> CliResult<()> {
    let xs = padded_range(groups.iter().flat_map(|g| g.points.iter().map(|p| p.0)));
    let ys = padded_range(groups.iter().flat_map(|g| g.points.iter().map(|p| p.1)));
    let mut chart = ChartBuilder::on(area)
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
            .map_err(plot_err)?
            .label(format!("{} ({})", group.name, group.points.len()))
            .legend(move |(x, y)| Circle::new((x + 10, y), 4, color.filled()));
    }
    if groups.len() > 1 || groups.iter().any(|g| !g.name.is_empty()) {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(plot_err)?;
    }
    Ok(())
}

/// Draws the scree plot into `area`: a bar per component with its share of the
/// variance and the cumulative share as a line.
fn draw_scree<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    y_desc: &str,
    ratios: &[f64],
) -> CliResult<()> {
    let k = ratios.len();
    let total: f64 = ratios.iter().filter(|r| r.is_finite()).sum();
    let y_max = (total * 1.15).clamp(0.05, 1.05);
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.5f64..(k as f64 + 0.5), 0.0f64..y_max)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .x_desc("component")
        .y_desc(y_desc)
        .x_labels(k.clamp(1, 16))
        .x_label_formatter(&|v| format!("{v:.0}"))
        .light_line_style(WHITE)
        .draw()
        .map_err(plot_err)?;
    let bar = PALETTE[0];
    chart
        .draw_series(ratios.iter().enumerate().map(|(i, &r)| {
            let x = (i + 1) as f64;
            Rectangle::new([(x - 0.35, 0.0), (x + 0.35, r)], bar.filled())
        }))
        .map_err(plot_err)?
        .label("share")
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 15, y + 5)], bar.filled()));
    let mut acc = 0.0;
    let cumulative: Vec<(f64, f64)> = ratios
        .iter()
        .enumerate()
        .map(|(i, &r)| {
            acc += r;
            ((i + 1) as f64, acc)
        })
        .collect();
    let line = PALETTE[1];
    chart
        .draw_series(LineSeries::new(
            cumulative.iter().copied(),
            line.stroke_width(2),
        ))
        .map_err(plot_err)?
        .label("cumulative")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 15, y)], line.stroke_width(2)));
    chart
        .draw_series(cumulative.iter().map(|&p| Circle::new(p, 3, line.filled())))
        .map_err(plot_err)?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::MiddleRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(plot_err)?;
    Ok(())
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
    /// Explained-variance ratios for the scree panel.
    pub ratios: &'a [f64],
}

/// The scatter and the scree plot side by side in one SVG document.
pub fn two_panel_svg(fig: &Figure<'_>) -> CliResult<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (PANEL.0 * 2, PANEL.1)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let (left, right) = root.split_horizontally(PANEL.0);
        draw_scatter(&left, fig.scatter_title, fig.axes, fig.groups)?;
        draw_scree(&right, fig.scree_title, fig.scree_y, fig.ratios)?;
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

/// The scatter alone, as an SVG document.
pub fn scatter_svg(fig: &Figure<'_>) -> CliResult<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, PANEL).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        draw_scatter(&root, fig.scatter_title, fig.axes, fig.groups)?;
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

/// The scree plot alone, as an SVG document.
pub fn scree_svg(fig: &Figure<'_>) -> CliResult<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, PANEL).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        draw_scree(&root, fig.scree_title, fig.scree_y, fig.ratios)?;
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
