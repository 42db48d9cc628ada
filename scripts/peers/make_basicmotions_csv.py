#!/usr/bin/env python3
"""Convert the BasicMotions .ts files shipped inside the `aeon` pip package
into data/basicmotions.csv (one row per case and time step).

Usage:  python scripts/peers/make_basicmotions_csv.py [--check]

The .ts files are read with a small parser written here (no aeon code is
used for parsing). With --check the result is also compared against aeon's
own loader, `aeon.datasets.load_basic_motions`.
"""
import argparse
import hashlib
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "data" / "basicmotions.csv"
CHANNELS = ["acc_x", "acc_y", "acc_z", "gyr_x", "gyr_y", "gyr_z"]
SERIES_LENGTH = 100


def aeon_data_dir() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("aeon")
    if spec is None or spec.origin is None:
        sys.exit("aeon is not installed: pip install -r scripts/peers/requirements.txt")
    return Path(spec.origin).parent / "datasets" / "data" / "BasicMotions"


def parse_ts(path: Path):
    """Return (header dict, list of (label, [6 lists of float]))."""
    header = {}
    cases = []
    in_data = False
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            if not in_data:
                if line.lower() == "@data":
                    in_data = True
                elif line.startswith("@"):
                    key, _, val = line[1:].partition(" ")
                    header[key.lower()] = val
                continue
            parts = line.split(":")
            *dims, label = parts
            series = [[float(tok) for tok in d.split(",")] for d in dims]
            if len(series) != len(CHANNELS):
                raise ValueError(f"{path}: expected 6 dimensions, got {len(series)}")
            for s in series:
                if len(s) != SERIES_LENGTH:
                    raise ValueError(f"{path}: expected length 100, got {len(s)}")
            cases.append((label.strip(), series))
    return header, cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="compare with aeon's loader")
    args = ap.parse_args()

    src = aeon_data_dir()
    splits = {}
    for split in ("train", "test"):
        header, cases = parse_ts(src / f"BasicMotions_{split.upper()}.ts")
        assert header["problemname"] == "BasicMotions", header
        assert header["dimensions"] == "6" and header["serieslength"] == "100", header
        splits[split] = cases

    OUT.parent.mkdir(parents=True, exist_ok=True)
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        f.write("case,split,label,t,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z\n")
        for split in ("train", "test"):
            for case, (label, series) in enumerate(splits[split]):
                for t in range(SERIES_LENGTH):
                    vals = ",".join(repr(series[c][t]) for c in range(6))
                    f.write(f"{case},{split},{label},{t},{vals}\n")

    digest = hashlib.sha256(OUT.read_bytes()).hexdigest()
    print(f"wrote {OUT.relative_to(REPO)}: {os.path.getsize(OUT)} bytes, sha256 {digest}")
    for split in ("train", "test"):
        labels = [lab for lab, _ in splits[split]]
        counts = {lab: labels.count(lab) for lab in sorted(set(labels))}
        print(f"  {split}: {len(labels)} cases {counts}")

    if args.check:
        import numpy as np
        from aeon.datasets import load_basic_motions

        for split in ("train", "test"):
            X, y = load_basic_motions(split=split.upper())
            mine = np.array([s for _, s in splits[split]])
            assert X.shape == mine.shape == (40, 6, 100), (X.shape, mine.shape)
            assert np.array_equal(X, mine), f"{split}: values differ from aeon loader"
            # aeon lower-cases class labels; the .ts file spells them "Standing" etc.
            mine_y = [lab.lower() for lab, _ in splits[split]]
            assert [str(v).lower() for v in y] == mine_y, f"{split}: labels differ"
        print("  check: identical to aeon.datasets.load_basic_motions (values; labels up to case)")


if __name__ == "__main__":
    main()
