#!/usr/bin/env python3
"""Measures how an embedding model's cosine similarities separate paraphrases from other
meanings, for the guidance on `expect: similar` thresholds in docs/conversations.md.

Reads Benchmarks/similarity/pairs.tsv (pairs written for Tide: `same` for a paraphrase,
`different` for another meaning, often on the same topic), embeds every sentence with `tide embed`,
and prints, as JSON, each label's similarities (lowest, median, highest), the threshold that
separates them best (the midpoint of the widest gap, or, where the two overlap, the one that
misplaces the fewest pairs), and every pair's figure.

Usage: scripts/similarity-threshold.py [--tide PATH] [--model NAME] [--against FILE]
  --tide     the tide binary (default: .build/release/tide)
  --model    the embedding model (default: tide embed's, all-minilm-l6-v2)
  --against  this script's output from another build (scripts/test-builds.sh): also print how far
             each pair's similarity moved from it (the largest and the median difference)
"""
import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path


def main() -> None:
    root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser()
    parser.add_argument("--tide", default=str(root / ".build/release/tide"))
    parser.add_argument("--model")
    parser.add_argument("--against")
    arguments = parser.parse_args()

    pairs = []
    for line in (root / "Benchmarks/similarity/pairs.tsv").read_text().splitlines():
        if not line or line.startswith("#") or line.startswith("label\t"):
            continue
        label, first, second = line.split("\t")
        pairs.append((label, first, second))
    texts = [text for _, first, second in pairs for text in (first, second)]
    command = [arguments.tide, "embed"] + (["--model", arguments.model] if arguments.model else [])
    run = subprocess.run(command, input="\n".join(texts) + "\n", capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"similarity-threshold: tide embed failed: {run.stderr.strip()}")
    vectors = [json.loads(line)["embedding"] for line in run.stdout.splitlines()]

    figures = []
    for index, (label, first, second) in enumerate(pairs):
        a, b = vectors[2 * index], vectors[2 * index + 1]
        figures.append({"label": label, "first": first, "second": second,
                        "similarity": round(sum(x * y for x, y in zip(a, b)), 6)})
    by_label = {label: sorted(f["similarity"] for f in figures if f["label"] == label) for label in ("same", "different")}
    # Every midpoint between two neighbouring figures is a candidate; the best misplaces the fewest.
    values = sorted(f["similarity"] for f in figures)
    candidates = [(x + y) / 2 for x, y in zip(values, values[1:])]
    def misplaced(threshold: float) -> int:
        return sum((f["similarity"] >= threshold) != (f["label"] == "same") for f in figures)
    best = min(candidates, key=lambda t: (misplaced(t), -min(abs(t - f["similarity"]) for f in figures)))
    moved = {}
    if arguments.against:
        before = json.loads(Path(arguments.against).read_text())["figures"]
        differences = sorted(abs(f["similarity"] - b["similarity"]) for f, b in zip(figures, before))
        moved = {"moved_from_other_build": {"largest": differences[-1], "median": statistics.median(differences)}}
    print(json.dumps({
        **moved,
        "pairs": len(figures),
        "same": {"count": len(by_label["same"]), "lowest": by_label["same"][0],
                 "median": statistics.median(by_label["same"]), "highest": by_label["same"][-1]},
        "different": {"count": len(by_label["different"]), "lowest": by_label["different"][0],
                      "median": statistics.median(by_label["different"]), "highest": by_label["different"][-1]},
        "threshold": round(best, 3), "misplaced": misplaced(best),
        "figures": figures,
    }, indent=1))


if __name__ == "__main__":
    main()
