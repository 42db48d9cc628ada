#!/usr/bin/env python3
"""Writes the quick start's numeric CSV files from data/basicmotions.csv.

data/sensor-train.csv  the 1000 training samples of the Walking recordings
                       (10 recordings x 100 steps), six channels, with a header
data/sensor-test.csv   the 2000 test samples of the Walking and Running
                       recordings, same columns
data/sensor-test-labels.csv  one label per row of sensor-test.csv

Usage: python3 scripts/make_sensor_csv.py  (from anywhere; standard library only)
"""
import csv
import pathlib

DATA = pathlib.Path(__file__).resolve().parent.parent / "data"
CHANNELS = ["acc_x", "acc_y", "acc_z", "gyr_x", "gyr_y", "gyr_z"]


def main():
    with open(DATA / "basicmotions.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    train = [r for r in rows if r["split"] == "train" and r["label"] == "Walking"]
    test = [r for r in rows if r["split"] == "test" and r["label"] in ("Walking", "Running")]
    for name, part in (("sensor-train.csv", train), ("sensor-test.csv", test)):
        with open(DATA / name, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(CHANNELS)
            for r in part:
                w.writerow([r[c] for c in CHANNELS])
    with open(DATA / "sensor-test-labels.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["label"])
        for r in test:
            w.writerow([r["label"]])
    print(f"train {len(train)} rows, test {len(test)} rows")


if __name__ == "__main__":
    main()
